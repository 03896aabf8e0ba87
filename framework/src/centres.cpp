// Consistency checks on centres, run before a basis or output uses them.
#include "radial/centres.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "radial/errors.hpp"

namespace radial {

const char* to_string(Shape shape) {
  switch (shape) {
    case Shape::None: return "none";
    case Shape::Spherical: return "spherical";
    case Shape::Diagonal: return "diagonal";
    case Shape::Full: return "full";
  }
  return "unknown";
}

namespace {

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return buffer;
}

[[noreturn]] void fail(const std::string& what) { throw ShapeError("centres: " + what); }

std::string dims(std::size_t a, std::size_t b) {
  return std::to_string(a) + " x " + std::to_string(b);
}

bool positive(double v) { return v > 0 && std::isfinite(v); }

}  // namespace

void Centres::check() const {
  if (means.dimension() != 2) fail("means must be an M x d matrix");
  const std::size_t m = count(), d = dim();
  if (m == 0) fail("there are no centres (means has 0 rows)");
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t k = 0; k < d; ++k)
      if (!std::isfinite(means(j, k)))
        fail("centre " + std::to_string(j) + " has a non-finite mean in dimension " +
             std::to_string(k) + " (" + number(means(j, k)) + ")");

  switch (shape) {
    case Shape::None: break;
    case Shape::Spherical:
      if (variances.size() != m)
        fail("spherical shape needs " + std::to_string(m) + " variances, found " +
             std::to_string(variances.size()));
      for (std::size_t j = 0; j < m; ++j)
        if (!positive(variances(j)))
          fail("centre " + std::to_string(j) + " has spherical variance " + number(variances(j)) +
               "; variances must be finite and > 0");
      break;
    case Shape::Diagonal:
      if (diagonal.dimension() != 2 || diagonal.shape(0) != m || diagonal.shape(1) != d)
        fail("diagonal shape needs an " + dims(m, d) + " matrix of variances");
      for (std::size_t j = 0; j < m; ++j)
        for (std::size_t k = 0; k < d; ++k)
          if (!positive(diagonal(j, k)))
            fail("centre " + std::to_string(j) + " has variance " + number(diagonal(j, k)) +
                 " in dimension " + std::to_string(k) + "; variances must be finite and > 0");
      break;
    case Shape::Full:
      if (covariances.dimension() != 3 || covariances.shape(0) != m ||
          covariances.shape(1) != d || covariances.shape(2) != d)
        fail("full shape needs " + std::to_string(m) + " covariance matrices of " + dims(d, d));
      for (std::size_t j = 0; j < m; ++j)
        for (std::size_t a = 0; a < d; ++a) {
          if (!positive(covariances(j, a, a)))
            fail("centre " + std::to_string(j) + " has covariance diagonal entry " +
                 number(covariances(j, a, a)) + " at (" + std::to_string(a) + ", " +
                 std::to_string(a) + "); it must be finite and > 0");
          for (std::size_t b = 0; b < a; ++b) {
            const double x = covariances(j, a, b), y = covariances(j, b, a);
            const double scale = std::sqrt(covariances(j, a, a) * covariances(j, b, b));
            if (!(std::fabs(x - y) <= 1e-10 * scale))
              fail("the covariance of centre " + std::to_string(j) + " is not symmetric: (" +
                   std::to_string(a) + ", " + std::to_string(b) + ") = " + number(x) + " but (" +
                   std::to_string(b) + ", " + std::to_string(a) + ") = " + number(y));
          }
        }
      break;
  }

  std::size_t k_classes = class_priors.size();
  if (has_mixing()) {
    if (mixing.dimension() != 2 || mixing.shape(0) != m)
      fail("mixing weights must be an M x K matrix with M = " + std::to_string(m));
    const std::size_t k = mixing.shape(1);
    if (k_classes != 0 && k_classes != k)
      fail("mixing weights have " + std::to_string(k) + " classes but there are " +
           std::to_string(k_classes) + " class priors");
    k_classes = k;
    for (std::size_t c = 0; c < k; ++c) {
      double sum = 0;
      for (std::size_t j = 0; j < m; ++j) {
        const double w = mixing(j, c);
        if (!(w >= 0) || !std::isfinite(w))
          fail("mixing weight pi(" + std::to_string(j) + ", " + std::to_string(c) + ") = " +
               number(w) + "; weights must be finite and >= 0");
        sum += w;
      }
      if (!(std::fabs(sum - 1.0) <= 1e-6))
        fail("the mixing weights of class " + std::to_string(c) + " sum to " + number(sum) +
             ", not 1 (tolerance 1e-6)");
    }
  }
  if (class_priors.size() != 0) {
    double sum = 0;
    for (std::size_t c = 0; c < class_priors.size(); ++c) {
      if (!(class_priors(c) >= 0) || !std::isfinite(class_priors(c)))
        fail("class prior " + std::to_string(c) + " is " + number(class_priors(c)) +
             "; priors must be finite and >= 0");
      sum += class_priors(c);
    }
    if (!(std::fabs(sum - 1.0) <= 1e-6))
      fail("the class priors sum to " + number(sum) + ", not 1 (tolerance 1e-6)");
  }
  if (owner.size() != 0) {
    if (owner.size() != m)
      fail("owner classes must have one entry per centre (" + std::to_string(m) + "), found " +
           std::to_string(owner.size()));
    for (std::size_t j = 0; j < m; ++j) {
      const std::int64_t o = owner(j);
      if (o < -1 || (k_classes != 0 && o >= std::int64_t(k_classes)))
        fail("centre " + std::to_string(j) + " has owner class " + std::to_string(o) +
             "; owners are -1 (shared) or a class index below " +
             (k_classes ? std::to_string(k_classes) : std::string("K")));
    }
  }
}

}  // namespace radial
