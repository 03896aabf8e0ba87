#pragma once
// What the data-reader tests share: the readers, the matchers their error checks use and the
// message of a failed read. Only this test's sources include it, so the using-declarations stay
// within test-data-reader.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "data_error.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"
#include "radial/testing/paths.hpp"

namespace radial::testing {

// The DataError message of read_dataset on `file` (the reader chosen by its ending).
inline std::string read_error(const std::string& file, const DataOptions& options = {}) {
  return data_error([&] { read_dataset(file, options); });
}

}  // namespace radial::testing

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using radial::DataOptions;
using radial::Task;
using radial::testing::data_error;
using radial::testing::read_error;
using radial::testing::test_data;
