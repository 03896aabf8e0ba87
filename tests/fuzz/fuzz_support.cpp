#include "fuzz_support.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <system_error>
#include <unistd.h>

#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"

namespace radial::fuzz {

namespace fs = std::filesystem;

namespace {

fs::path make_scratch_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/radial-fuzz-XXXXXX";
  if (!mkdtemp(pattern.data())) {
    std::perror("radial fuzz: mkdtemp");
    std::abort();
  }
  return pattern;
}

struct Scratch {
  fs::path dir = make_scratch_dir();
  pid_t owner = getpid();
  ~Scratch() {
    // Not in a forked child (libFuzzer -fork), which shares the folder with its parent.
    if (getpid() != owner) return;
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

}  // namespace

const fs::path& scratch_dir() {
  static Scratch scratch;
  return scratch.dir;
}

fs::path write_scratch(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const fs::path file = scratch_dir() / name;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::fprintf(stderr, "radial fuzz: cannot write %s\n", file.c_str());
    std::abort();
  }
  return file;
}

const Registry& registry() {
  static const Registry* loaded = [] {
    auto* r = new Registry;  // never freed: plugins stay loaded for the process's life
    const char* dir = std::getenv("RADIAL_FUZZ_PLUGIN_DIR");
    r->load_folder(dir && *dir ? dir : RADIAL_FUZZ_PLUGIN_DIR);
    if (r->components().empty()) {
      std::fprintf(stderr, "radial fuzz: no plugins in %s\n", RADIAL_FUZZ_PLUGIN_DIR);
      std::abort();
    }
    return r;
  }();
  return *loaded;
}

void read_dataset_three_ways(const std::filesystem::path& file) {
  RADIAL_FUZZ_ACCEPT_ERRORS(read_dataset(file));
  DataOptions regression;
  regression.task = Task::Regression;
  RADIAL_FUZZ_ACCEPT_ERRORS(read_dataset(file, regression));
  DataOptions coded;
  coded.task = Task::Classification;
  coded.class_values = std::vector<double>{0, 1, 2};
  RADIAL_FUZZ_ACCEPT_ERRORS(read_dataset(file, coded));
}

}  // namespace radial::fuzz
