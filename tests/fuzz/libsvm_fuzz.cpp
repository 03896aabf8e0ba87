// Fuzz target: the LIBSVM / SVMlight reader, through a file as `radial train/evaluate/predict`
// read it: the option sets the CLI uses (inferred task, forced task, a training set's class
// values), a given feature count, text labels coded by given names, and the prediction reader
// with numbered and positional feature names.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using radial::DataOptions;
  const auto file = radial::fuzz::write_scratch("input.libsvm", data, size);
  radial::fuzz::read_dataset_three_ways(file);
  DataOptions three;
  three.features = 3;
  RADIAL_FUZZ_ACCEPT_ERRORS(radial::read_dataset(file, three));
  DataOptions named;
  radial::use_classes_of(named, {0, 1}, {"-1", "+1"});
  RADIAL_FUZZ_ACCEPT_ERRORS(radial::read_dataset(file, named));
  RADIAL_FUZZ_ACCEPT_ERRORS(radial::read_inputs_csv(file, {"x2", "x7"}));
  RADIAL_FUZZ_ACCEPT_ERRORS(radial::read_inputs_csv(file, {"a", "b", "c"}));
  return 0;
}
