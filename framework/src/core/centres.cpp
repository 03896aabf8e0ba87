// Consistency checks on centres, run before a basis or output uses them.
#include "radial/core/centres.hpp"

#include <cmath>
#include <string>

#include "radial/core/errors.hpp"
#include "radial/core/text.hpp"

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
             std::to_string(k) + " (" + text::number(means(j, k), 9) + ")");

  switch (shape) {
    case Shape::None: break;
    case Shape::Spherical:
      if (variances.size() != m)
        fail("spherical shape needs " + std::to_string(m) + " variances, found " +
             std::to_string(variances.size()));
      for (std::size_t j = 0; j < m; ++j)
        if (!positive(variances(j)))
          fail("centre " + std::to_string(j) + " has spherical variance " +
               text::number(variances(j), 9) + "; variances must be finite and > 0");
      break;
    case Shape::Diagonal:
      if (diagonal.dimension() != 2 || diagonal.shape(0) != m || diagonal.shape(1) != d)
        fail("diagonal shape needs an " + dims(m, d) + " matrix of variances");
      for (std::size_t j = 0; j < m; ++j)
        for (std::size_t k = 0; k < d; ++k)
          if (!positive(diagonal(j, k)))
            fail("centre " + std::to_string(j) + " has variance " +
                 text::number(diagonal(j, k), 9) + " in dimension " + std::to_string(k) +
                 "; variances must be finite and > 0");
      break;
    case Shape::Full:
      if (covariances.dimension() != 3 || covariances.shape(0) != m ||
          covariances.shape(1) != d || covariances.shape(2) != d)
        fail("full shape needs " + std::to_string(m) + " covariance matrices of " + dims(d, d));
      for (std::size_t j = 0; j < m; ++j)
        for (std::size_t a = 0; a < d; ++a) {
          if (!positive(covariances(j, a, a)))
            fail("centre " + std::to_string(j) + " has covariance diagonal entry " +
                 text::number(covariances(j, a, a), 9) + " at (" + std::to_string(a) + ", " +
                 std::to_string(a) + "); it must be finite and > 0");
          for (std::size_t b = 0; b < a; ++b) {
            const double x = covariances(j, a, b), y = covariances(j, b, a);
            const double scale = std::sqrt(covariances(j, a, a) * covariances(j, b, b));
            if (!(std::fabs(x - y) <= 1e-10 * scale))
              fail("the covariance of centre " + std::to_string(j) + " is not symmetric: (" +
                   std::to_string(a) + ", " + std::to_string(b) + ") = " + text::number(x, 9) +
                   " but (" + std::to_string(b) + ", " + std::to_string(a) +
                   ") = " + text::number(y, 9));
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
               text::number(w, 9) + "; weights must be finite and >= 0");
        sum += w;
      }
      if (!(std::fabs(sum - 1.0) <= 1e-6))
        fail("the mixing weights of class " + std::to_string(c) + " sum to " +
             text::number(sum, 9) + ", not 1 (tolerance 1e-6)");
    }
  }
  if (class_priors.size() != 0) {
    double sum = 0;
    for (std::size_t c = 0; c < class_priors.size(); ++c) {
      if (!(class_priors(c) >= 0) || !std::isfinite(class_priors(c)))
        fail("class prior " + std::to_string(c) + " is " + text::number(class_priors(c), 9) +
             "; priors must be finite and >= 0");
      sum += class_priors(c);
    }
    if (!(std::fabs(sum - 1.0) <= 1e-6))
      fail("the class priors sum to " + text::number(sum, 9) + ", not 1 (tolerance 1e-6)");
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

Centres select_centres(const Centres& c, const std::vector<std::size_t>& index) {
  const std::size_t m = index.size(), d = c.dim();
  Centres out;
  out.shape = c.shape;
  out.means = Matrix::from_shape({m, d});
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t j = 0; j < d; ++j) out.means(r, j) = c.means(index[r], j);
  if (c.variances.size()) {
    out.variances = Vector::from_shape({m});
    for (std::size_t r = 0; r < m; ++r) out.variances(r) = c.variances(index[r]);
  }
  if (c.diagonal.size()) {
    out.diagonal = Matrix::from_shape({m, d});
    for (std::size_t r = 0; r < m; ++r)
      for (std::size_t j = 0; j < d; ++j) out.diagonal(r, j) = c.diagonal(index[r], j);
  }
  if (c.covariances.size()) {
    out.covariances = Tensor3::from_shape({m, d, d});
    for (std::size_t r = 0; r < m; ++r)
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b) out.covariances(r, a, b) = c.covariances(index[r], a, b);
  }
  if (c.mixing.size()) {
    const std::size_t k = c.mixing.shape(1);
    out.mixing = Matrix::from_shape({m, k});
    for (std::size_t r = 0; r < m; ++r)
      for (std::size_t j = 0; j < k; ++j) out.mixing(r, j) = c.mixing(index[r], j);
  }
  if (c.owner.size()) {
    out.owner = Labels::from_shape({m});
    for (std::size_t r = 0; r < m; ++r) out.owner(r) = c.owner(index[r]);
  }
  out.class_priors = c.class_priors;
  return out;
}

}  // namespace radial
