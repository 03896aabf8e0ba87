#include "radial/numerics/sample_statistics.hpp"

#include <cmath>

namespace radial {

double mean(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  double sum = 0;
  for (const double x : v) sum += x;
  return sum / double(v.size());
}

double sample_sd(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  const double m = mean(v);
  double squares = 0;
  for (const double x : v) squares += (x - m) * (x - m);
  return std::sqrt(squares / double(v.size() - 1));
}

}  // namespace radial
