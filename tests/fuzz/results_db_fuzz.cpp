// Fuzz target: the results database reader. The bytes are an SQLite file opened as `radial
// results` and `radial plot results` open it (read-only), then every run read one at a time,
// the experiments listed, each one's stored [table] read, and its table made; and once as
// `radial experiment` opens its database (read-write, on the scratch copy).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "radial/core/errors.hpp"
#include "radial/experiment/results_store.hpp"
#include "radial/experiment/results_table.hpp"

namespace {

void read_all(const radial::ResultsStore& store) {
  for (const std::string& name : store.experiments()) {
    const std::string stored = store.table(name);
    radial::TableSpec spec;
    RADIAL_FUZZ_ACCEPT_ERRORS(spec = radial::table_spec_from_json(stored));
    const std::vector<radial::RunRecord> runs = radial::runs_for_table(
        [&](const std::function<void(radial::RunRecord&&)>& visit) {
          store.for_each_run(visit, name);
        },
        spec);
    RADIAL_FUZZ_ACCEPT_ERRORS(
        (void)radial::format_table(radial::make_table(runs, spec, name), radial::TableFormat::Csv));
  }
  RADIAL_FUZZ_ACCEPT_ERRORS((void)radial::runs_json(store.runs()));
  (void)store.keys(true);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = radial::fuzz::write_scratch("input.sqlite", data, size);
  for (const char* side : {"-wal", "-shm", "-journal"})
    std::filesystem::remove(file.string() + side);
  RADIAL_FUZZ_ACCEPT_ERRORS(read_all(radial::ResultsStore(file, radial::ResultsStore::Access::ReadOnly)));
  RADIAL_FUZZ_ACCEPT_ERRORS(read_all(radial::ResultsStore(file)));
  return 0;
}
