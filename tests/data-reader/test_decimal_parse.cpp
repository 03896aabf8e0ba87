// The CSV reader's fast path: parse_decimal_prefix against std::from_chars, bit for bit, on
// random decimals of every shape it takes and many it must refuse; find_commas against a plain
// loop; and rows counted before they are read.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "csv_scanner.hpp"
#include "radial/data/data_reader.hpp"

namespace {

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// What the general path would read: from_chars on the whole text ('+' skipped), or nothing.
bool reference(const std::string& text, double& value) {
  const char* first = text.data();
  const char* last = first + text.size();
  if (first != last && *first == '+' && text.size() > 1 && first[1] != '-') ++first;
  const auto [end, error] = std::from_chars(first, last, value);
  return end == last && error == std::errc();
}

std::string random_decimal(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pick(0, 99);
  std::string s;
  const int sign = pick(rng);
  if (sign < 30)
    s += '-';
  else if (sign < 35)
    s += '+';
  const int whole = pick(rng) % 12, fraction = pick(rng) % 12;
  for (int i = 0; i < whole; ++i) s += char('0' + pick(rng) % 10);
  if (pick(rng) < 80) {
    s += '.';
    for (int i = 0; i < fraction; ++i) s += char('0' + pick(rng) % 10);
  }
  if (pick(rng) < 20) {
    s += pick(rng) < 50 ? 'e' : 'E';
    const int es = pick(rng);
    if (es < 40)
      s += '-';
    else if (es < 50)
      s += '+';
    s += std::to_string(pick(rng) % 30);
  }
  return s;
}

}  // namespace

TEST_CASE("the fast number path reads what from_chars reads, to the bit", "[data][csv]") {
  std::mt19937_64 rng(20261126);
  std::size_t fast = 0;
  for (int trial = 0; trial < 400000; ++trial) {
    const std::string text = random_decimal(rng);
    // Padded as inside a line (the two-word path), and exactly at the end of the readable bytes.
    for (const bool padded : {true, false}) {
      std::string line = text + (padded ? std::string(",123456789012345678") : std::string());
      const char* first = line.data();
      const char* last = first + text.size();
      double got = -12345.0;
      const char* end =
          radial::data::parse_decimal_prefix(first, last, got, line.data() + line.size());
      double want = 0;
      const bool readable = reference(text, want);
      if (end == last) {
        ++fast;
        INFO("text \"" << text << "\"");
        REQUIRE(readable);
        REQUIRE(bits(got) == bits(want));
      } else if (end != nullptr) {
        // A number followed by more text: a prefix of the cell, which the caller refuses.
        REQUIRE(end < last);
      }
    }
  }
  CHECK(fast > 400000);  // most shapes take the fast path
}

TEST_CASE("the fast number path leaves alone what it cannot read exactly", "[data][csv]") {
  double v = 0;
  for (const std::string text :
       {"", "-", "+", ".", "e5", "1e", "1e+", "--1", "+-1", "nan", "inf", "0x1p3", "1.5e400",
        "12345678901234567890", "0.00000000000000000000001", "9007199254740993", "1e23"}) {
    const char* end = radial::data::parse_decimal_prefix(text.data(), text.data() + text.size(), v,
                                                         text.data() + text.size());
    INFO("text \"" << text << "\"");
    CHECK(end != text.data() + text.size());
  }
}

TEST_CASE("find_commas finds exactly the commas of an unquoted line", "[data][csv]") {
  std::mt19937_64 rng(7);
  std::vector<std::uint32_t> commas;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string line;
    const std::size_t length = rng() % 70;
    std::vector<std::uint32_t> want;
    for (std::size_t i = 0; i < length; ++i) {
      const char c = "0123456789.,-e ,\"\x80"[rng() % 18];
      if (c == ',') want.push_back(std::uint32_t(i));
      line += c;
    }
    const bool quoted = line.find('"') != std::string::npos;
    const bool found = radial::data::find_commas(line, commas, want.size());
    INFO("line \"" << line << "\"");
    REQUIRE(found == !quoted);
    if (found)
      REQUIRE(std::vector<std::uint32_t>(commas.begin(), commas.begin() + want.size()) == want);
    if (!want.empty() && !quoted)
      REQUIRE_FALSE(radial::data::find_commas(line, commas, want.size() - 1));
    if (!quoted) REQUIRE_FALSE(radial::data::find_commas(line, commas, want.size() + 1));
  }
}

// The reader counts the rows before it parses them, to write them straight into the matrix.
// Blank lines at the end make the count too high, CR-only line ends too low (one "line"); both
// must read the same rows as the exact count.
TEST_CASE("rows counted first: exact, too many and too few give the same data", "[data][csv]") {
  namespace fs = std::filesystem;
  const fs::path folder =
      fs::temp_directory_path() / ("radial-test-row-count-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const std::size_t rows = 7000;  // 14000 input values: past the first chunks of the spill path
  const auto write = [&](const std::string& name, const std::string& end, const std::string& tail) {
    std::ofstream out(folder / name, std::ios::binary);
    out << "a,b,class" << end;
    for (std::size_t i = 0; i < rows; ++i)
      out << double(i) * 0.25 << ",-" << i << ".5," << i % 3 << end;
    out << tail;
  };
  write("exact.csv", "\n", "");
  write("blank-tail.csv", "\r\n", "\r\n\r\n");
  write("cr-only.csv", "\r", "");
  write("no-final-end.csv", "\n", "1,2,0");
  const radial::Dataset exact = radial::read_csv(folder / "exact.csv");
  REQUIRE(exact.rows() == rows);
  CHECK(exact.inputs(rows - 1, 0) == double(rows - 1) * 0.25);
  CHECK(exact.inputs(rows - 1, 1) == -(double(rows - 1) + 0.5));
  for (const char* name : {"blank-tail.csv", "cr-only.csv"}) {
    INFO(name);
    const radial::Dataset other = radial::read_csv(folder / name);
    REQUIRE(other.rows() == rows);
    CHECK(std::equal(other.inputs.begin(), other.inputs.end(), exact.inputs.begin()));
    CHECK(std::equal(other.classes.begin(), other.classes.end(), exact.classes.begin()));
  }
  const radial::Dataset longer = radial::read_csv(folder / "no-final-end.csv");
  REQUIRE(longer.rows() == rows + 1);
  CHECK(longer.inputs(rows, 1) == 2.0);
  const radial::Matrix inputs = radial::read_inputs_csv(folder / "cr-only.csv", {"b", "a"});
  REQUIRE(inputs.shape(0) == rows);
  CHECK(inputs(rows - 1, 0) == exact.inputs(rows - 1, 1));
  fs::remove_all(folder);
}
