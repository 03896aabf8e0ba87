// The task is never guessed silently from many integers (issue 47): an integer target read as
// classes without data.task is refused when it looks like a quantity, and the messages for
// missing cells name every policy that reads them ("em" too), a text column's empty cell as a
// missing category.

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

using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
using radial::DataOptions;
using radial::testing::data_error;

namespace {

// N rows of one input and the integer target `target(i)`, coded as the Python module's arrays.
radial::Dataset from_target(std::size_t n, double (*target)(std::size_t),
                            const DataOptions& options = {}) {
  radial::Matrix x = radial::Matrix::from_shape({n, std::size_t(1)});
  radial::Vector y = radial::Vector::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) {
    x(i, 0) = double(i);
    y(i) = target(i);
  }
  return radial::dataset_from_arrays(x, y, {"x"}, "y", options, "arrays",
                                     [](std::size_t i) { return "y[" + std::to_string(i) + "]"; });
}

}  // namespace

TEST_CASE("an integer target that looks like a quantity is refused unless data.task says",
          "[data][task]") {
  // House prices: 300 rows, every value distinct.
  const auto price = [](std::size_t i) { return 100000.0 + double((i * 7919) % 1000) * 250; };
  const std::string message = data_error([&] { from_target(300, price); });
  CHECK_THAT(message,
             StartsWith("arrays: target column 'y' holds 300 distinct integer values in 300 rows "
                        "(300 of them in one or two rows), which looks like a quantity") &&
                 Contains("set task = \"regression\" in [data]") &&
                 Contains("task = \"classification\" if these are 300 classes"));
  DataOptions regression;
  regression.task = radial::Task::Regression;
  CHECK(from_target(300, price, regression).task == radial::Task::Regression);
  DataOptions classification;
  classification.task = radial::Task::Classification;
  CHECK(from_target(300, price, classification).num_classes == 300);

  // 10 classes, half of them in one or two rows: refused (the first rule).
  const auto thin = [](std::size_t i) { return double(i < 95 ? i % 5 : 5 + (i - 95)); };
  CHECK_THAT(data_error([&] { from_target(100, thin); }),
             Contains("holds 10 distinct integer values in 100 rows (5 of them in one or two "
                      "rows)"));
  // 30 classes of 5 rows: 30 > 20 and 30 > 2 sqrt(150) = 24.5 (the second rule).
  const auto five_each = [](std::size_t i) { return double(i % 30); };
  CHECK_THAT(data_error([&] { from_target(150, five_each); }),
             Contains("holds 30 distinct integer values in 150 rows (0 of them"));
  // What classification data look like passes: 26 classes in 2,000 rows (letter has 20,000);
  // 9 classes of one row each (fewer than 10 classes are read as labels); 20 classes of 2 rows
  // in 40 rows refused, of 3 rows in 60 kept (20 is not more than 20).
  CHECK(from_target(2000, [](std::size_t i) { return double(i % 26); }).num_classes == 26);
  CHECK(from_target(9, [](std::size_t i) { return double(i); }).num_classes == 9);
  CHECK(from_target(60, [](std::size_t i) { return double(i % 20); }).num_classes == 20);
  CHECK_THAT(data_error([&] { from_target(40, [](std::size_t i) { return double(i % 20); }); }),
             Contains("(20 of them in one or two rows)"));
  // Text labels are labels, however many.
  std::vector<std::string> words;
  for (std::size_t i = 0; i < 50; ++i) words.push_back("w" + std::to_string(i));
  radial::Matrix x = radial::Matrix::from_shape({std::size_t(50), std::size_t(1)});
  for (std::size_t i = 0; i < 50; ++i) x(i, 0) = double(i);
  const radial::Dataset text = radial::dataset_from_text_labels(
      x, words, {"x"}, "y", {},
      "arrays", [](std::size_t i) { return "y[" + std::to_string(i) + "]"; });
  CHECK(text.num_classes == 50);
}

TEST_CASE("missing cells: the messages name every policy, a text column's empty cell a category",
          "[data][task][missing]") {
  namespace fs = std::filesystem;
  const fs::path folder =
      fs::temp_directory_path() / ("radial-test-messages-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(folder / name) << text;
    return (folder / name).string();
  };
  const std::string text_gap = write("text-gap.csv", "colour,x,y\nred,1,0\n,2,1\nblue,3,0\n");
  CHECK(data_error([&] { radial::read_csv(text_gap); }) ==
        text_gap + ":3:1: empty cell in the text column 'colour' (a nominal input); fill in a "
                   "category, remove the row, or read missing inputs with data.missing = "
                   "\"drop-rows\", \"mean\", \"median\" or \"em\"");
  const std::string text_na = write("text-na.csv", "colour,x,y\nred,1,0\nNA,2,1\nblue,3,0\n");
  CHECK_THAT(data_error([&] { radial::read_csv(text_na); }),
             StartsWith(text_na + ":3:1: missing value \"NA\" in the text column 'colour'"));
  const std::string number_gap = write("number-gap.csv", "a,x,y\n1,1,0\n,2,1\n3,3,0\n");
  CHECK(data_error([&] { radial::read_csv(number_gap); }) ==
        number_gap + ":3:1: empty cell in column 'a'; fill in a number, remove the row, or read "
                     "missing inputs with data.missing = \"drop-rows\", \"mean\", \"median\" or "
                     "\"em\"");
  const std::string nan = write("nan.csv", "a,x,y\n1,1,0\nnan,2,1\n3,3,0\n");
  CHECK_THAT(data_error([&] { radial::read_csv(nan); }),
             StartsWith(nan + ":3:1: cell \"nan\" in column 'a' is NaN, a missing value; ") &&
                 EndsWith("\"median\" or \"em\""));
  const std::string marker = write("marker.csv", "a,x,y\n1,1,0\n?,2,1\n3,3,0\n");
  CHECK_THAT(data_error([&] { radial::read_csv(marker); }),
             Contains("set data.missing = \"drop-rows\", \"mean\", \"median\" or \"em\""));
  fs::remove_all(folder);
}
