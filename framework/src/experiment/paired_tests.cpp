// Paired comparison of two pipelines over the same seeds and folds: the sign test (exact
// binomial, ties dropped) and the paired t test, both two-sided.
#include <algorithm>
#include <cmath>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "radial/core/errors.hpp"
#include "radial/experiment/results_table.hpp"

namespace radial {

PairedComparison compare_paired(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) {
    throw Error("compare_paired: " + std::to_string(a.size()) + " values against " +
                std::to_string(b.size()));
  }
  PairedComparison c;
  c.pairs = a.size();
  if (c.pairs == 0) return c;
  std::vector<double> d(c.pairs);
  for (std::size_t i = 0; i < c.pairs; ++i) {
    d[i] = b[i] - a[i];
    if (d[i] < 0) ++c.wins;        // b lower: b better
    else if (d[i] > 0) ++c.losses;
    else ++c.ties;
  }
  const double n = static_cast<double>(c.pairs);
  double sum = 0;
  for (double x : d) sum += x;
  c.mean_difference = sum / n;

  // Sign test: under H0 wins ~ Binomial(wins + losses, 1/2); the two-sided p doubles the
  // smaller tail (the distribution is symmetric), capped at 1.
  const std::size_t decided = c.wins + c.losses;
  if (decided > 0) {
    const boost::math::binomial_distribution<double> binomial(static_cast<double>(decided), 0.5);
    const double k = static_cast<double>(std::min(c.wins, c.losses));
    c.sign_p = std::min(1.0, 2 * boost::math::cdf(binomial, k));
  }

  // Paired t: t = mean / (sd / sqrt(n)) with n - 1 degrees of freedom. Undefined for one pair
  // or identical differences: zero variance, or a spread at the level of rounding (0.2 - 0.1
  // and 0.3 - 0.2 differ in the last bit), which would give a meaningless huge t.
  double ss = 0, largest = 0;
  for (double x : d) {
    ss += (x - c.mean_difference) * (x - c.mean_difference);
    largest = std::max(largest, std::fabs(x));
  }
  const double sd = c.pairs >= 2 ? std::sqrt(ss / (n - 1)) : 0;
  if (c.pairs >= 2 && sd > 1e-12 * largest) {
    const double t = c.mean_difference / (sd / std::sqrt(n));
    const boost::math::students_t_distribution<double> student(n - 1);
    c.t_p = std::min(1.0, 2 * boost::math::cdf(boost::math::complement(student, std::fabs(t))));
  }
  return c;
}

}  // namespace radial
