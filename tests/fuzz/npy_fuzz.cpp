// Fuzz target: the .npy reader (header parsing, then the memory-mapped array), with the option
// sets the CLI uses.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_support.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = radial::fuzz::write_scratch("input.npy", data, size);
  radial::fuzz::read_dataset_three_ways(file);
  return 0;
}
