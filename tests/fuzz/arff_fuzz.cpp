// Fuzz target: the ARFF reader, through a file as `radial train/evaluate/predict` read it: the
// option sets the CLI uses (inferred task, forced task, a training set's class values), text
// labels coded by given names, nominal columns named in data.nominal, missing values read, a
// test set coded by the first read's coding, and the prediction reader with that coding.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using radial::DataOptions;
  const auto file = radial::fuzz::write_scratch("input.arff", data, size);
  radial::fuzz::read_dataset_three_ways(file);

  DataOptions lenient;
  lenient.allow_missing = true;
  lenient.nominal = {"a", "b"};
  std::optional<radial::Dataset> first;
  RADIAL_FUZZ_ACCEPT_ERRORS(first = radial::read_dataset(file, lenient));
  DataOptions named;
  radial::use_classes_of(named, {0, 1}, {"no", "yes"});
  RADIAL_FUZZ_ACCEPT_ERRORS(radial::read_dataset(file, named));
  if (first) {
    DataOptions test = lenient;
    test.coding = first->coding;
    RADIAL_FUZZ_ACCEPT_ERRORS(radial::read_dataset(file, test));
    RADIAL_FUZZ_ACCEPT_ERRORS(
        radial::read_model_inputs(file, first->feature_names, first->coding, true));
  }
  RADIAL_FUZZ_ACCEPT_ERRORS(radial::read_inputs_csv(file, {"a"}));
  return 0;
}
