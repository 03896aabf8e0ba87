// Fuzz target: the CSV reader, through a file as `radial train/evaluate/predict` read it, with
// the option sets the CLI uses (inferred task, forced task, a training set's class values, a
// named target) and the prediction reader (columns matched by name).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"

namespace {

// The header's first cells, split naively (no quotes), so the named-column paths get names
// that exist in the file.
std::vector<std::string> header_cells(const std::uint8_t* data, std::size_t size, std::size_t most) {
  std::vector<std::string> cells(1);
  for (std::size_t i = 0; i < size && data[i] != '\n' && data[i] != '\r'; ++i) {
    if (data[i] == ',') {
      if (cells.size() == most) break;
      cells.emplace_back();
    } else {
      cells.back() += static_cast<char>(data[i]);
    }
  }
  return cells;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using radial::DataOptions;
  const auto file = radial::fuzz::write_scratch("input.csv", data, size);
  const auto names = header_cells(data, size, 3);

  radial::fuzz::read_dataset_three_ways(file);  // the .csv name makes read_dataset read CSV
  DataOptions named;
  named.target = names.front();
  RADIAL_FUZZ_ACCEPT_ERRORS(radial::read_csv(file, named));
  const std::vector<std::string> features(names.begin() + (names.size() > 1 ? 1 : 0), names.end());
  RADIAL_FUZZ_ACCEPT_ERRORS(radial::read_inputs_csv(file, features));
  return 0;
}
