#include "radial/data/missing_values.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "radial/errors.hpp"

namespace radial {

const char* to_string(MissingPolicy policy) {
  switch (policy) {
    case MissingPolicy::Error:
      return "error";
    case MissingPolicy::DropRows:
      return "drop-rows";
    case MissingPolicy::Mean:
      return "mean";
    case MissingPolicy::Median:
      return "median";
    case MissingPolicy::Em:
      return "em";
  }
  return "error";
}

bool is_missing_marker(std::string_view text) {
  if (text.empty() || text == "?" || text == "NA") return true;
  if (text.size() != 3) return false;
  const auto lower = [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); };
  return lower(text[0]) == 'n' && lower(text[1]) == 'a' && lower(text[2]) == 'n';
}

std::vector<std::size_t> count_missing(const Matrix& inputs) {
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  std::vector<std::size_t> counts(d, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j) counts[j] += std::isnan(inputs(i, j)) ? 1 : 0;
  return counts;
}

std::size_t drop_missing_rows(Dataset& data) {
  const std::size_t n = data.rows(), d = data.features();
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < n; ++i) {
    bool complete = true;
    for (std::size_t j = 0; j < d && complete; ++j) complete = !std::isnan(data.inputs(i, j));
    if (complete) keep.push_back(i);
  }
  if (keep.size() == n) return 0;
  data = select_rows(data, keep);
  return n - keep.size();
}

Vector fit_imputation(const Matrix& inputs, MissingPolicy policy) {
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  Vector fill = Vector::from_shape({d});
  std::vector<double> observed;
  for (std::size_t j = 0; j < d; ++j) {
    observed.clear();
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isnan(inputs(i, j))) observed.push_back(inputs(i, j));
    if (observed.empty()) {
      fill(j) = 0.0;
      continue;
    }
    if (policy == MissingPolicy::Median) {
      // numpy.median: the middle value, or the mean of the two middle values.
      const std::size_t m = observed.size() / 2;
      std::nth_element(observed.begin(), observed.begin() + std::ptrdiff_t(m), observed.end());
      double median = observed[m];
      if (observed.size() % 2 == 0) {
        const double below =
            *std::max_element(observed.begin(), observed.begin() + std::ptrdiff_t(m));
        median = (below + median) / 2;
      }
      fill(j) = median;
    } else {
      double sum = 0.0;
      for (const double v : observed) sum += v;
      fill(j) = sum / double(observed.size());
    }
  }
  return fill;
}

bool has_missing(const Matrix& inputs) {
  const double* v = inputs.data();
  for (std::size_t i = 0, n = inputs.size(); i < n; ++i)
    if (std::isnan(v[i])) return true;
  return false;
}

Matrix mean_imputed(const Matrix& inputs) {
  Matrix out = inputs;
  if (has_missing(inputs)) impute(out, fit_imputation(inputs, MissingPolicy::Mean));
  return out;
}

void refuse_missing(const Matrix& inputs, const std::string& who) {
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j)
      if (std::isnan(inputs(i, j)))
        throw InputError(who + ": training row " + std::to_string(i + 1) +
                         " has a missing value in input " + std::to_string(j + 1) + ", and " +
                         who + " cannot treat missing values as missing; set [data] missing = "
                         "\"mean\" (or use a centre learner that does, as the mixture EM "
                         "learners do)");
}

void impute(Matrix& inputs, const Vector& fill) {
  if (fill.size() == 0) return;
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  if (fill.size() != d)
    throw ShapeError("impute: " + std::to_string(fill.size()) + " values for " + std::to_string(d) +
                     " columns");
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j)
      if (std::isnan(inputs(i, j))) inputs(i, j) = fill(j);
}

}  // namespace radial
