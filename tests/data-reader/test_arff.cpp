// The ARFF reader (issue 28, part 4) on files written by hand from the ARFF specification
// (tests/data/arff/); the expected values are read off the files by hand, and every malformed
// file gives its file:line:column.

#include <cmath>

#include "reader_test.hpp"

namespace {

std::string arff(const std::string& name) { return test_data("arff/" + name).string(); }
std::string bad(const std::string& name) { return test_data("bad/arff/" + name).string(); }

}  // namespace

TEST_CASE("ARFF: header, dense and sparse rows, nominal class as text labels", "[data][arff]") {
  const radial::Dataset data = radial::read_dataset(arff("iris-sample.arff"));
  CHECK(data.feature_names ==
        std::vector<std::string>{"sepallength", "sepal width", "petallength"});
  CHECK(data.target_name == "class");
  CHECK(data.task == Task::Classification);
  // Rows: 5.1,3.5,1.4 | 4.9,3.0,1.4 | {0 6.2, 1 2.9} -> 6.2,2.9,0 | {1 3.1} -> 0,3.1,0.
  CHECK(std::vector<double>(data.inputs.begin(), data.inputs.end()) ==
        std::vector<double>{5.1, 3.5, 1.4, 4.9, 3.0, 1.4, 6.2, 2.9, 0, 0, 3.1, 0});
  // The labels that occur, in byte order (' ' < '-'); the omitted class of the last sparse row
  // is the first declared value, Iris-setosa.
  CHECK(data.class_names ==
        std::vector<std::string>{"Iris virginica", "Iris-setosa", "Iris-versicolor"});
  CHECK(std::vector<std::int64_t>(data.classes.begin(), data.classes.end()) ==
        std::vector<std::int64_t>{1, 0, 2, 1});
}

TEST_CASE("ARFF: string class with quotes and escapes", "[data][arff]") {
  const radial::Dataset data = radial::read_dataset(arff("string-class.arff"));
  CHECK(data.class_names == std::vector<std::string>{"it's \"quoted\"", "plain"});
  CHECK(std::vector<std::int64_t>(data.classes.begin(), data.classes.end()) ==
        std::vector<std::int64_t>{0, 1, 0});
}

TEST_CASE("ARFF: inputs for prediction by attribute name, the class left as ?", "[data][arff]") {
  const radial::Matrix x = radial::read_inputs_csv(arff("test-unlabelled.arff"),
                                                   {"sepallength", "sepal width", "petallength"});
  CHECK(std::vector<double>(x.begin(), x.end()) == std::vector<double>{5.0, 3.4, 1.5});
  CHECK_THAT(
      data_error([&] { radial::read_inputs_csv(arff("test-unlabelled.arff"), {"petalwidth"}); }),
      StartsWith(arff("test-unlabelled.arff") + ":6:1: no attribute 'petalwidth'"));
  // A test set coded by the training set's names; an unknown label is named at its cell.
  DataOptions options;
  radial::use_classes_of(options, {0, 1}, {"Iris-setosa", "Iris-versicolor"});
  CHECK_THAT(
      data_error([&] { radial::read_dataset(arff("iris-sample.arff"), options); }),
      StartsWith(arff("iris-sample.arff") + ":15:") && Contains("class label \"Iris virginica\""));
}

TEST_CASE("ARFF: only a bare ? is missing; NA, nan and '?' are values (issue 46)",
          "[data][arff]") {
  DataOptions options;
  options.allow_missing = true;
  const radial::Dataset data = radial::read_dataset(arff("missing-marks.arff"), options);
  CHECK(data.feature_names == std::vector<std::string>{"region=?", "region=EU", "region=NA",
                                                       "region=nan", "x"});
  std::vector<double> shown(data.inputs.begin(), data.inputs.end());
  for (double& v : shown)
    if (std::isnan(v)) v = -99;
  CHECK(shown == std::vector<double>{0, 0, 1, 0, 1,  //
                                     0, 1, 0, 0, 2,  //
                                     0, 0, 0, 1, 3,  //
                                     1, 0, 0, 0, 4,  //
                                     -99, -99, -99, -99, 5});
  CHECK(data.class_names == std::vector<std::string>{"nan", "yes"});
  CHECK(std::vector<std::int64_t>(data.classes.begin(), data.classes.end()) ==
        std::vector<std::int64_t>{1, 0, 1, 0, 1});
  CHECK_THAT(read_error(arff("missing-marks.arff")),
             StartsWith(arff("missing-marks.arff") + ":12:1: missing value ('?') for attribute "
                                                     "'region'"));
}

TEST_CASE("ARFF: malformed files name file:line:column", "[data][arff]") {
  struct Case {
    std::string file, position_and_message;
  };
  const std::vector<Case> cases = {
      {"date.arff", ":3:17: attribute 'when' is of type date"},
      {"undeclared.arff", ":6:3: value 'z' of attribute 'c' is not one of its nominal values {x, y}"},
      {"short.arff", ":7:4: found 2 values, expected 3"},
      {"long.arff", ":6:4: more than the 2 values"},
      {"sparse-order.arff", ":6:7: sparse index 0 does not follow"},
      {"missing.arff", ":5:1: missing value ('?') for attribute 'a'"},
      {"no-data.arff", ":4:1: the file ends before @data"},
      {"quote.arff", ":5:3: this ' quote is not closed"},
      {"string-input.arff", ":2:1: input attribute 'name' is a string"},
      {"weights.arff", ":5:5: instance weights"},
      {"duplicate.arff", ":3:1: duplicate attribute name 'a' (also on line 2)"},
      {"sparse-no-label.arff", ":6:1: this sparse row omits the string target 'label'"},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    CHECK_THAT(read_error(bad(c.file)), StartsWith(bad(c.file) + c.position_and_message));
  }
}
