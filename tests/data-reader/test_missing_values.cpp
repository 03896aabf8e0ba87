// Missing input values (issue 28, part 3): the markers the readers accept, and counting,
// dropping and imputing, against values worked out by hand from tests/data/missing/.

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "npy_bytes.hpp"
#include "reader_test.hpp"
#include "radial/data/missing_values.hpp"

using radial::Matrix;
using radial::MissingPolicy;

namespace {

std::string file(const std::string& name) { return test_data("missing/" + name).string(); }

// The matrix with NaN written as -99 (NaN never equals itself).
std::vector<double> shown(const Matrix& m) {
  std::vector<double> out;
  for (const double v : m) out.push_back(std::isnan(v) ? -99.0 : v);
  return out;
}

}  // namespace

TEST_CASE("missing markers: empty, ?, NA and NaN in any case; nothing else", "[data][missing]") {
  for (const char* text : {"", "?", "NA", "NaN", "nan", "NAN"})
    CHECK(radial::is_missing_marker(text));
  for (const char* text : {"0", "na", "N/A", "??", "nann", "-"})
    CHECK_FALSE(radial::is_missing_marker(text));
}

TEST_CASE("missing CSV cells read as NaN when allowed, in numeric and nominal columns",
          "[data][missing]") {
  DataOptions options;
  options.allow_missing = true;
  const radial::Dataset data = radial::read_csv(file("markers.csv"), options);
  // a | b | colour=blue colour=red (NA: both indicators missing; not a category)
  CHECK(data.feature_names == std::vector<std::string>{"a", "b", "colour=blue", "colour=red"});
  CHECK(shown(data.inputs) == std::vector<double>{1, -99, 0, 1,      //
                                                  -99, 4, -99, -99,  //
                                                  3, -99, 1, 0,      //
                                                  5, 8, 0, 1});
  CHECK(radial::count_missing(data.inputs) == std::vector<std::size_t>{1, 2, 1, 1});
  // Without the policy the first missing cell is an error at its position.
  CHECK_THAT(data_error([&] { radial::read_csv(file("markers.csv")); }),
             StartsWith(file("markers.csv") + ":2:3: missing value \"?\" in input column 'b'"));
}

TEST_CASE("missing ARFF values (?) read as NaN when allowed", "[data][missing][arff]") {
  DataOptions options;
  options.allow_missing = true;
  const radial::Dataset data = radial::read_dataset(file("markers.arff"), options);
  CHECK(data.feature_names == std::vector<std::string>{"a", "colour=blue", "colour=red"});
  // Rows: blue | ?,? | the sparse row, whose omitted colour is the first declared, red.
  CHECK(shown(data.inputs) == std::vector<double>{1, 1, 0,        //
                                                  -99, -99, -99,  //
                                                  3, 0, 1});
  CHECK_THAT(data_error([&] { radial::read_dataset(file("markers.arff")); }),
             StartsWith(file("markers.arff") + ":7:1: missing value ('?') for attribute 'a'"));
}

TEST_CASE("missing values: rows dropped, means and medians of the observed values",
          "[data][missing]") {
  const double nan = std::nan("");
  const Matrix x = {{1, nan, 10}, {nan, 4, 20}, {3, 6, 30}, {8, 5, nan}};
  // Means: (1+3+8)/3 = 4, (4+6+5)/3 = 5, (10+20+30)/3 = 20; medians: 3, 5, 20.
  const radial::Vector mean = radial::fit_imputation(x, MissingPolicy::Mean);
  CHECK(std::vector<double>(mean.begin(), mean.end()) == std::vector<double>{4, 5, 20});
  const radial::Vector median = radial::fit_imputation(x, MissingPolicy::Median);
  CHECK(std::vector<double>(median.begin(), median.end()) == std::vector<double>{3, 5, 20});
  // An even count of observed values: the mean of the two middle ones.
  const Matrix even = {{1}, {4}, {nan}, {2}, {10}};
  CHECK(radial::fit_imputation(even, MissingPolicy::Median)(0) == 3.0);
  Matrix filled = x;
  radial::impute(filled, mean);
  CHECK(shown(filled) == std::vector<double>{1, 5, 10, 4, 4, 20, 3, 6, 30, 8, 5, 20});

  radial::Dataset data;
  data.inputs = x;
  data.feature_names = {"p", "q", "r"};
  data.task = radial::Task::Regression;
  data.values = {0.5, 1.5, 2.5, 3.5};
  CHECK(radial::drop_missing_rows(data) == 3);
  CHECK(shown(data.inputs) == std::vector<double>{3, 6, 30});
  CHECK(std::vector<double>(data.values.begin(), data.values.end()) == std::vector<double>{2.5});
}

TEST_CASE("a missing target is never a class label: refused, or its row left out",
          "[data][missing]") {
  // Under data.missing = "error" it is an error at its cell; under any other policy (issue 46)
  // its row is left out and counted, as the inputs' policy leaves out or fills theirs.
  CHECK_THAT(data_error([&] { radial::read_csv(file("missing-target.csv")); }),
             StartsWith(file("missing-target.csv") + ":3:5: missing target value \"?\" in column "
                                                     "'class'"));
  DataOptions options;
  options.allow_missing = true;
  const radial::Dataset data = radial::read_csv(file("missing-target.csv"), options);
  CHECK(data.missing_targets == 1);
  CHECK(data.rows() == 1);
}

TEST_CASE("missing .npy inputs: NaN reads as an empty CSV cell when data.missing allows it",
          "[data][missing][npy]") {
  namespace fs = std::filesystem;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const fs::path folder =
      fs::temp_directory_path() / ("radial-test-npy-missing-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const fs::path npy = folder / "cells.npy", csv = folder / "cells.csv";
  // Three inputs and the target; NaN at (1, 2), (2, 1) and (3, 2) (1-based rows, columns).
  const std::vector<double> values = {1, nan, 3, 0,  //
                                      nan, 5, 6, 1,  //
                                      7, nan, 9, 0,  //
                                      10, 11, 12, 1};
  std::ofstream(npy, std::ios::binary) << radial::testing::npy_bytes(4, 4, values);
  std::ofstream(csv) << "x1,x2,x3,y\n1,,3,0\n,5,6,1\n7,,9,0\n10,11,12,1\n";
  DataOptions options;
  options.allow_missing = true;
  const radial::Dataset from_npy = radial::read_dataset(npy, options);
  const radial::Dataset from_csv = radial::read_dataset(csv, options);
  CHECK(shown(from_npy.inputs) == shown(from_csv.inputs));
  CHECK(shown(from_npy.inputs) == std::vector<double>{1, -99, 3, -99, 5, 6, 7, -99, 9, 10, 11, 12});
  CHECK(radial::count_missing(from_npy.inputs) == std::vector<std::size_t>{1, 2, 0});
  const radial::Vector a = radial::fit_imputation(from_npy.inputs, MissingPolicy::Mean);
  const radial::Vector b = radial::fit_imputation(from_csv.inputs, MissingPolicy::Mean);
  CHECK(std::vector<double>(a.begin(), a.end()) == std::vector<double>(b.begin(), b.end()));
  // A model's inputs (predict, evaluate): NaN passes when the model reads missing values.
  const Matrix inputs = radial::read_model_inputs(npy, from_npy.feature_names, {}, true);
  CHECK(shown(inputs) == shown(from_npy.inputs));

  // missing = "error" (the default): NaN is refused at its row and column, naming the setting.
  const std::string refused = data_error([&] { radial::read_dataset(npy); });
  CHECK_THAT(refused, StartsWith(npy.string() + ": row 1, column 2 is NaN, which is read as a "
                                                "missing input only when data.missing is"));
  CHECK_THAT(data_error([&] { radial::read_model_inputs(npy, from_npy.feature_names, {}, false); }),
             StartsWith(npy.string() + ": row 1, column 2 is NaN"));
  // A missing target leaves its row out (issue 46), and infinity is never a value.
  std::vector<double> bad = values;
  bad[3] = nan;
  std::ofstream(npy, std::ios::binary) << radial::testing::npy_bytes(4, 4, bad);
  const radial::Dataset without = radial::read_dataset(npy, options);
  CHECK(without.missing_targets == 1);
  CHECK(shown(without.inputs) == std::vector<double>{-99, 5, 6, 7, -99, 9, 10, 11, 12});
  CHECK_THAT(data_error([&] { radial::read_dataset(npy); }),
             StartsWith(npy.string() + ": row 1, column 2 is NaN"));
  bad[3] = 0;
  bad[0] = std::numeric_limits<double>::infinity();
  std::ofstream(npy, std::ios::binary) << radial::testing::npy_bytes(4, 4, bad);
  CHECK_THAT(data_error([&] { radial::read_dataset(npy, options); }),
             StartsWith(npy.string() + ": row 1, column 1 is infinite"));
  fs::remove_all(folder);
}
