// Sharded reading under mpirun -np 1/2/3: every rank reads its shard of a file (read_dataset_shard,
// read_inputs_shard), the shards are gathered in rank order and compared on every rank with the
// single-process read of the whole file: the same input bits, targets, classes, class values,
// feature names and task. Bad input in one rank's range makes every rank throw that rank's
// error, with the line numbers of the whole file.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "../data-reader/npy_bytes.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/exec/parallel.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"
#include "radial/testing/paths.hpp"

using namespace radial;
namespace fs = std::filesystem;

namespace {

// Every rank waits for every other (files written by rank 0 are then there for all).
void barrier() { world().all_gather(std::string()); }

// A folder made by rank 0, its name broadcast, removed by rank 0 when every rank is done.
class SharedTempDir {
 public:
  SharedTempDir() {
    std::string name;
    if (world().rank() == 0) {
      std::string pattern = (fs::temp_directory_path() / "radial-shard-XXXXXX").string();
      if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
      name = pattern;
    }
    world().broadcast(name, 0);
    path_ = name;
  }
  ~SharedTempDir() {
    barrier();
    if (world().rank() == 0) fs::remove_all(path_);
  }
  fs::path path(const std::string& name) const { return path_ / name; }
  // `bytes` written to `name` by rank 0; every rank returns once the file is complete.
  fs::path write(const std::string& name, const std::string& bytes) const {
    const fs::path file = path_ / name;
    if (world().rank() == 0) std::ofstream(file, std::ios::binary) << bytes;
    barrier();
    return file;
  }

 private:
  fs::path path_;
};

std::string as_bytes(const void* data, std::size_t bytes) {
  return std::string(static_cast<const char*>(data), bytes);
}

// The rows of every rank's shard, in rank order.
struct Gathered {
  std::size_t rows = 0;
  std::string inputs, targets;  // the bits of inputs (row-major) and of classes or values
};

Gathered gather(const Matrix& inputs, const std::string& targets) {
  Collectives& c = collectives();
  Gathered out;
  const std::string mine = as_bytes(inputs.data(), inputs.size() * sizeof(double));
  for (const std::string& part : c.all_gather(mine)) out.inputs += part;
  for (const std::string& part : c.all_gather(targets)) out.targets += part;
  out.rows = std::size_t(count_over_ranks(inputs.shape(0)));
  return out;
}

std::string target_bytes(const Dataset& d) {
  if (d.task == Task::Classification)
    return as_bytes(d.classes.data(), d.classes.size() * sizeof(std::int64_t));
  return as_bytes(d.values.data(), d.values.size() * sizeof(double));
}

// Reads `file` whole (single process) and sharded, and checks that the shards make the whole.
Dataset check_shards_make_whole(const fs::path& file, const DataOptions& options = {}) {
  const Dataset whole = read_dataset(file, options);
  ShardedScope scope(world());
  const Dataset shard = read_dataset_shard(file, options);
  const int p = collectives().size();
  CHECK(shard.features() == whole.features());
  CHECK(shard.feature_names == whole.feature_names);
  CHECK(shard.target_name == whole.target_name);
  CHECK(shard.task == whole.task);
  CHECK(shard.num_classes == whole.num_classes);
  CHECK(shard.class_values == whole.class_values);
  CHECK(shard.class_names == whole.class_names);
  CHECK(shard.source == whole.source);
  const Gathered all = gather(shard.inputs, target_bytes(shard));
  CHECK(all.rows == whole.rows());
  CHECK(all.inputs == as_bytes(whole.inputs.data(), whole.inputs.size() * sizeof(double)));
  CHECK(all.targets == target_bytes(whole));
  // With one rank the shard is the whole file; with P the rows are split on block boundaries
  // (whole blocks of parallel_block_rows evenly over ranks), none held twice.
  if (p == 1) CHECK(shard.rows() == whole.rows());
  CHECK(shard.rows() ==
        block_shard(whole.rows(), collectives().rank(), p, parallel_block_rows).count);
  return whole;
}

// read_inputs_shard's shards against read_inputs_csv of the whole file.
void check_input_shards(const fs::path& file, const std::vector<std::string>& features) {
  const Matrix whole = read_inputs_csv(file, features);
  ShardedScope scope(world());
  const Matrix shard = read_inputs_shard(file, features);
  REQUIRE(shard.shape(1) == features.size());
  const Gathered all = gather(shard, std::string());
  CHECK(all.rows == whole.shape(0));
  CHECK(all.inputs == as_bytes(whole.data(), whole.size() * sizeof(double)));
}

// The message read_dataset gives for the whole file (it must fail).
std::string whole_file_error(const fs::path& file, const DataOptions& options = {}) {
  try {
    read_dataset(file, options);
  } catch (const DataError& e) {
    return e.what();
  }
  FAIL("read_dataset accepted " << file);
  return {};
}

// Every rank throws a DataError whose message is `expected`, after "rank R: " when R >= 0 and
// there are several ranks (an error of one rank's range), as is when R < 0 (judged globally).
void check_sharded_error(const fs::path& file, const DataOptions& options, int failing_rank,
                         const std::string& expected) {
  ShardedScope scope(world());
  const int p = collectives().size();
  std::string message;
  try {
    read_dataset_shard(file, options);
  } catch (const DataError& e) {
    message = e.what();
  }
  const std::string prefix =
      p > 1 && failing_rank >= 0 ? "rank " + std::to_string(failing_rank) + ": " : "";
  CHECK(message == prefix + expected);
}

std::string rows_csv(const std::string& header, std::size_t n,
                     std::string (*row)(std::size_t), const char* line_end = "\n") {
  std::string text = header + line_end;
  for (std::size_t i = 0; i < n; ++i) text += row(i) + line_end;
  return text;
}

int ranks() { return world().size(); }

}  // namespace

TEST_CASE("shards of the shipped data sets make the whole file") {
  const fs::path examples = testing::source_dir() / "docs" / "examples" / "data";
  const Dataset iris = check_shards_make_whole(examples / "iris.csv");
  CHECK(iris.task == Task::Classification);
  CHECK(iris.num_classes == 3);
  const Dataset waveform = check_shards_make_whole(examples / "waveform.csv");
  CHECK(waveform.rows() == 5000);
  const Dataset sine = check_shards_make_whole(examples / "sine.train.csv");
  CHECK(sine.task == Task::Regression);
  check_shards_make_whole(testing::test_data("random-regression.csv"));
  check_shards_make_whole(testing::test_data("random-regression.npy"));
  // Options as evaluate passes them: the target by name, the task and the training classes.
  DataOptions options;
  options.target = "petal_length_cm";
  options.task = Task::Regression;
  check_shards_make_whole(examples / "iris.csv", options);
  DataOptions coded;
  coded.task = Task::Classification;
  coded.class_values = std::vector<double>{2, 1, 0, 5};
  const Dataset with_classes = check_shards_make_whole(examples / "iris.csv", coded);
  CHECK(with_classes.num_classes == 4);
}

TEST_CASE("uneven shards: N not divisible by P, fewer rows than ranks, a class in the last rank") {
  SharedTempDir dir;
  // 7 rows: 7 = 3*2 + 1 = 2*3 + 1; CRLF line ends, a byte-order mark, a quoted header cell.
  const auto row7 = [](std::size_t i) {
    return std::to_string(i) + ".5, " + std::to_string(10 - int(i)) + "," + std::to_string(i % 2);
  };
  std::string uneven = "\xEF\xBB\xBF" + rows_csv("a,\"b c\",label", 7, row7, "\r\n");
  check_shards_make_whole(dir.write("uneven.csv", uneven));
  // CR-only line ends and blank lines at the end.
  check_shards_make_whole(dir.write("cr.csv", rows_csv("a,b,y", 7, row7, "\r") + "\r \r"));
  check_shards_make_whole(dir.write("blank-tail.csv", rows_csv("a,b,y", 7, row7) + "\n\n  \n"));
  // No final line end.
  std::string unterminated = rows_csv("a,b,y", 7, row7);
  unterminated.pop_back();
  check_shards_make_whole(dir.write("unterminated.csv", unterminated));
  // One row: every rank but one holds none.
  check_shards_make_whole(dir.write("one-row.csv", "x,y\n1.25,3\n"));
  check_shards_make_whole(dir.write("two-rows.csv", "x,y\n1.25,3\n-2,4\n"));
  // One very long row among short ones: the ranks whose cut falls inside it hold no rows.
  std::string long_row = "x,y\n1,0\n" + std::string(5000, ' ') + "2,1\n3,0\n";
  check_shards_make_whole(dir.write("long-row.csv", long_row));

  // Label 7 only in the last row: every rank has classes {0, 1, 7}, coded 0, 1, 2.
  const auto row30 = [](std::size_t i) {
    return std::to_string(i) + "," + std::to_string(i * i % 11) + "," +
           (i == 29 ? std::string("7") : std::to_string(i % 2));
  };
  const Dataset last =
      check_shards_make_whole(dir.write("last-class.csv", rows_csv("u,v,c", 30, row30)));
  CHECK(last.class_values == std::vector<double>{0, 1, 7});
  {
    ShardedScope scope(world());
    const Dataset shard = read_dataset_shard(dir.path("last-class.csv"));
    CHECK(shard.class_values == std::vector<double>{0, 1, 7});
    CHECK(shard.num_classes == 3);
  }
  // A text label only in the last row: every rank's numbers become the texts "0" and "1".
  const auto row_text = [](std::size_t i) {
    return std::to_string(i) + "," + (i == 29 ? std::string("\"seven, 7\"") : std::to_string(i % 2));
  };
  const Dataset text =
      check_shards_make_whole(dir.write("last-text.csv", rows_csv("u,c", 30, row_text)));
  CHECK(text.class_names == std::vector<std::string>{"0", "1", "seven, 7"});
  CHECK(text.classes(29) == 2);
  // ARFF and LIBSVM files shard as CSV does: a header of several lines (comments, blank lines
  // and sparse rows among the data), and rows with indices that only the last rank's rows reach.
  const auto arff_row = [](std::size_t i) {
    return i % 4 == 3 ? "{0 " + std::to_string(i) + ", 2 " + (i % 3 ? "b" : "'a c'") + "}"
                      : "% comment\n" + std::to_string(i) + ".5," + std::to_string(i % 7) +
                            "," + (i % 3 ? "b" : "'a c'");
  };
  std::string arff = "% made by test_sharded_read\n@relation r\n\n@attribute u numeric\n"
                     "@attribute v numeric\n@attribute c {b,'a c'}\n@data\n";
  for (std::size_t i = 0; i < 40; ++i) arff += arff_row(i) + (i % 5 ? "\n" : "\n\n");
  const Dataset from_arff = check_shards_make_whole(dir.write("rows.arff", arff));
  CHECK(from_arff.class_names == std::vector<std::string>{"a c", "b"});
  check_input_shards(dir.path("rows.arff"), {"v", "u"});
  std::string libsvm = "# made by test_sharded_read\n";
  for (std::size_t i = 0; i < 40; ++i)
    libsvm += std::to_string(i % 3) + " 1:" + std::to_string(i) + ".25 " +
              (i == 39 ? "9:1" : std::to_string(2 + i % 4) + ":-1") + "\n";
  const Dataset from_libsvm = check_shards_make_whole(dir.write("rows.libsvm", libsvm));
  CHECK(from_libsvm.features() == 9);
  check_input_shards(dir.path("rows.libsvm"), {"x9", "x1"});

  // Integer targets but one non-integer value in the last rank's rows: regression on every rank.
  const auto row_reg = [](std::size_t i) {
    return std::to_string(i) + "," + (i == 28 ? std::string("2.5") : std::to_string(i));
  };
  const Dataset reg =
      check_shards_make_whole(dir.write("last-real.csv", rows_csv("u,t", 30, row_reg)));
  CHECK(reg.task == Task::Regression);

  // A .npy file with 7 rows, the target last; and its inputs for prediction.
  std::vector<double> values;
  for (int i = 0; i < 7; ++i) {
    values.push_back(0.1 * i);
    values.push_back(std::sqrt(double(i)));
    values.push_back(double(i % 3));
  }
  const fs::path npy = dir.write("seven.npy", testing::npy_bytes(7, 3, values));
  const Dataset seven = check_shards_make_whole(npy);
  CHECK(seven.num_classes == 3);
  const fs::path npy_one = dir.write("one.npy", testing::npy_bytes(1, 3, {1.0, 2.0, 0.0}));
  check_shards_make_whole(npy_one);
  check_input_shards(npy, {"x2", "x1"});
  check_input_shards(npy, {"a", "b"});  // names of a CSV-trained model: the first columns
  check_input_shards(dir.path("uneven.csv"), {"b c", "a"});
  check_input_shards(dir.path("one-row.csv"), {"x"});
  check_input_shards(testing::source_dir() / "docs" / "examples" / "data" / "waveform.csv",
                     {"x3", "x1", "x21"});
}

TEST_CASE("bad input in one rank's range: every rank throws that rank's error") {
  SharedTempDir dir;
  const int p = ranks();
  // 30 rows of equal length; row 29 (line 30) is ragged. It starts past 2/3 of the data bytes,
  // so it is in the last rank's range for P <= 3.
  const auto row = [](std::size_t i) {
    char text[32];
    std::snprintf(text, sizeof text, "%03zu,%03zu,%zu", i, 3 * i, i % 2);
    return i == 28 ? std::string(text) + ",9" : std::string(text);
  };
  const fs::path ragged = dir.write("ragged.csv", rows_csv("a,b,y", 30, row));
  const std::string ragged_message = whole_file_error(ragged);
  CHECK(ragged_message.find("ragged.csv:30:") != std::string::npos);
  check_sharded_error(ragged, {}, p - 1, ragged_message);
  // The same for the inputs of prediction.
  {
    std::string whole;
    try {
      read_inputs_csv(ragged, {"a", "b"});
    } catch (const DataError& e) {
      whole = e.what();
    }
    ShardedScope scope(world());
    std::string message;
    try {
      read_inputs_shard(ragged, {"a", "b"});
    } catch (const DataError& e) {
      message = e.what();
    }
    CHECK(message == (p > 1 ? "rank " + std::to_string(p - 1) + ": " : std::string()) + whole);
  }

  // An infinite cell on line 2: rank 0's error, on every rank. (Text there would make the
  // column nominal.)
  const fs::path text = dir.write("text.csv", "a,y\ninf,1\n" + rows_csv("", 20, [](std::size_t i) {
                                                return std::to_string(i) + ",0";
                                              }).substr(1));
  check_sharded_error(text, {}, 0, whole_file_error(text));

  // A run of blank lines across the cuts, then more data: the line of the run's first blank
  // line, as for the whole file, from the rank holding the data after it.
  const auto short_row = [](std::size_t i) { return "1," + std::to_string(i % 2) + "       "; };
  std::string gap = rows_csv("a,y", 20, short_row);
  for (int i = 0; i < 40; ++i) gap += "         \n";
  gap += rows_csv("", 20, short_row).substr(1);
  const fs::path blank = dir.write("gap.csv", gap);
  const std::string gap_message = whole_file_error(blank);
  CHECK(gap_message.find("gap.csv:22:1: blank line inside the data") != std::string::npos);
  check_sharded_error(blank, {}, p - 1, gap_message);

  // A test label never seen in training, in the last row.
  const auto labelled = [](std::size_t i) {
    return std::to_string(i) + "," + (i == 9 ? "3" : "1");
  };
  const fs::path unseen = dir.write("unseen.csv", rows_csv("a,y", 10, labelled));
  DataOptions trained;
  trained.class_values = std::vector<double>{0, 1};
  check_sharded_error(unseen, trained, p - 1, whole_file_error(unseen, trained));

  // More classes than max_classes in the union, fewer on each rank when P > 1: judged globally.
  const auto many = [](std::size_t i) { return std::to_string(i) + "," + std::to_string(i); };
  const fs::path classes = dir.write("classes.csv", rows_csv("a,y", max_classes + 1, many));
  check_sharded_error(classes, {}, -1, whole_file_error(classes));

  // No data rows (judged on the sum of the ranks' rows).
  const fs::path header_only = dir.write("header.csv", "a,y\n\n");
  check_sharded_error(header_only, {}, -1, whole_file_error(header_only));

  // .npy: NaN in the last row; a missing file is every rank's error.
  std::vector<double> values(7 * 2, 1.0);
  values[13] = std::nan("");
  const fs::path nan = dir.write("nan.npy", testing::npy_bytes(7, 2, values));
  // 7 rows are one block: rank 0 holds them all (block_shard), so rank 0 finds the NaN.
  check_sharded_error(nan, {}, 0, whole_file_error(nan));
  const fs::path missing = dir.path("missing.csv");
  check_sharded_error(missing, {}, 0, whole_file_error(missing));
}

TEST_CASE("a pipe cannot be sharded over several ranks; one rank reads it") {
  SharedTempDir dir;
  const int p = ranks();
  const std::string csv = "a,y\n1,0\n2,1\n3,1\n";
  const std::string npy = testing::npy_bytes(3, 2, {1, 0, 2, 1, 3, 1});
  for (const bool is_npy : {false, true}) {
    for (const bool inputs_only : {false, true}) {
      // Each rank its own pipe holding the file (small enough for the pipe's buffer); a .npy
      // file is found by its extension, so it is read through a link named *.npy.
      const std::string& bytes = is_npy ? npy : csv;
      int fds[2];
      REQUIRE(::pipe(fds) == 0);
      REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == ssize_t(bytes.size()));
      ::close(fds[1]);
      fs::path pipe = "/dev/fd/" + std::to_string(fds[0]);
      if (is_npy) {
        const fs::path link = dir.path("pipe-" + std::to_string(world().rank()) + ".npy");
        fs::remove(link);
        fs::create_symlink(pipe, link);
        pipe = link;
      }
      ShardedScope scope(world());
      std::string message;
      try {
        const std::string feature = is_npy ? "x1" : "a";
        const std::size_t rows = inputs_only ? read_inputs_shard(pipe, {feature}).shape(0)
                                             : read_dataset_shard(pipe).rows();
        CHECK(rows == 3);  // one rank: read as a stream, as read_dataset reads it
      } catch (const DataError& e) {
        message = e.what();
      }
      ::close(fds[0]);
      INFO("npy " << is_npy << ", inputs " << inputs_only << ": " << message);
      if (p > 1) {
        CHECK(message.find("cannot be split among the " + std::to_string(p) + " ranks") !=
              std::string::npos);
      } else {
        CHECK(message.empty());
      }
    }
  }
}
