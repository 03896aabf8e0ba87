// Centres from a CSV file (see fixed_centres.hpp).
#include "fixed_centres.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/io/input_file.hpp"

namespace radial::plugins {

namespace {

struct Field {
  std::string text;     // trimmed
  std::size_t column;   // 1-based character column of the field's first character
};

std::vector<Field> split(const std::string& line) {
  std::vector<Field> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    const std::size_t end = comma == std::string::npos ? line.size() : comma;
    std::size_t a = start, b = end;
    while (a < b && (line[a] == ' ' || line[a] == '\t')) ++a;
    while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t')) --b;
    fields.push_back({line.substr(a, b - a), a + 1});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return fields;
}

std::string unquote(const std::string& s) {
  return s.size() >= 2 && s.front() == '"' && s.back() == '"' ? s.substr(1, s.size() - 2) : s;
}

}  // namespace

Centres read_centres_csv(const std::filesystem::path& file, std::size_t features) {
  const std::string name = file.string();
  // A directory, socket, missing or unreadable file is named as such; pipes read as streams.
  constexpr std::size_t max_bytes = std::size_t(256) << 20;
  std::istringstream in;
  try {
    in.str(InputFile::open(file, "centres file").read_all(max_bytes));
  } catch (const InputError& error) {
    throw InputError(std::string("plugin fixed, parameter centres.file: ") + error.what() +
                     " (the path is relative to the pipeline file)");
  }
  auto fail = [&](std::size_t line, std::size_t column, const std::string& what) {
    std::ostringstream msg;
    msg << name << ":" << line << ":" << column << ": " << what;
    throw InputError(msg.str());
  };

  std::string text;
  std::size_t line_number = 0;
  // Header: the column names; `variance` marks the variance column.
  bool have_header = false;
  std::vector<Field> header;
  while (!have_header && std::getline(in, text)) {
    ++line_number;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(" \t") == std::string::npos) continue;
    header = split(text);
    have_header = true;
  }
  if (!have_header) fail(1, 1, "the centres file is empty; expected a header row, then one centre per row");

  std::size_t variance_column = header.size();
  for (std::size_t j = 0; j < header.size(); ++j) {
    if (unquote(header[j].text) != "variance") continue;
    if (variance_column != header.size())
      fail(line_number, header[j].column, "a second 'variance' column; give at most one");
    variance_column = j;
  }
  const bool has_variance = variance_column != header.size();
  const std::size_t feature_columns = header.size() - (has_variance ? 1 : 0);
  if (feature_columns != features) {
    std::ostringstream what;
    what << "the centres file has " << feature_columns << " feature column"
         << (feature_columns == 1 ? "" : "s") << (has_variance ? " (besides 'variance')" : "")
         << " but the data have " << features << " features; give one column per input "
         << "feature, in the data's order";
    fail(line_number, 1, what.str());
  }
  if (std::any_of(header.begin(), header.end(), [](const Field& f) {
        for (char c : f.text)
          if (!(c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9')))
            return false;
        return !f.text.empty();
      })) {
    fail(line_number, 1, "the first row looks like numbers; the centres file needs a header row "
                         "naming the columns (and 'variance' for the variance column)");
  }

  std::vector<double> means, variances;
  std::size_t count = 0;
  while (std::getline(in, text)) {
    ++line_number;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(" \t") == std::string::npos) continue;
    const std::vector<Field> fields = split(text);
    if (fields.size() != header.size()) {
      std::ostringstream what;
      what << "this row has " << fields.size() << " fields but the header has " << header.size();
      fail(line_number, 1, what.str());
    }
    for (std::size_t j = 0; j < fields.size(); ++j) {
      const Field& f = fields[j];
      double value = 0;
      const char* first = f.text.data();
      const char* last = first + f.text.size();
      if (!f.text.empty() && *first == '+') ++first;  // from_chars does not take a leading '+'
      const auto parsed = std::from_chars(first, last, value);
      if (f.text.empty() || parsed.ec != std::errc() || parsed.ptr != last || !std::isfinite(value)) {
        fail(line_number, f.column,
             "'" + f.text + "' in column '" + unquote(header[j].text) +
                 "' is not a finite number");
      }
      if (j == variance_column) {
        if (!(value > 0))
          fail(line_number, f.column,
               "variance " + f.text + " must be > 0 (a spherical Gaussian variance)");
        variances.push_back(value);
      } else {
        means.push_back(value);
      }
    }
    ++count;
  }
  if (count == 0) fail(line_number + 1, 1, "no centres after the header row");

  Centres centres;
  centres.means = xt::empty<double>({count, features});
  std::copy(means.begin(), means.end(), centres.means.begin());
  if (has_variance) {
    centres.shape = Shape::Spherical;
    centres.variances = xt::empty<double>({count});
    std::copy(variances.begin(), variances.end(), centres.variances.begin());
  }
  return centres;
}

Centres FixedCentres::fit(const Dataset& train, const KernelPrior*, FitContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  // Sharded data (radial/distributed/collectives.hpp): a rank may hold no rows while others do.
  if (count_over_ranks(train.rows()) == 0)
    throw InputError("the training data have no rows; check [data] train");
  Centres centres = read_centres_csv(file_, train.features());
  report_chosen_centres(ctx.report,
                        "read " + std::to_string(centres.count()) + " centres from the file",
                        centres.count(), start);
  return centres;
}

}  // namespace radial::plugins
