// Class labels as text (issue 28, part 1): a CSV target column that holds a cell that is not a
// number is a column of text labels, coded by increasing byte order (numpy.unique's order); the
// expected indices are written out by hand from the files in tests/data/text-labels/.

#include "reader_test.hpp"

namespace {

std::string file(const std::string& name) { return test_data("text-labels/" + name).string(); }

std::vector<std::int64_t> classes_of(const radial::Dataset& data) {
  return {data.classes.begin(), data.classes.end()};
}

}  // namespace

TEST_CASE("text labels: sorted by bytes, quoted labels unescaped, task classification",
          "[data][labels]") {
  const radial::Dataset data = radial::read_csv(file("train.csv"));
  CHECK(data.task == Task::Classification);
  // yes, no, "yes", "maybe, not", no; sorted: "maybe, not" < "no" < "yes".
  CHECK(data.class_names == std::vector<std::string>{"maybe, not", "no", "yes"});
  CHECK(data.class_values == std::vector<double>{0, 1, 2});
  CHECK(data.num_classes == 3);
  CHECK(classes_of(data) == std::vector<std::int64_t>{2, 1, 2, 0, 1});
  CHECK(std::vector<double>(data.inputs.begin(), data.inputs.end()) ==
        std::vector<double>{1, 2, 2, 3, 3, 4, 4, 5, 5, 6});
}

TEST_CASE("text labels: numbers are labels by the values they spell", "[data][labels]") {
  // 2, x, 2.50, 2: every number is the label of its shortest text ("2.50" is "2.5").
  const radial::Dataset data = radial::read_csv(file("mixed.csv"));
  CHECK(data.class_names == std::vector<std::string>{"2", "2.5", "x"});
  CHECK(classes_of(data) == std::vector<std::int64_t>{0, 2, 1, 0});
  // Issue 46: 1 before the first text and 1.0, +1 after it were three classes.
  const radial::Dataset spelled = radial::read_csv(file("spelled.csv"));
  CHECK(spelled.class_names == std::vector<std::string>{"1", "2.5", "b"});
  CHECK(classes_of(spelled) == std::vector<std::int64_t>{0, 2, 0, 0, 1, 1});
  // A test set spelling a training label another way is coded by its value.
  DataOptions options;
  radial::use_classes_of(options, {0, 1, 2}, {"1", "2.5", "b"});
  CHECK(classes_of(radial::read_csv(file("spelled.csv"), options)) ==
        std::vector<std::int64_t>{0, 2, 0, 0, 1, 1});
}

TEST_CASE("text labels: a missing target is never a class (issue 46)", "[data][labels]") {
  // yes, (empty), no, nan, NaN, ?, "NA", no: four missing, "NA" quoted is a label.
  CHECK_THAT(data_error([&] { radial::read_csv(file("missing.csv")); }),
             StartsWith(file("missing.csv") + ":3:3: missing target value \"\" in column "
                                              "'class'") &&
                 Contains("data.missing = \"drop-rows\""));
  DataOptions options;
  options.allow_missing = true;
  const radial::Dataset data = radial::read_csv(file("missing.csv"), options);
  CHECK(data.class_names == std::vector<std::string>{"NA", "no", "yes"});
  CHECK(classes_of(data) == std::vector<std::int64_t>{2, 1, 0, 1});
  CHECK(std::vector<double>(data.inputs.begin(), data.inputs.end()) ==
        std::vector<double>{1, 3, 7, 8});
  CHECK(data.missing_targets == 4);
}

TEST_CASE("text labels: numeric labels keep their numeric coding", "[data][labels]") {
  const radial::Dataset data = radial::read_csv(file("numbers.csv"));
  CHECK(data.class_names.empty());
  CHECK(data.class_values == std::vector<double>{0, 1});
}

TEST_CASE("text labels: a test set is coded by the training set's names", "[data][labels]") {
  DataOptions options;
  radial::use_classes_of(options, {0, 1, 2}, {"maybe, not", "no", "yes"});
  const radial::Dataset test = radial::read_csv(file("test.csv"), options);
  CHECK(test.class_names == std::vector<std::string>{"maybe, not", "no", "yes"});
  CHECK(test.num_classes == 3);
  CHECK(classes_of(test) == std::vector<std::int64_t>{1, 2});

  CHECK_THAT(data_error([&] { radial::read_csv(file("unseen.csv"), options); }),
             StartsWith(file("unseen.csv") + ":3:5: class label \"perhaps\"") &&
                 Contains("does not occur in the training data") && Contains("\"no\", \"yes\""));
  // Labels that look like numbers are text for a model with text labels.
  CHECK_THAT(data_error([&] { radial::read_csv(file("numbers.csv"), options); }),
             StartsWith(file("numbers.csv") + ":2:3: class label \"0\""));
}

TEST_CASE("text labels: refused for regression and for a model with numeric classes",
          "[data][labels]") {
  DataOptions regression;
  regression.task = Task::Regression;
  CHECK_THAT(
      data_error([&] { radial::read_csv(file("train.csv"), regression); }),
      StartsWith(file("train.csv") + ":2:5: cell \"yes\" in column 'class' is not a number"));

  DataOptions numeric;
  numeric.class_values = std::vector<double>{0, 1};
  CHECK_THAT(data_error([&] { radial::read_csv(file("test.csv"), numeric); }),
             StartsWith(file("test.csv") + ":2:5: class label \"no\"") &&
                 Contains("is text, but the training data's classes are the numbers 0, 1"));
}

TEST_CASE("text labels from arrays: the readers' coding, y[i] in messages", "[data][labels]") {
  radial::Matrix x = radial::Matrix::from_shape({4, 1});
  for (std::size_t i = 0; i < 4; ++i) x(i, 0) = double(i);
  const auto where = [](std::size_t i) { return "y[" + std::to_string(i) + "]"; };
  const radial::Dataset data = radial::dataset_from_text_labels(x, {"b", "a", "c", "a"}, {"x0"},
                                                                "y", DataOptions{}, "y", where);
  CHECK(data.class_names == std::vector<std::string>{"a", "b", "c"});
  CHECK(classes_of(data) == std::vector<std::int64_t>{1, 0, 2, 0});

  DataOptions regression;
  regression.task = Task::Regression;
  CHECK_THAT(
      data_error([&] {
        radial::dataset_from_text_labels(x, {"b", "a", "c", "a"}, {"x0"}, "y", regression, "y",
                                         where);
      }),
      StartsWith("y[0]: target 'y' value \"b\" is not a number, but the task is regression"));
}
