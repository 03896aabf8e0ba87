// Nominal inputs coded 1-of-C (issue 28, part 2): CSV columns of text, columns named in
// data.nominal, ARFF nominal attributes. The expected matrices are one-hot codes written out by
// hand from the files in tests/data/nominal/ (categories in increasing byte order).

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "data_error.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"
#include "radial/data/standardiser.hpp"
#include "radial/testing/paths.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using radial::DataOptions;
using radial::testing::data_error;
using radial::testing::test_data;

namespace {

std::string file(const std::string& name) { return test_data("nominal/" + name).string(); }

std::vector<double> values(const radial::Matrix& m) { return {m.begin(), m.end()}; }
std::vector<double> values(const radial::Vector& v) { return {v.begin(), v.end()}; }

}  // namespace

TEST_CASE("nominal CSV inputs: a text column and a data.nominal column, one-hot by hand",
          "[data][nominal]") {
  DataOptions options;
  options.nominal = {"shape"};
  const radial::Dataset data = radial::read_csv(file("train.csv"), options);
  CHECK(data.feature_names == std::vector<std::string>{"size", "colour=blue", "colour=green",
                                                       "colour=red", "shape=1", "shape=2",
                                                       "shape=3"});
  // size | colour: blue green red | shape: 1 2 3
  CHECK(values(data.inputs) == std::vector<double>{1.5, 0, 0, 1, 0, 0, 1,  //
                                                   2.0, 0, 1, 0, 1, 0, 0,  //
                                                   0.5, 0, 0, 1, 0, 1, 0,  //
                                                   1.0, 1, 0, 0, 1, 0, 0});
  REQUIRE(data.coding.nominal.size() == 2);
  CHECK(data.coding.raw_names == std::vector<std::string>{"size", "colour", "shape"});
  CHECK(data.coding.nominal[0].column == 1);
  CHECK(data.coding.nominal[1].categories == std::vector<std::string>{"1", "2", "3"});

  // Without data.nominal, shape is a number column.
  const radial::Dataset plain = radial::read_csv(file("train.csv"));
  CHECK(plain.feature_names ==
        std::vector<std::string>{"size", "colour=blue", "colour=green", "colour=red", "shape"});

  // A test set is coded by the training categories; an unseen one is an error at its cell, or
  // an all-zero row of indicators.
  DataOptions test;
  test.coding = data.coding;
  const radial::Dataset coded = radial::read_csv(file("test.csv"), test);
  CHECK(coded.feature_names == data.feature_names);
  CHECK(values(coded.inputs) == std::vector<double>{1, 1, 0, 0, 0, 1, 0,  //
                                                    3, 0, 0, 1, 0, 0, 1});
  CHECK_THAT(
      data_error([&] { radial::read_csv(file("unseen.csv"), test); }),
      StartsWith(file("unseen.csv") + ":3:3: category \"violet\" of input column 'colour'") &&
          Contains("\"blue\", \"green\", \"red\""));
  test.coding->unseen_as_zero = true;
  const radial::Dataset zeros = radial::read_csv(file("unseen.csv"), test);
  CHECK(values(zeros.inputs) == std::vector<double>{1, 1, 0, 0, 0, 1, 0,  //
                                                    3, 0, 0, 0, 0, 0, 1});
  // Prediction reads the raw columns by name and codes them.
  const radial::Matrix x =
      radial::read_model_inputs(file("test.csv"), data.feature_names, data.coding);
  CHECK(values(x) == values(coded.inputs));
}

TEST_CASE(
    "nominal CSV inputs: text below numbers is an error unless data.nominal names the "
    "column",
    "[data][nominal]") {
  // 7, 7, x: the first cell is a number, so the x is a typo...
  CHECK_THAT(data_error([&] { radial::read_csv(file("turned.csv")); }),
             StartsWith(file("turned.csv") + ":4:1: cell \"x\" in column 'code' is not a number"));
  // ... unless the column is named: then every cell is a category as written.
  DataOptions named;
  named.nominal = {"code"};
  const radial::Dataset data = radial::read_csv(file("turned.csv"), named);
  CHECK(data.feature_names == std::vector<std::string>{"code=7", "code=x"});
  CHECK(values(data.inputs) == std::vector<double>{1, 0, 1, 0, 0, 1});
  DataOptions bad;
  bad.nominal = {"colour"};
  CHECK_THAT(data_error([&] { radial::read_csv(file("turned.csv"), bad); }),
             StartsWith(file("turned.csv") + ":1:1: data.nominal names 'colour', which is not an "
                                             "input column"));
}

TEST_CASE("nominal ARFF attributes: the weather data, one-hot by hand", "[data][nominal][arff]") {
  const radial::Dataset data = radial::read_dataset(file("weather.arff"));
  CHECK(data.feature_names == std::vector<std::string>{"outlook=overcast", "outlook=rainy",
                                                       "outlook=sunny", "temperature",
                                                       "windy=FALSE", "windy=TRUE"});
  // The sparse row {1 64, 3 yes}: outlook and windy omitted, so sunny and TRUE.
  CHECK(values(data.inputs) == std::vector<double>{0, 0, 1, 85, 1, 0,  //
                                                   1, 0, 0, 83, 0, 1,  //
                                                   0, 1, 0, 70, 1, 0,  //
                                                   0, 0, 1, 64, 0, 1});
  CHECK(data.class_names == std::vector<std::string>{"no", "yes"});
  CHECK(std::vector<std::int64_t>(data.classes.begin(), data.classes.end()) ==
        std::vector<std::int64_t>{0, 1, 1, 1});
  const radial::Matrix x =
      radial::read_model_inputs(file("weather.arff"), data.feature_names, data.coding);
  CHECK(values(x) == values(data.inputs));
}

TEST_CASE("nominal CSV inputs: a test file with the columns in another order (issue 46)",
          "[data][nominal]") {
  // The docs promise columns matched by name; the coded columns then follow the file's order,
  // named as the model's (evaluate reorders them by name).
  DataOptions options;
  options.nominal = {"shape"};
  const radial::Dataset data = radial::read_csv(file("train.csv"), options);
  DataOptions test;
  test.coding = data.coding;
  test.target = "class";
  const radial::Dataset coded = radial::read_csv(file("test-reordered.csv"), test);
  CHECK(coded.feature_names == std::vector<std::string>{"shape=1", "shape=2", "shape=3",
                                                        "colour=blue", "colour=green",
                                                        "colour=red", "size"});
  CHECK(values(coded.inputs) == std::vector<double>{0, 1, 0, 1, 0, 0, 1,  //
                                                    0, 0, 1, 0, 0, 1, 3});
}

TEST_CASE("nominal CSV inputs: at most 1,000 categories, spaces kept (issue 46)",
          "[data][nominal]") {
  namespace fs = std::filesystem;
  const fs::path folder =
      fs::temp_directory_path() / ("radial-test-categories-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const auto write = [&](std::size_t categories) {
    const fs::path csv = folder / ("c" + std::to_string(categories) + ".csv");
    std::ofstream out(csv);
    out << "c,x,y\n";
    for (std::size_t k = 0; k < categories; ++k) out << "c" << k << "," << k << "," << k % 2 << "\n";
    return csv.string();
  };
  CHECK(radial::read_csv(write(1000)).features() == 1001);
  const std::string past = write(1001);
  CHECK_THAT(data_error([&] { radial::read_csv(past); }),
             StartsWith(past + ":1002:1: input column 'c' has more than 1000 categories"));
  fs::remove_all(folder);

  // The CSV standard keeps the spaces around a cell: " red", "red" and "red " are three
  // categories (and "a", "a " and " a" three labels); a quoted "red" is "red".
  const radial::Dataset spaced = radial::read_csv(test_data("text-labels/spaces.csv").string());
  CHECK(spaced.feature_names ==
        std::vector<std::string>{"colour= red", "colour=red", "colour=red ", "x"});
  CHECK(values(spaced.inputs) == std::vector<double>{0, 1, 0, 1,  //
                                                     1, 0, 0, 2,  //
                                                     0, 0, 1, 3,  //
                                                     0, 1, 0, 4});
  CHECK(spaced.class_names == std::vector<std::string>{" a", "a", "a "});
  CHECK(std::vector<std::int64_t>(spaced.classes.begin(), spaced.classes.end()) ==
        std::vector<std::int64_t>{1, 2, 1, 0});
}

namespace {

// The mean over every ordered pair of rows (i, j), i = j included, of the squared distance
// between rows i and j restricted to the columns [first, first + count): brute force, the
// independent check of the closed forms below.
double mean_pair_distance(const radial::Matrix& z, std::size_t first, std::size_t count) {
  const std::size_t n = z.shape(0);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t c = first; c < first + count; ++c) sum += (z(i, c) - z(j, c)) * (z(i, c) - z(j, c));
  return sum / double(n * n);
}

}  // namespace

TEST_CASE("nominal_scale = \"input\": one scale per nominal input, sqrt(1 - sum p^2), by hand",
          "[data][nominal][standardiser]") {
  DataOptions options;
  options.nominal = {"shape"};
  const radial::Dataset data = radial::read_csv(file("train.csv"), options);
  radial::Standardiser s;
  s.fit(data.inputs);
  // size 1.5, 2, 0.5, 1: mean 1.25, population variance (1/16 + 9/16 + 9/16 + 1/16) / 4.
  // colour blue, green, red: frequencies 1/4, 1/4, 1/2; shape 1, 2, 3 likewise.
  const double sd_size = std::sqrt(1.25 / 4);
  const double sd_quarter = std::sqrt(0.25 * 0.75), sd_half = 0.5;
  CHECK(values(s.mean) == std::vector<double>{1.25, 0.25, 0.25, 0.5, 0.5, 0.25, 0.25});
  CHECK_THAT(values(s.scale), Catch::Matchers::Approx(std::vector<double>{
                                  sd_size, sd_quarter, sd_quarter, sd_half, sd_half, sd_quarter,
                                  sd_quarter}).epsilon(1e-15));
  s.scale_nominal_inputs(data.coding);
  // 1 - (1/16 + 1/16 + 1/4) = 5/8 for both inputs; the numeric column keeps its scale.
  const double input = std::sqrt(5.0 / 8);
  CHECK_THAT(values(s.scale), Catch::Matchers::Approx(std::vector<double>{
                                  sd_size, input, input, input, input, input, input})
                                  .epsilon(1e-15));
  CHECK(values(s.mean) == std::vector<double>{1.25, 0.25, 0.25, 0.5, 0.5, 0.25, 0.25});
}

TEST_CASE("nominal_scale = \"input\": a nominal input adds 2 to the mean squared distance, as a "
          "standardised number does; per category it added 2C",
          "[data][nominal][standardiser]") {
  // 200 rows: a number, and a nominal input of 5 categories with counts 150, 30, 15, 4, 1
  // (frequencies down to 0.5%), and one of a single category (a constant).
  const std::size_t n = 200;
  const std::vector<std::size_t> counts = {150, 30, 15, 4, 1};
  radial::Matrix raw = radial::Matrix::from_shape({n, std::size_t(3)});
  std::size_t row = 0;
  for (std::size_t k = 0; k < counts.size(); ++k)
    for (std::size_t c = 0; c < counts[k]; ++c, ++row) {
      raw(row, 0) = std::sin(double(row)) * 3 + 1;
      raw(row, 1) = double(k);
      raw(row, 2) = 0.0;
    }
  radial::InputCoding coding;
  coding.raw_names = {"x", "shop", "country"};
  coding.nominal = {{1, {"a", "b", "c", "d", "e"}}, {2, {"only"}}};
  const radial::Matrix coded = radial::encode_inputs(raw, coding);
  REQUIRE(coded.shape(1) == 7);

  radial::Standardiser per_input;
  per_input.fit(coded);
  per_input.scale_nominal_inputs(coding);
  radial::Matrix z = coded;
  per_input.apply(z);
  // E (x_i - x_j)^2 over independent rows = 2 var = 2 for a standardised column; the indicators
  // centred at p_k and divided by sqrt(1 - sum p^2) give 2 sum p_k (1 - p_k) / (1 - sum p^2) = 2.
  CHECK(mean_pair_distance(z, 0, 1) == Approx(2.0).epsilon(1e-12));
  CHECK(mean_pair_distance(z, 1, 5) == Approx(2.0).epsilon(1e-12));
  CHECK(mean_pair_distance(z, 6, 1) == 0.0);  // one category: a constant, mapped to 0
  CHECK(per_input.scale(6) == 1.0);
  // The rarest category's coordinate: (1 - 1/200) / sqrt(1 - sum p^2), about 1.6.
  double same = 0.0;
  for (const std::size_t c : counts) same += double(c * c) / double(n * n);
  CHECK(z(n - 1, 5) == Approx((1 - 1.0 / n) / std::sqrt(1 - same)).epsilon(1e-12));

  // Per category (the coding before issue 47): each indicator standardised adds 2, so the
  // input adds 2C = 10, and the rarest category becomes a coordinate of sqrt(199), about 14.
  radial::Standardiser per_category;
  per_category.fit(coded);
  radial::Matrix old = coded;
  per_category.apply(old);
  CHECK(mean_pair_distance(old, 1, 5) == Approx(10.0).epsilon(1e-12));
  CHECK(old(n - 1, 5) == Approx(std::sqrt(199.0)).epsilon(1e-12));
}
