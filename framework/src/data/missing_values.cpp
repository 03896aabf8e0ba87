#include "radial/data/missing_values.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include "radial/distributed/collectives.hpp"
#include "radial/distributed/sharded_pass.hpp"
#include "radial/core/errors.hpp"
#include "radial/numerics/mixture/mixture_em.hpp"

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

std::vector<std::uint64_t> observed_counts(const Matrix& inputs) {
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  const std::vector<std::size_t> missing = count_missing(inputs);
  std::vector<std::uint64_t> counts(d, 0);
  for (std::size_t j = 0; j < d; ++j) counts[j] = std::uint64_t(n - missing[j]);
  collectives().sum(counts.data(), d);
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

namespace {

// numpy.median of `observed` (not empty): the middle value, or the mean of the two middle values.
double median_of(std::vector<double>& observed) {
  const std::size_t m = observed.size() / 2;
  std::nth_element(observed.begin(), observed.begin() + std::ptrdiff_t(m), observed.end());
  double median = observed[m];
  if (observed.size() % 2 == 0) {
    const double below = *std::max_element(observed.begin(), observed.begin() + std::ptrdiff_t(m));
    median = (below + median) / 2;
  }
  return median;
}

// The median of each column over the rows of every rank of collectives() (see the header).
Vector median_over_ranks(const Matrix& inputs) {
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  Vector fill = Vector::from_shape({d});
  std::fill(fill.begin(), fill.end(), 0.0);
  Collectives& comm = collectives();
  std::vector<double> observed;
  for (std::size_t j = 0; j < d; ++j) {
    std::string mine;
    for (std::size_t i = 0; i < n; ++i) {
      const double v = inputs(i, j);
      if (std::isnan(v)) continue;
      char bytes[sizeof v];
      std::memcpy(bytes, &v, sizeof v);
      mine.append(bytes, sizeof v);
    }
    const std::vector<std::string> every = comm.all_gather(mine);
    mine.clear();
    mine.shrink_to_fit();
    observed.clear();
    for (const std::string& bytes : every) {
      const std::size_t at = observed.size(), count = bytes.size() / sizeof(double);
      observed.resize(at + count);
      if (count != 0) std::memcpy(observed.data() + at, bytes.data(), count * sizeof(double));
    }
    if (!observed.empty()) fill(j) = median_of(observed);
  }
  return fill;
}

}  // namespace

Vector fit_imputation(const Matrix& inputs, MissingPolicy policy) {
  // The mean: radial/numerics/missing_cells.hpp, which the numerics share.
  if (policy != MissingPolicy::Median) return observed_means(inputs);
  if (collectives().size() > 1) return median_over_ranks(inputs);
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  Vector fill = Vector::from_shape({d});
  std::vector<double> observed;
  for (std::size_t j = 0; j < d; ++j) {
    observed.clear();
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isnan(inputs(i, j))) observed.push_back(inputs(i, j));
    fill(j) = observed.empty() ? 0.0 : median_of(observed);
  }
  return fill;
}

void refuse_missing(const Matrix& inputs, const std::string& who) {
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  // Sharded: rows are numbered over all ranks, and every rank throws when one does (agreed).
  const bool sharded = collectives().size() > 1;
  const std::size_t first = sharded ? shard_layout(n).first : 0;
  const auto check = [&] {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < d; ++j)
        if (std::isnan(inputs(i, j)))
          throw InputError(who + ": training row " + std::to_string(first + i + 1) +
                           " has a missing value in input " + std::to_string(j + 1) + ", and " +
                           who + " cannot treat missing values as missing; set [data] missing = "
                           "\"mean\" (or use a centre learner that does, as the mixture EM "
                           "learners do)");
  };
  if (sharded)
    agreed(check);
  else
    check();
}

Centres fit_input_model(const Matrix& inputs, Shape shape) {
  if (shape != Shape::Diagonal && shape != Shape::Full)
    throw Error("fit_input_model: the input model is Diagonal or Full");
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  Centres model;
  const Vector mean = fit_imputation(inputs, MissingPolicy::Mean);
  model.means = Matrix::from_shape({1, d});
  for (std::size_t j = 0; j < d; ++j) model.means(0, j) = mean(j);
  // Per column, the observed count and the sum of squares about the mean, in row order and
  // continued rank after rank as fit_imputation's sums.
  const std::vector<std::uint64_t> count = observed_counts(inputs);
  std::vector<double> squares(d, 0.0);
  chain_over_ranks(squares, [&](std::vector<double>& total) {
    for (std::size_t j = 0; j < d; ++j)
      for (std::size_t i = 0; i < n; ++i)
        if (!std::isnan(inputs(i, j))) {
          const double e = inputs(i, j) - mean(j);
          total[j] += e * e;
        }
  });
  model.shape = Shape::Diagonal;
  model.diagonal = Matrix::from_shape({1, d});
  double mean_variance = 0;
  for (std::size_t j = 0; j < d; ++j) {
    model.diagonal(0, j) = count[j] != 0 ? squares[j] / double(count[j]) : 0.0;
    mean_variance += model.diagonal(0, j) / double(d == 0 ? 1 : d);
  }
  if (shape == Shape::Diagonal) return model;
  EmOptions options;
  options.shape = Shape::Full;
  options.covariance_floor = mean_variance > 0 ? 1e-3 * mean_variance : 1e-6;
  Centres start;
  start.means = model.means;
  start.shape = Shape::Full;
  start.covariances = Tensor3::from_shape({1, d, d});
  std::fill(start.covariances.begin(), start.covariances.end(), 0.0);
  for (std::size_t j = 0; j < d; ++j)
    start.covariances(0, j, j) = std::max(model.diagonal(0, j), options.covariance_floor);
  Vector weights = Vector::from_shape({1});
  weights(0) = 1.0;
  EmResult fit = em_mixture(inputs, std::move(start), std::move(weights), options);
  return std::move(fit.components);
}


}  // namespace radial
