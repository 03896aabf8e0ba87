// read_csv of a large file in parts at once (one thread each) against the same file read in one
// pass (DataOptions::threads = 1): the same values to the bit, and the same error, at the same
// file:line:column, for what only the one pass reads (text labels, a bad cell, a blank line).

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "data_error.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"

using radial::DataOptions;
using radial::testing::data_error;

namespace {

namespace fs = std::filesystem;

// A temporary folder, removed with its files.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("radial-csv-parts-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

// About 3.7 MB of rows: 16 inputs, a class in 0..2. `edit(row,
// line)` may rewrite a line (without its line end) before it is written; `end` ends each line.
fs::path write_rows(const TempDir& dir, const std::string& name,
                    const std::function<void(std::size_t, std::string&)>& edit = {},
                    const char* end = "\n") {
  const fs::path file = dir.path / name;
  std::ofstream out(file, std::ios::binary);
  for (int j = 0; j < 16; ++j) out << "x" << j << ",";
  out << "class" << end;
  std::uint64_t state = 12345;
  char cell[32];
  std::string line;
  for (std::size_t i = 0; i < 22'000; ++i) {
    line.clear();
    for (int j = 0; j < 16; ++j) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const double value = double(state >> 11) / double(1ULL << 53) * 20.0 - 10.0;
      std::snprintf(cell, sizeof cell, j == 3 ? "%.17g," : "%.6f,", value);
      line += cell;
    }
    line += std::to_string(i % 3);
    if (edit) edit(i, line);
    out << line << end;
  }
  return file;
}

// Parts of 1 MB or more (16 MB by default), so that the files can be small.
DataOptions with_threads(int threads) {
  DataOptions options;
  options.threads = threads;
  options.part_bytes = std::size_t(1) << 20;
  return options;
}

void require_same(const radial::Dataset& one, const radial::Dataset& parts) {
  REQUIRE(one.rows() == parts.rows());
  REQUIRE(one.inputs.shape() == parts.inputs.shape());
  REQUIRE(std::memcmp(one.inputs.data(), parts.inputs.data(),
                      one.inputs.size() * sizeof(double)) == 0);
  REQUIRE(one.task == parts.task);
  REQUIRE(std::vector<std::size_t>(one.classes.begin(), one.classes.end()) ==
          std::vector<std::size_t>(parts.classes.begin(), parts.classes.end()));
  REQUIRE(one.values.size() == parts.values.size());
  REQUIRE(one.num_classes == parts.num_classes);
  REQUIRE(one.class_values == parts.class_values);
  REQUIRE(one.class_names == parts.class_names);
  REQUIRE(one.feature_names == parts.feature_names);
}

}  // namespace

TEST_CASE("CSV in parts: the same data as one pass", "[data][csv-parts]") {
  TempDir dir;
  SECTION("plain decimals, quoted and spaced cells, blank lines at the end") {
    const fs::path file = write_rows(dir, "plain.csv", [](std::size_t i, std::string& line) {
      if (i % 100 == 7) line = "\"" + line.substr(0, line.find(',')) + "\"" +
                                line.substr(line.find(','));
      if (i % 100 == 8) line.insert(0, "  ");
    });
    { std::ofstream(file, std::ios::app) << "\n\n"; }
    const radial::Dataset one = radial::read_csv(file, with_threads(1));
    REQUIRE(one.rows() == 22'000);
    require_same(one, radial::read_csv(file, with_threads(2)));
    require_same(one, radial::read_csv(file, with_threads(3)));
  }
  SECTION("CRLF and CR-only line ends") {
    for (const char* end : {"\r\n", "\r"}) {
      const fs::path file = write_rows(dir, "ends.csv", {}, end);
      require_same(radial::read_csv(file, with_threads(1)), radial::read_csv(file, with_threads(2)));
    }
  }
  SECTION("text labels that start in the second half") {
    const fs::path file = write_rows(dir, "labels.csv", [](std::size_t i, std::string& line) {
      if (i >= 15'000) line.back() = char('a' + (line.back() - '0'));
    });
    const radial::Dataset one = radial::read_csv(file, with_threads(1));
    REQUIRE(one.class_names.size() == 6);  // "0" .. "2" and "a" .. "c"
    require_same(one, radial::read_csv(file, with_threads(2)));
  }
  SECTION("missing cells, where data.missing allows them") {
    const fs::path file = write_rows(dir, "missing.csv", [](std::size_t i, std::string& line) {
      if (i % 500 == 17) line.replace(0, line.find(','), "?");
    });
    DataOptions one = with_threads(1), two = with_threads(2);
    one.allow_missing = two.allow_missing = true;
    require_same(radial::read_csv(file, one), radial::read_csv(file, two));
  }
}

TEST_CASE("CSV in parts: errors at the same place as one pass", "[data][csv-parts]") {
  TempDir dir;
  const auto same_error = [](const fs::path& file) {
    const std::string one = data_error([&] { radial::read_csv(file, with_threads(1)); });
    const std::string two = data_error([&] { radial::read_csv(file, with_threads(2)); });
    CHECK(one == two);
    return one;
  };
  SECTION("a bad cell in the second half") {
    const fs::path file = write_rows(dir, "bad.csv", [](std::size_t i, std::string& line) {
      if (i == 18'000) line.replace(0, line.find(','), "1.2.3");
    });
    CHECK_THAT(same_error(file), Catch::Matchers::Contains("bad.csv:18002:1"));
  }
  SECTION("a blank line inside the data, in the second half") {
    const fs::path file = write_rows(dir, "blank.csv", [](std::size_t i, std::string& line) {
      if (i == 17'000) line += "\n";
    });
    CHECK_THAT(same_error(file), Catch::Matchers::Contains("blank.csv:17003:1"));
  }
  SECTION("a text cell in a column of numbers, in the second half") {
    const fs::path file = write_rows(dir, "text.csv", [](std::size_t i, std::string& line) {
      if (i == 20'000) line.replace(0, line.find(','), "yes");
    });
    CHECK_THAT(same_error(file), Catch::Matchers::Contains("text.csv:20002:1"));
  }
}
