// Output files checked before any work: a result must never overwrite an input of the same run
// or another result of it (`--model d.csv` would destroy the data, `--model x --report x` would
// keep only the report).
#include "outputs.hpp"

#include <system_error>

#include "radial/core/errors.hpp"

namespace radial::cli {
namespace {

namespace fs = std::filesystem;

// The same file, through links, "./" or another spelling; for names not yet created, the same
// resolved name.
bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code error;
  if (fs::equivalent(a, b, error)) return true;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a), error);
  if (error) return false;
  const fs::path cb = fs::weakly_canonical(fs::absolute(b), error);
  return !error && ca == cb;
}

}  // namespace

OutputTarget checked_output(const std::string& option, const std::string& file,
                            const std::string& role, const std::vector<NamedFile>& inputs,
                            const std::vector<NamedOutput>& earlier) {
  OutputTarget target = classify_output(file, role);
  // Devices and FIFOs lose nothing by being written twice; stdout is checked by the caller.
  if (target.kind != OutputTarget::Kind::Replace) return target;
  for (const NamedFile& input : inputs) {
    if (same_file(target.path, input.path)) {
      throw InputError(option + " " + file + ": it is the " + input.what + " (" +
                       input.path.string() + "); writing it would destroy an input of this run; "
                       "name another file");
    }
  }
  for (const NamedOutput& other : earlier) {
    if (other.target.kind == OutputTarget::Kind::Replace && same_file(target.path, other.target.path)) {
      throw InputError(option + " " + file + " and " + other.option + " " + other.target.name +
                       " are the same file; one would replace the other; name two files");
    }
  }
  return target;
}

}  // namespace radial::cli
