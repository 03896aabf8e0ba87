// The LIBSVM / SVMlight reader (issue 28, part 4) on files written by hand from LIBSVM's README
// (tests/data/libsvm/); the dense rows below are read off the files by hand, and every malformed
// file gives its file:line:column.

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "reader_test.hpp"

namespace {

std::string libsvm(const std::string& name) { return test_data("libsvm/" + name).string(); }
std::string bad(const std::string& name) { return test_data("bad/libsvm/" + name).string(); }

}  // namespace

TEST_CASE("LIBSVM: 1-based indices, omitted values 0, comments, qid, +1/-1 labels",
          "[data][libsvm]") {
  const radial::Dataset data = radial::read_dataset(libsvm("sample.libsvm"));
  CHECK(data.feature_names == std::vector<std::string>{"x1", "x2", "x3"});
  CHECK(data.target_name == "label");
  CHECK(data.task == Task::Classification);
  CHECK(std::vector<double>(data.inputs.begin(), data.inputs.end()) ==
        std::vector<double>{0.5, 0, -2, 0, 15, 0, 1, 2, 3});
  CHECK(data.class_values == std::vector<double>{-1, 1});
  CHECK(std::vector<std::int64_t>(data.classes.begin(), data.classes.end()) ==
        std::vector<std::int64_t>{1, 0, 1});

  DataOptions five;
  five.features = 5;
  const radial::Dataset wide = radial::read_dataset(libsvm("sample.libsvm"), five);
  CHECK(wide.features() == 5);
  CHECK(wide.inputs(2, 2) == 3);
  CHECK(wide.inputs(2, 4) == 0);
}

TEST_CASE("LIBSVM: inputs for prediction by feature number", "[data][libsvm]") {
  const radial::Matrix x = radial::read_inputs_csv(libsvm("sample.libsvm"), {"x3", "x1"});
  CHECK(std::vector<double>(x.begin(), x.end()) == std::vector<double>{-2, 0.5, 0, 0, 3, 1});
  // Names that are not x<j>: the indices 1..d in order.
  const radial::Matrix y = radial::read_inputs_csv(libsvm("sample.libsvm"), {"a", "b"});
  CHECK(std::vector<double>(y.begin(), y.end()) == std::vector<double>{0.5, 0, 0, 15, 1, 2});
}

TEST_CASE("LIBSVM: malformed files name file:line:column", "[data][libsvm]") {
  CHECK_THAT(read_error(bad("zero-index.libsvm")),
             StartsWith(bad("zero-index.libsvm") + ":2:3: index 0 is outside") &&
                 Contains("LIBSVM indices start at 1"));
  CHECK_THAT(read_error(bad("order.libsvm")),
             StartsWith(bad("order.libsvm") + ":1:7: index 2 does not follow index 3"));
  CHECK_THAT(read_error(bad("pair.libsvm")),
             StartsWith(bad("pair.libsvm") + ":2:3: \"3=1\" is not an index:value pair"));
  CHECK_THAT(read_error(bad("value.libsvm")),
             StartsWith(bad("value.libsvm") + ":1:5: cell \"abc\" in column 'x3' is not a number"));
  CHECK_THAT(read_error(bad("multi-label.libsvm")),
             StartsWith(bad("multi-label.libsvm") + ":1:1: label \"1,2\" lists several labels"));
  CHECK_THAT(read_error(bad("huge-index.libsvm")),
             StartsWith(bad("huge-index.libsvm") + ":1:3: index 100000000 is outside 1..1048576"));
  // 5 rows x 2^20 features = 40 MB dense for 5 stored values.
  CHECK_THAT(read_error(bad("dense-size.libsvm")),
             StartsWith(bad("dense-size.libsvm") + ": 5 rows of 1048576 features would take"));
  CHECK_THAT(read_error(bad("empty.libsvm")), StartsWith(bad("empty.libsvm") + ":1:1: no data rows"));
  DataOptions two;
  two.features = 2;
  CHECK_THAT(
      read_error(libsvm("sample.libsvm"), two),
      StartsWith(libsvm("sample.libsvm") + ":2:10: index 3 is outside 1..2 (data.features)"));
}

TEST_CASE("LIBSVM: a sparse file is refused before it is made dense past 64 cells a value",
          "[data][libsvm]") {
  // Issue 46: 2.9 MB claiming 731,000 features over 1,024 rows was made 6 GB dense. Here 1 MB:
  // 1,024 rows of 100 values up to index 100,000 would be 819 MB dense (800 cells a value).
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() /
                        ("radial-test-sparse-" + std::to_string(::getpid()) + ".libsvm");
  {
    std::ofstream out(file);
    for (int r = 0; r < 1024; ++r) {
      out << r % 2;
      for (int k = 1; k <= 100; ++k) out << ' ' << k * 1000 << ":1";
      out << '\n';
    }
  }
  CHECK_THAT(read_error(file.string()),
             StartsWith(file.string() + ": 1024 rows of 100000 features would take") &&
                 Contains("for 102400 stored values"));
  fs::remove(file);
}
