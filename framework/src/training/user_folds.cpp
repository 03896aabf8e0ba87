// Folds given by the user (user_folds.hpp).
#include "user_folds.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/core/text.hpp"

namespace radial::training {

namespace {

// Removes input column `j` of `data`, returning its values.
std::vector<double> take_column(Dataset& data, std::size_t j) {
  const std::string name = data.feature_names[j];
  const std::size_t n = data.rows(), d = data.features();
  std::vector<double> values(n);
  Matrix rest = Matrix::from_shape({n, d - 1});
  for (std::size_t r = 0; r < n; ++r) {
    values[r] = data.inputs(r, j);
    for (std::size_t c = 0, o = 0; c < d; ++c)
      if (c != j) rest(r, o++) = data.inputs(r, c);
  }
  data.inputs = std::move(rest);
  data.feature_names.erase(data.feature_names.begin() + std::ptrdiff_t(j));
  // With nominal inputs the coding lists the raw columns too: the fold column leaves them, and
  // the nominal columns after it move one place left (the model store checks they agree).
  if (!data.coding.empty()) {
    auto& raw = data.coding.raw_names;
    const auto at = std::find(raw.begin(), raw.end(), name);
    if (at != raw.end()) {
      const auto column = std::size_t(at - raw.begin());
      raw.erase(at);
      for (NominalInput& input : data.coding.nominal)
        if (input.column > column) --input.column;
    }
  }
  return values;
}

std::size_t column_of(const Dataset& data, const std::string& name, const std::string& what) {
  const auto it = std::find(data.feature_names.begin(), data.feature_names.end(), name);
  if (it == data.feature_names.end())
    throw InputError("[evaluate] fold_column = \"" + name + "\": " + what + " " + data.source +
                     " has no input column of that name" +
                     (name == data.target_name ? " (it is the target)" : ""));
  if (data.features() < 2)
    throw InputError("[evaluate] fold_column = \"" + name + "\": " + data.source +
                     " would have no inputs left without it");
  return std::size_t(it - data.feature_names.begin());
}

// This rank's rows of the fold file (all ranks' rows in the file).
std::vector<double> read_fold_file(const std::filesystem::path& file, std::size_t total,
                                   std::size_t first, std::size_t local) {
  std::ifstream in(file);
  if (!in) throw InputError("[evaluate] fold_file " + file.string() + ": cannot be read");
  std::vector<double> all;
  std::string line;
  std::size_t number = 0;
  // Lines of at most 64 characters: a fold number, or a header; a longer line (a binary or
  // wrong file) is refused before it is held in memory.
  constexpr std::size_t longest = 64;
  char buffer[longest + 2];
  while (in.getline(buffer, sizeof buffer) || in.gcount() > 0) {
    ++number;
    if (in.fail() && !in.eof()) {
      throw InputError(file.string() + ":" + std::to_string(number) + ": a line longer than " +
                       std::to_string(longest) + " characters; the fold file holds one integer "
                       "per line");
    }
    // The bytes read, NUL included: a NUL would otherwise cut the line where it stands.
    std::size_t length = std::size_t(in.gcount());
    if (length > 0 && !in.eof()) --length;  // the line end, counted but not stored
    line.assign(buffer, length);
    if (line.find('\0') != std::string::npos)
      throw InputError(file.string() + ":" + std::to_string(number) + ": a NUL byte; the fold " +
                       "file is text, one integer per training row");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    char* end = nullptr;
    const double v = std::strtod(line.c_str(), &end);
    const bool whole =
        end != line.c_str() && *end == '\0' && std::isfinite(v) && v == std::floor(v);
    if (!whole) {
      if (all.empty() && number == 1) continue;  // a header
      throw InputError(file.string() + ":" + std::to_string(number) + ": \"" + line +
                       "\" is not a fold number; write one integer per training row");
    }
    all.push_back(v);
    if (all.size() > total) break;
  }
  if (all.size() != total)
    throw InputError(file.string() + ": " + (all.size() > total ? "more than " : "") +
                     std::to_string(all.size()) + " folds for " + std::to_string(total) +
                     " training rows; give one fold per row, in the order of the data");
  return std::vector<double>(all.begin() + std::ptrdiff_t(first),
                             all.begin() + std::ptrdiff_t(first + local));
}

}  // namespace

std::optional<UserFolds> read_user_folds(const EvaluateSpec& spec, Dataset& train, Dataset* test) {
  if (!spec.user_folds()) return std::nullopt;
  std::vector<double> values;
  std::string bad_value;
  if (!spec.fold_column.empty()) {
    const std::size_t j = column_of(train, spec.fold_column, "the training data");
    if (test) {
      const std::size_t tj = column_of(*test, spec.fold_column, "the test data");
      take_column(*test, tj);
    }
    values = take_column(train, j);
    // Thrown after the gather below, so that every rank reaches it (agreed() then stops all).
    for (std::size_t r = 0; r < values.size() && bad_value.empty(); ++r)
      if (std::isnan(values[r]))
        bad_value = train.source + ": fold column '" + spec.fold_column + "' is missing in " +
                    "training row " + std::to_string(r + 1) + " (of this part of the data); " +
                    "every row needs its fold: fill it in or remove the row";
      else if (values[r] != std::floor(values[r]))
        bad_value = train.source + ": fold column '" + spec.fold_column + "' holds " +
                    text::number(values[r]) + " (training row " + std::to_string(r + 1) +
                    " of this part of the data); folds are integers";
  } else {
    const ShardLayout layout = shard_layout(train.rows());
    values = read_fold_file(*spec.fold_file, layout.total, layout.first, train.rows());
  }
  // The distinct values over all ranks, renumbered in increasing order.
  std::set<double> distinct(values.begin(), values.end());
  if (collectives().size() > 1) {
    const std::vector<double> mine(distinct.begin(), distinct.end());
    const std::string bytes(reinterpret_cast<const char*>(mine.data()),
                            mine.size() * sizeof(double));
    for (const std::string& part : collectives().all_gather(bytes)) {
      std::vector<double> theirs(part.size() / sizeof(double));
      std::memcpy(theirs.data(), part.data(), part.size());
      distinct.insert(theirs.begin(), theirs.end());
    }
  }
  if (!bad_value.empty()) throw InputError(bad_value);
  if (distinct.size() < 2)
    throw InputError(std::string("[evaluate] ") +
                     (spec.fold_file ? "fold_file " + spec.fold_file->string()
                                     : "fold_column \"" + spec.fold_column + "\"") +
                     " gives " + std::to_string(distinct.size()) +
                     " distinct fold(s); cross-validation needs at least 2");
  const std::vector<double> order(distinct.begin(), distinct.end());
  UserFolds folds;
  folds.count = order.size();
  folds.fold.reserve(values.size());
  for (double v : values)
    folds.fold.push_back(
        std::size_t(std::lower_bound(order.begin(), order.end(), v) - order.begin()));
  return folds;
}

void drop_missing_rows_of(UserFolds& folds, const Matrix& inputs) {
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  std::vector<std::size_t> kept;
  std::vector<std::uint64_t> per_fold(folds.count, 0);
  for (std::size_t r = 0; r < n; ++r) {
    bool complete = true;
    for (std::size_t j = 0; j < d && complete; ++j) complete = !std::isnan(inputs(r, j));
    if (!complete) continue;
    kept.push_back(folds.fold[r]);
    ++per_fold[folds.fold[r]];
  }
  folds.fold = std::move(kept);
  collectives().sum(per_fold.data(), per_fold.size());
  for (std::size_t k = 0; k < folds.count; ++k)
    if (per_fold[k] == 0)
      throw InputError("[evaluate] fold " + std::to_string(k + 1) + " of " +
                       std::to_string(folds.count) + " (in increasing order of the fold "
                       "values) has no row left once data.missing = \"drop-rows\" has left out "
                       "the rows with a missing input; impute instead (missing = \"mean\" or "
                       "\"median\"), or give that fold complete rows");
}

UserFolds folds_without(const UserFolds& folds, const std::vector<std::size_t>& rows,
                        std::size_t left_out) {
  UserFolds inner;
  inner.count = folds.count - 1;
  inner.fold.reserve(rows.size());
  for (std::size_t r : rows) {
    const std::size_t f = folds.fold[r];
    inner.fold.push_back(f < left_out ? f : f - 1);
  }
  return inner;
}

}  // namespace radial::training
