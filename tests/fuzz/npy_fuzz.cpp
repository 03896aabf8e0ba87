// Fuzz target: the .npy reader (header parsing, then the memory-mapped array), with the option
// sets the CLI uses.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_support.hpp"
#include "radial/data_reader.hpp"
#include "radial/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using radial::DataOptions;
  using radial::Task;
  const auto file = radial::fuzz::write_scratch("input.npy", data, size);
  RADIAL_FUZZ_ACCEPT_ERRORS(radial::read_dataset(file));
  DataOptions regression;
  regression.task = Task::Regression;
  RADIAL_FUZZ_ACCEPT_ERRORS(radial::read_dataset(file, regression));
  DataOptions coded;
  coded.task = Task::Classification;
  coded.class_values = std::vector<double>{0, 1, 2};
  RADIAL_FUZZ_ACCEPT_ERRORS(radial::read_dataset(file, coded));
  return 0;
}
