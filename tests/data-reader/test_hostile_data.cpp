// Hostile and careless inputs: binary bytes, escaped messages, CR-only line ends,
// pipes and FIFOs, block boundaries, overlong lines, too many classes, labels beyond 2^53,
// .npy targets by column number, .npy inputs for prediction, directories as data files, and
// mutated files that must give a Dataset or a DataError.

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"
#include "data_error.hpp"
#include "npy_bytes.hpp"
#include "radial/testing/paths.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using radial::DataError;
using radial::DataOptions;
using radial::Task;
namespace fs = std::filesystem;
using radial::testing::data_error;
using radial::testing::npy_bytes;

namespace {

// A fresh folder per test case, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("radial-hostile-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(counter()++));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
  fs::path write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path / name, std::ios::binary) << bytes;
    return path / name;
  }
};

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<double> values(const radial::Matrix& m) { return {m.begin(), m.end()}; }


}  // namespace

TEST_CASE("CSV: binary bytes are refused at their line and column, escaped", "[data][hostile]") {
  TempDir dir;
  const fs::path nul_cell = dir.write("nul.csv", std::string("x,y\n1,2\n3,4\x00\x01,5\n", 16));
  CHECK_THAT(data_error([&] { radial::read_csv(nul_cell); }),
             StartsWith(nul_cell.string() + ":3:4: control byte \\x00 in \"3,4\\x00\\x01,5\"") &&
                 Contains("binary file, not CSV"));

  // 3 MB of NUL (1 GB of them once peaked at 4.1 GB and the message was cut at the NUL):
  // refused in the first block, the message whole.
  const fs::path zeros = dir.write("zeros.csv", std::string(std::size_t(3) << 20, '\0'));
  const std::string message = data_error([&] { radial::read_csv(zeros); });
  CHECK_THAT(message, StartsWith(zeros.string() + ":1:1: control byte \\x00 in \"\\x00\\x00"));
  CHECK(message.find('\0') == std::string::npos);
  CHECK_THAT(message, Contains("give a CSV file"));

  // A byte that is not UTF-8 is text in a bad cell: quoted escaped, the message stays readable.
  const fs::path latin1 = dir.write("latin1.csv", "x,y\n1,2\ncaf\xe9,3\n");
  CHECK_THAT(data_error([&] { radial::read_csv(latin1); }),
             StartsWith(latin1.string() + ":3:1: cell \"caf\\xe9\" in column 'x' is not a number"));
  // Valid UTF-8 is kept as it is.
  const fs::path utf8 = dir.write("utf8.csv", "x,y\n1,2\ncaf\xc3\xa9,3\n");
  CHECK_THAT(data_error([&] { radial::read_csv(utf8); }), Contains("cell \"caf\xc3\xa9\""));
  // A name quoted from the options is escaped too.
  DataOptions odd;
  odd.target = "lab\x1b[31mel";
  CHECK_THAT(data_error([&] { radial::read_csv(utf8, odd); }),
             Contains("no target column 'lab\\x1b[31mel'"));
}

TEST_CASE("CSV: CR-only line ends read like LF (as Python's csv)", "[data][hostile]") {
  TempDir dir;
  const radial::Dataset cr = radial::read_csv(dir.write("cr.csv", "x1,x2,y\r1,2,0\r3,4,1\r\r"));
  REQUIRE(cr.rows() == 2);
  CHECK(cr.feature_names == std::vector<std::string>{"x1", "x2"});
  CHECK(values(cr.inputs) == std::vector<double>{1, 2, 3, 4});
  CHECK(cr.num_classes == 2);
  // Mixed: CRLF, CR, LF, and no line end at the end of the file.
  const radial::Dataset mixed = radial::read_csv(dir.write("mixed.csv", "x,y\r\n1,5\r2,6\n3,7"));
  CHECK(values(mixed.inputs) == std::vector<double>{1, 2, 3});
  // A blank line inside CR-only data is still an error at its line.
  const fs::path blank = dir.write("blank.csv", "x,y\r1,5\r\r2,6\r");
  CHECK_THAT(data_error([&] { radial::read_csv(blank); }),
             StartsWith(blank.string() + ":3:1: blank line inside the data"));
}

TEST_CASE("CSV: rows across block boundaries, CRLF split between blocks, long lines",
          "[data][hostile]") {
  TempDir dir;
  // Rows of "i,i+0.5\r\n" until past 3 MB, with the first block (1 MB) ending between the CR
  // and the LF of a row: the row is read once, whole.
  std::string text = "a,b\r\n";
  std::vector<double> expected;
  const std::size_t block = std::size_t(1) << 20;
  bool padded = false;
  for (std::size_t i = 0; text.size() < 3 * block; ++i) {
    std::string row = std::to_string(i) + "," + std::to_string(i) + ".5\r\n";
    if (!padded && text.size() + row.size() + 20 > block) {
      // Pad this row's first cell with spaces so that its CR is the block's last byte.
      row = std::string(block + 1 - text.size() - row.size(), ' ') + row;
      padded = true;
    }
    text += row;
    expected.push_back(double(i));
  }
  REQUIRE(text[block - 1] == '\r');
  REQUIRE(text[block] == '\n');
  const radial::Dataset data = radial::read_csv(dir.write("blocks.csv", text));
  REQUIRE(data.rows() == expected.size());
  CHECK(values(data.inputs) == expected);
  CHECK(data.task == Task::Regression);
  CHECK(data.values(data.rows() - 1) == expected.back() + 0.5);

  // One line of 3 MB (a row wider than a block) is read.
  std::string wide_header, wide_row;
  for (std::size_t j = 0; j < 300000; ++j) {
    wide_header += (j ? ",c" : "c") + std::to_string(j);
    wide_row += (j ? ",1.2345" : "1.2345");
  }
  const radial::Dataset wide =
      radial::read_csv(dir.write("wide.csv", wide_header + "\n" + wide_row + "\n"));
  CHECK(wide.features() == 299999);
  CHECK(wide.inputs(0, 299998) == 1.2345);

  // A line longer than 32 MB is refused instead of held whole.
  const fs::path endless = dir.write("endless.csv", "x,y\n" + std::string(33u << 20, '1'));
  CHECK_THAT(data_error([&] { radial::read_csv(endless); }),
             StartsWith(endless.string() + ":2:1: the line is longer than 32.0 MB"));
}

TEST_CASE("CSV and .npy from a FIFO read as streams (where tellg() is -1)", "[data][hostile]") {
  TempDir dir;
  const fs::path fifo = dir.path / "pipe.csv";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // More than a block through the pipe: 60,000 rows.
  std::string text = "x1,x2,label\n";
  for (int i = 0; i < 60000; ++i) {
    text += std::to_string(i) + "," + std::to_string(-i) + "," + std::to_string(i % 3) + "\n";
  }
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
  const radial::Dataset data = radial::read_csv(fifo);
  writer.join();
  REQUIRE(data.rows() == 60000);
  CHECK(data.inputs(59999, 0) == 59999.0);
  CHECK(data.inputs(59999, 1) == -59999.0);
  CHECK(data.num_classes == 3);
  CHECK(data.classes(59999) == 59999 % 3);

  const fs::path npy_fifo = dir.path / "pipe.npy";
  REQUIRE(::mkfifo(npy_fifo.c_str(), 0600) == 0);
  const std::string npy = npy_bytes(2, 3, {1, 2, 0, 3, 4, 1});
  std::thread npy_writer([&] { std::ofstream(npy_fifo, std::ios::binary) << npy; });
  const radial::Dataset from_pipe = radial::read_dataset(npy_fifo);
  npy_writer.join();
  CHECK(values(from_pipe.inputs) == std::vector<double>{1, 2, 3, 4});
  CHECK(from_pipe.num_classes == 2);

  // A truncated .npy through a pipe is refused like a truncated file.
  std::thread short_writer([&] { std::ofstream(npy_fifo, std::ios::binary) << npy.substr(0, npy.size() - 8); });
  CHECK_THAT(data_error([&] { radial::read_dataset(npy_fifo); }),
             Contains("the file is truncated: shape (2, 3) needs 2 x 3 values, the file holds 5"));
  short_writer.join();
}

TEST_CASE("A directory given as a data file is named as one", "[data][hostile]") {
  TempDir dir;
  CHECK_THAT(data_error([&] { radial::read_csv(dir.path); }),
             StartsWith(dir.path.string() + ": is a directory, not a data file"));
  fs::create_directories(dir.path / "d.npy");
  CHECK_THAT(data_error([&] { radial::read_dataset(dir.path / "d.npy"); }),
             Contains("is a directory, not a data file"));
  CHECK_THAT(data_error([&] { radial::read_inputs_csv(dir.path / "d.npy", {"x1"}); }),
             Contains("is a directory, not a data file"));
}

TEST_CASE("Targets: at most 1000 classes; labels of magnitude 2^53 or more are refused",
          "[data][hostile]") {
  TempDir dir;
  std::string text = "x,y\n";
  for (int i = 0; i < 1001; ++i) text += "0.5," + std::to_string(7 * i) + "\n";
  text += "0.5,0\n";  // a repeated label does not count twice
  const fs::path many = dir.write("many.csv", text);
  CHECK(radial::max_classes == 1000);
  CHECK_THAT(data_error([&] { radial::read_csv(many); }),
             StartsWith(many.string() + ": target column 'y' has 1001 distinct integer values, "
                                        "more than the 1000 classes") &&
                 Contains("set task = \"regression\" in [data]"));
  DataOptions forced;
  forced.task = Task::Classification;
  CHECK_THAT(data_error([&] { radial::read_csv(many, forced); }),
             Contains("(data.task = \"classification\")"));
  forced.task = Task::Regression;
  CHECK(radial::read_csv(many, forced).values(1000) == 7000.0);

  // 2^53 + 1 reads as 2^53: two labels would merge into one class.
  const fs::path merged = dir.write("merged.csv", "x,y\n1,1\n2,9007199254740992\n3,9007199254740993\n");
  CHECK_THAT(data_error([&] { radial::read_csv(merged); }),
             StartsWith(merged.string() + ":3:3: target 'y' value 9007199254740992 is a class "
                                          "label of magnitude 2^53") &&
                 Contains("renumber the classes"));
  const fs::path negative = dir.write("negative.csv", "x,  y\n1,  1\n2,  -1e300\n");
  CHECK_THAT(data_error([&] { radial::read_csv(negative); }),
             StartsWith(negative.string() + ":3:5: target 'y' value -1e+300"));
  // Below 2^53 every integer is its own class.
  const radial::Dataset exact =
      radial::read_csv(dir.write("exact.csv", "x,y\n1,9007199254740991\n2,9007199254740990\n"));
  CHECK(exact.class_values == std::vector<double>{9007199254740990.0, 9007199254740991.0});
  // Non-integers beyond 2^53 do not exist; a regression target of huge values stays legal.
  CHECK(radial::read_csv(dir.write("reals.csv", "x,y\n1,1e300\n2,0.5\n")).task == Task::Regression);
}

TEST_CASE("npy: data.target is a column number; names are refused", "[data][npy][hostile]") {
  TempDir dir;
  // Rows (1, 10, 100), (2, 20, 200): target column 2 holds 10, 20.
  const fs::path file = dir.write("t.npy", npy_bytes(2, 3, {1, 10, 100, 2, 20, 200}));
  DataOptions second;
  second.target = "2";
  const radial::Dataset data = radial::read_dataset(file, second);
  CHECK(data.feature_names == std::vector<std::string>{"x1", "x3"});
  CHECK(data.target_name == "2");
  CHECK(values(data.inputs) == std::vector<double>{1, 100, 2, 200});
  CHECK(std::vector<double>(data.class_values) == std::vector<double>{10, 20});

  const radial::Dataset last = radial::read_dataset(file);
  CHECK(last.feature_names == std::vector<std::string>{"x1", "x2"});
  CHECK(last.class_values == std::vector<double>{100, 200});

  // A model's target name (evaluate of a model trained on CSV) names the last column.
  DataOptions named;
  named.target = "label";
  CHECK(radial::read_dataset(file, named).class_values == std::vector<double>{100, 200});
  // Written in [data], a name cannot be found in a file without names: refused.
  named.target_from_pipeline = true;
  CHECK_THAT(data_error([&] { radial::read_dataset(file, named); }),
             StartsWith(file.string() + ": data.target = 'label', but a .npy file has no column "
                                        "names: give the target's column number, 1 to 3"));
  named.target = "4";
  CHECK_THROWS_AS(radial::read_dataset(file, named), DataError);
  named.target = "0";
  CHECK_THROWS_AS(radial::read_dataset(file, named), DataError);
}

TEST_CASE("read_inputs_csv reads .npy too (predict reads what evaluate reads)",
          "[data][npy][hostile]") {
  TempDir dir;
  const fs::path file = dir.write("t.npy", npy_bytes(2, 3, {1, 10, 100, 2, 20, 200}));
  // A model trained on a .npy file names its features by column.
  CHECK(values(radial::read_inputs_csv(file, {"x3", "x1"})) == std::vector<double>{100, 1, 200, 2});
  // Other names: the first columns in order, with or without the target last.
  CHECK(values(radial::read_inputs_csv(file, {"a", "b"})) == std::vector<double>{1, 10, 2, 20});
  CHECK(values(radial::read_inputs_csv(file, {"a", "b", "c"})) ==
        std::vector<double>{1, 10, 100, 2, 20, 200});
  CHECK_THAT(data_error([&] { radial::read_inputs_csv(file, {"a"}); }),
             Contains("the array has 3 columns, but the model needs 1 inputs"));
  // The dataset read by evaluate and the inputs read by predict agree.
  const radial::Dataset small = radial::read_dataset(radial::testing::test_data("small-classes.npy"));
  CHECK(values(radial::read_inputs_csv(radial::testing::test_data("small-classes.npy"),
                                       small.feature_names)) == values(small.inputs));
}

TEST_CASE("Mutated CSV and .npy files give a Dataset or a DataError", "[data][hostile]") {
  TempDir dir;
  std::mt19937_64 rng(10);
  const std::string csv = bytes_of(radial::testing::test_data("small-classes.csv"));
  const std::string npy = bytes_of(radial::testing::test_data("small-classes.npy"));
  for (int trial = 0; trial < 600; ++trial) {
    const bool is_csv = trial % 2 == 0;
    std::string bytes = is_csv ? csv : npy;
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % bytes.size();
      switch (rng() % 3) {
        case 0: bytes[at] = char(rng()); break;
        case 1: bytes.erase(at, 1 + rng() % 8); break;
        default: bytes.insert(at, 1 + rng() % 4, "\0\r\n,\"9-e."[rng() % 10]); break;
      }
      if (bytes.empty()) bytes = "x";
    }
    INFO("trial " << trial);
    const fs::path file = dir.write(is_csv ? "m.csv" : "m.npy", bytes);
    try {
      const radial::Dataset data = radial::read_dataset(file);
      CHECK(data.rows() >= 1);
      CHECK(data.inputs.shape(0) == data.rows());
    } catch (const DataError&) {
    }
  }
}
