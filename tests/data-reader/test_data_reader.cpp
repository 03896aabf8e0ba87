// read_csv, read_inputs_csv, read_dataset (.npy): values, task inference, class coding and
// every error's file:line:column. Reference numbers from tests/reference/data_reader.py.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "npy_bytes.hpp"
#include "reader_test.hpp"

using radial::DataError;

namespace {

std::string bad(const std::string& name) { return test_data("bad/" + name).string(); }

std::string csv_error(const std::string& name, const DataOptions& options = {}) {
  return data_error([&] { radial::read_csv(bad(name), options); });
}

}  // namespace

TEST_CASE("CSV: quoted header, CRLF, blank trailing lines, classes by increasing label",
          "[data]") {
  const radial::Dataset data = radial::read_csv(test_data("small-classes.csv"));
  REQUIRE(data.rows() == 4);
  REQUIRE(data.features() == 2);
  CHECK(data.feature_names == std::vector<std::string>{"x 1", "x2"});
  CHECK(data.target_name == "label");
  CHECK(data.task == Task::Classification);
  // Labels 5, 2, 5, -1 -> classes in increasing label order -1, 2, 5.
  CHECK(data.num_classes == 3);
  CHECK(data.class_values == std::vector<double>{-1, 2, 5});
  CHECK(std::vector<std::int64_t>(data.classes.begin(), data.classes.end()) ==
        std::vector<std::int64_t>{2, 1, 2, 0});
  const std::vector<double> expected = {0.5, 1, -1.25, 2e-3, 3, 4, 7, 8};  // "+8" is 8
  CHECK(std::vector<double>(data.inputs.begin(), data.inputs.end()) == expected);
}

TEST_CASE("CSV: quoted cells and header names with escaped quotes", "[data]") {
  const radial::Dataset data = radial::read_csv(test_data("quoted-cells.csv"));
  CHECK(data.feature_names == std::vector<std::string>{"a \"b\"", "c"});
  CHECK(std::vector<double>(data.inputs.begin(), data.inputs.end()) ==
        std::vector<double>{1.5, 2, -3, 4});
  CHECK(data.class_values == std::vector<double>{0, 1});
}

TEST_CASE("CSV: a test set is coded with the training classes", "[data]") {
  DataOptions options;
  options.class_values = std::vector<double>{-1, 2, 5};
  // This file starts with a UTF-8 byte-order mark and has labels 5 and -1 only.
  const radial::Dataset test = radial::read_csv(test_data("small-test-classes.csv"), options);
  CHECK(test.feature_names == std::vector<std::string>{"x 1", "x2"});
  CHECK(test.num_classes == 3);
  CHECK(std::vector<std::int64_t>(test.classes.begin(), test.classes.end()) ==
        std::vector<std::int64_t>{2, 0});

  options.class_values = std::vector<double>{2, 5};
  CHECK_THAT(csv_error("unseen-class.csv", options),
             StartsWith(bad("unseen-class.csv") + ":3:5: class label 7") &&
                 Contains("does not occur in the training data (its classes are 2, 5)"));
}

TEST_CASE("CSV: target column by name; regression when a value is not an integer", "[data]") {
  DataOptions options;
  options.target = "y";
  const radial::Dataset data = radial::read_csv(test_data("small-regression.csv"), options);
  CHECK(data.task == Task::Regression);
  CHECK(data.num_classes == 0);
  CHECK(data.feature_names == std::vector<std::string>{"x1", "x2"});
  CHECK(std::vector<double>(data.values.begin(), data.values.end()) ==
        std::vector<double>{0.5, 1.25, -0.75});
  CHECK(std::vector<double>(data.inputs.begin(), data.inputs.end()) ==
        std::vector<double>{1, 10, 2, 20, 3, 30});

  // Integer targets read as regression when the task is forced.
  DataOptions forced;
  forced.task = Task::Regression;
  const radial::Dataset counts = radial::read_csv(test_data("small-classes.csv"), forced);
  CHECK(counts.task == Task::Regression);
  CHECK(std::vector<double>(counts.values.begin(), counts.values.end()) ==
        std::vector<double>{5, 2, 5, -1});
}

TEST_CASE("CSV values match NumPy's loadtxt", "[data]") {
  // tests/reference/data_reader.out.json, from numpy.loadtxt of the same file.
  const radial::Dataset data = radial::read_csv(test_data("random-regression.csv"));
  REQUIRE(data.rows() == 60);
  REQUIRE(data.features() == 4);
  CHECK(data.task == Task::Regression);
  const std::vector<double> sums = {-12.308645774226301, 179.0141771064161, -180.04778975373765,
                                    150.0};
  for (std::size_t j = 0; j < 4; ++j) {
    double sum = 0;
    for (std::size_t i = 0; i < 60; ++i) sum += data.inputs(i, j);
    CHECK(sum == Approx(sums[j]).epsilon(1e-13));
  }
  double target_sum = 0;
  for (double v : data.values) target_sum += v;
  CHECK(target_sum == Approx(-7.7759621489088255).epsilon(1e-13));
  // %.17g text round-trips: from_chars must give the same doubles bit for bit.
  const std::vector<double> first = {0.0012301533574825742, 7.987455375084699,
                                     -3.002741378553622, 2.5};
  const std::vector<double> last = {0.8879023778350454, 4.1051203811158175, -3.00014029730131,
                                    2.5};
  for (std::size_t j = 0; j < 4; ++j) {
    CHECK(data.inputs(0, j) == first[j]);
    CHECK(data.inputs(59, j) == last[j]);
  }
  CHECK(data.values(0) == -0.9203876254493086);
  CHECK(data.values(59) == 0.10860722342738854);
}

TEST_CASE("npy: NumPy's file reads as the same data as its CSV", "[data][npy]") {
  const radial::Dataset csv = radial::read_dataset(test_data("random-regression.csv"));
  const radial::Dataset npy = radial::read_dataset(test_data("random-regression.npy"));
  CHECK(npy.feature_names == std::vector<std::string>{"x1", "x2", "x3", "x4"});
  CHECK(npy.target_name == "y");
  CHECK(npy.task == Task::Regression);
  REQUIRE(npy.inputs.shape() == csv.inputs.shape());
  CHECK(std::vector<double>(npy.inputs.begin(), npy.inputs.end()) ==
        std::vector<double>(csv.inputs.begin(), csv.inputs.end()));
  CHECK(std::vector<double>(npy.values.begin(), npy.values.end()) ==
        std::vector<double>(csv.values.begin(), csv.values.end()));

  // Labels 3, 1, 3, 2 -> classes 2, 0, 2, 1.
  const radial::Dataset small = radial::read_dataset(test_data("small-classes.npy"));
  CHECK(small.task == Task::Classification);
  CHECK(small.class_values == std::vector<double>{1, 2, 3});
  CHECK(std::vector<std::int64_t>(small.classes.begin(), small.classes.end()) ==
        std::vector<std::int64_t>{2, 0, 2, 1});
  CHECK(std::vector<double>(small.inputs.begin(), small.inputs.end()) ==
        std::vector<double>{0.5, 1.0, 1.5, -2.0, 2.5, 0.25, -1.0, 4.0});
}

TEST_CASE("npy: other dtypes, Fortran order and truncated files are refused", "[data][npy]") {
  const auto npy_error = [](const std::string& name) {
    return data_error([&] { radial::read_dataset(bad(name)); });
  };
  CHECK_THAT(npy_error("float32.npy"),
             StartsWith(bad("float32.npy") + ": dtype '<f4' is not supported"));
  CHECK_THAT(npy_error("big-endian.npy"), Contains("dtype '>f8' is not supported"));
  CHECK_THAT(npy_error("fortran-order.npy"),
             Contains("Fortran (column-major) order") && Contains("ascontiguousarray"));
  CHECK_THAT(npy_error("one-dimensional.npy"), Contains("the array has 1 dimension(s)"));
  CHECK_THAT(npy_error("truncated.npy"),
             Contains("the file is truncated: shape (4, 3) needs 4 x 3 values, the file holds 9"));
  CHECK_THAT(npy_error("not-numpy.npy"), Contains("not a NumPy .npy file"));
}

TEST_CASE("read_inputs_csv picks the model's features by name", "[data]") {
  const radial::Matrix x =
      radial::read_inputs_csv(test_data("small-classes.csv"), {"x2", "x 1"});
  REQUIRE(x.shape(0) == 4);
  REQUIRE(x.shape(1) == 2);
  CHECK(std::vector<double>(x.begin(), x.end()) ==
        std::vector<double>{1, 0.5, 2e-3, -1.25, 4, 3, 8, 7});
  // Columns the model does not use may hold anything, text included.
  const radial::Matrix y = radial::read_inputs_csv(test_data("inputs-with-text.csv"), {"x1", "x2"});
  CHECK(std::vector<double>(y.begin(), y.end()) == std::vector<double>{1, 2, 3, 4});
  const std::string message = data_error(
      [] { radial::read_inputs_csv(test_data("small-classes.csv"), {"x 1", "x3"}); });
  CHECK_THAT(message, StartsWith(test_data("small-classes.csv").string() +
                                 ":1:1: no column 'x3' (did you mean 'x2'?)"));
}

TEST_CASE("CSV errors name file:line:column and what to change", "[data][errors]") {
  struct Case {
    std::string file, position, phrase;
  };
  const std::vector<Case> cases = {
      {"empty.csv", ":1:1: ", "the file is empty"},
      {"blank-only.csv", ":1:1: ", "the file is empty"},
      {"header-only.csv", ":2:1: ", "no data rows after the header"},
      {"ragged-short.csv", ":3:4: ", "found 2 cells, expected 3"},
      {"ragged-long.csv", ":3:7: ", "found 4 cells, expected 3"},
      {"non-numeric.csv", ":3:3: ", "cell \"abc\" in column 'x2' is not a number"},
      {"nan-cell.csv", ":3:3: ", "cell \"NaN\" in column 'x2' is NaN"},
      {"inf-cell.csv", ":3:1: ", "cell \"-inf\" in column 'x1' is infinite"},
      {"empty-cell.csv", ":2:3: ", "empty cell in column 'x2'"},
      {"too-large.csv", ":2:3: ", "cell \"1e400\" in column 'x2' is too large for a double"},
      {"duplicate-column.csv", ":1:7: ", "duplicate column name 'x1' (columns 1 and 3)"},
      {"unnamed-column.csv", ":1:4: ", "column 2 has no name"},
      {"blank-line-inside.csv", ":3:1: ", "blank line inside the data"},
      {"unclosed-quote.csv", ":1:4: ", "this quote is not closed on its line"},
      {"one-column.csv", ":1:1: ", "only one column ('class')"},
      // Hostile bytes: binary bytes escaped, merged labels, bytes that are not UTF-8.
      {"nul-byte.csv", ":3:6: ", "control byte \\x00 in \"0.25,\\x00\\x00,1\""},
      {"huge-label.csv", ":3:3: ", "target 'label' value 9007199254740992 is a class label of "
                                   "magnitude 2^53"},
      {"many-classes.csv", "", ": target column 'label' has 1001 distinct integer values"},
      {"latin1-cell.csv", ":3:1: ", "cell \"caf\\xe9\" in column 'x' is not a number"},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    CHECK_THAT(csv_error(c.file), StartsWith(bad(c.file) + c.position + c.phrase));
  }

  DataOptions misspelt;
  misspelt.target = "lable";
  CHECK_THAT(data_error([&] { radial::read_csv(test_data("small-classes.csv"), misspelt); }),
             StartsWith(test_data("small-classes.csv").string() +
                        ":1:1: no target column 'lable' (did you mean 'label'?)") &&
                 Contains("set data.target"));

  DataOptions classification;
  classification.task = Task::Classification;
  CHECK_THAT(csv_error("non-integer-class.csv", classification),
             StartsWith(bad("non-integer-class.csv") +
                        ":3:5: target 'class' value 0.5 is not an integer class label") &&
                 Contains("data.task = \"regression\""));
  // Without forcing, the same file is a regression problem.
  CHECK(radial::read_csv(bad("non-integer-class.csv")).task == Task::Regression);

  CHECK_THAT(data_error([] { radial::read_csv(bad("no-such-file.csv")); }),
             Contains("no such data file; check the path"));
}

TEST_CASE("Every truncation of a good file is read or refused with a DataError", "[data][errors]") {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / ("radial-test-data-reader-" +
                                                       std::to_string(::getpid()));
  fs::create_directories(folder);
  const auto bytes_of = [](const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const auto write = [](const fs::path& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary) << bytes;
  };

  const std::string csv = bytes_of(test_data("small-classes.csv"));
  for (std::size_t length = 0; length <= csv.size(); ++length) {
    INFO("first " << length << " bytes of small-classes.csv");
    const fs::path file = folder / "prefix.csv";
    write(file, csv.substr(0, length));
    try {
      const radial::Dataset data = radial::read_csv(file);
      CHECK(data.rows() >= 1);
    } catch (const DataError&) {
    }
  }

  // A .npy file is complete or unusable: every strict prefix is refused.
  const std::string npy = bytes_of(test_data("small-classes.npy"));
  for (std::size_t length = 0; length < npy.size(); ++length) {
    INFO("first " << length << " bytes of small-classes.npy");
    const fs::path file = folder / "prefix.npy";
    write(file, npy.substr(0, length));
    CHECK_THROWS_AS(radial::read_dataset(file), DataError);
  }
  fs::remove_all(folder);
}

TEST_CASE("npy: a file of many blocks is read whole, with the most classes allowed",
          "[data][npy]") {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() /
                        ("radial-test-npy-large-" + std::to_string(::getpid()) + ".npy");
  const std::size_t rows = 50000, columns = 3;
  // Row i: (i, -0.5 i, label); labels max_classes = 1000 distinct integers 3 (i mod 1000) - 7;
  // class index = i mod 1000 (labels increase with it).
  std::vector<double> values;
  for (std::size_t i = 0; i < rows; ++i) {
    values.push_back(double(i));
    values.push_back(-0.5 * double(i));
    values.push_back(3.0 * double(i % 1000) - 7.0);
  }
  std::ofstream(file, std::ios::binary) << radial::testing::npy_bytes(rows, columns, values);

  // 1,000 classes in 50,000 rows: K > 2 sqrt(N), so the task is given (issue 47).
  radial::DataOptions classes;
  classes.task = radial::Task::Classification;
  const radial::Dataset data = radial::read_dataset(file, classes);
  fs::remove(file);
  REQUIRE(data.rows() == rows);
  REQUIRE(data.features() == 2);
  CHECK(data.task == Task::Classification);
  REQUIRE(data.num_classes == 1000);
  CHECK(data.class_values.front() == -7.0);
  CHECK(data.class_values.back() == 3.0 * 999 - 7.0);
  bool same = true;
  for (std::size_t i = 0; i < rows; ++i) {
    same = same && data.inputs(i, 0) == double(i) && data.inputs(i, 1) == -0.5 * double(i) &&
           data.classes(i) == std::int64_t(i % 1000);
  }
  CHECK(same);
}

TEST_CASE("CSV: few class labels are coded by increasing value, in any order of the rows",
          "[data]") {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() /
                        ("radial-test-labels-" + std::to_string(::getpid()) + ".csv");
  std::ofstream(file) << "x,y\n1,9\n2,-2\n3,5\n4,9\n5,-2\n";
  const radial::Dataset data = radial::read_csv(file);
  fs::remove(file);
  CHECK(data.class_values == std::vector<double>{-2, 5, 9});
  CHECK(std::vector<std::int64_t>(data.classes.begin(), data.classes.end()) ==
        std::vector<std::int64_t>{2, 0, 1, 2, 0});
}
