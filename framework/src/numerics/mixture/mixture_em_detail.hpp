#pragma once
// Helpers shared by the E-step, M-step and driver files of the mixture EM (mixture_em.hpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "radial/core/centres.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/numerics/log_sum_exp.hpp"
#include "radial/numerics/mixture/mixture_em.hpp"
#include "radial/core/text.hpp"
#include "radial/core/types.hpp"

namespace radial::mixture_detail {

constexpr double minus_inf = -std::numeric_limits<double>::infinity();

using text::number;

inline void copy_rows(const Matrix& x, std::size_t first, std::size_t rows, Matrix& block) {
  const std::size_t d = x.shape(1);
  if (block.shape(0) != rows || block.shape(1) != d) block.resize({rows, d});
  std::memcpy(block.data(), x.data() + first * d, rows * d * sizeof(double));
}

inline Vector log_of(const Vector& w) {
  Vector l = w;
  for (std::size_t j = 0; j < l.size(); ++j) l(j) = log_or_minus_inf(w(j));
  return l;
}

inline void check_inputs(const Matrix& x, const Centres& components, std::size_t weights,
                         const char* who) {
  if (components.shape == Shape::None)
    throw ShapeError(std::string(who) + ": the mixture components have no shape");
  if (x.dimension() != 2 || x.shape(1) != components.dim())
    throw ShapeError(std::string(who) + ": the data have " + std::to_string(x.shape(1)) +
                     " columns but the components " + std::to_string(components.dim()));
  if (weights != components.count())
    throw ShapeError(std::string(who) + ": " + std::to_string(weights) + " weights for " +
                     std::to_string(components.count()) + " components");
}

// The arrays of a MixtureCounts (empty ones included), for summing them over ranks in one
// message.
inline std::vector<std::pair<double*, std::size_t>> count_arrays(MixtureCounts& c) {
  return {{c.c1.data(), c.c1.size()},
          {c.cx.data(), c.cx.size()},
          {c.cy.data(), c.cy.size()},
          {c.scatter_diagonal.data(), c.scatter_diagonal.size()},
          {c.scatter.data(), c.scatter.size()},
          {c.class_c1.data(), c.class_c1.size()},
          {c.class_cx.data(), c.class_cx.size()}};
}

// Sums `arrays` (and `extra`, appended) over the ranks of collectives() in one message.
inline void sum_arrays_over_ranks(const std::vector<std::pair<double*, std::size_t>>& arrays,
                                  std::vector<double>& extra) {
  if (collectives().size() == 1) return;
  std::vector<double> packed;
  for (const auto& [data, size] : arrays) packed.insert(packed.end(), data, data + size);
  packed.insert(packed.end(), extra.begin(), extra.end());
  sum_over_ranks(packed);
  std::size_t at = 0;
  for (const auto& [data, size] : arrays) {
    const auto from = packed.begin() + std::ptrdiff_t(at);
    std::copy(from, from + std::ptrdiff_t(size), data);
    at += size;
  }
  std::copy(packed.begin() + std::ptrdiff_t(at), packed.end(), extra.begin());
}

// counts += r * statistics of one row x for component j (scatter about counts.reference).
inline void accumulate_one(const double* x, std::size_t j, double r, MixtureCounts& counts,
                           std::size_t d) {
  counts.c1(j) += r;
  double* cx = &counts.cx(j, 0);
  for (std::size_t k = 0; k < d; ++k) cx[k] += r * x[k];
  const double* ref = &counts.reference(j, 0);
  double* cy = &counts.cy(j, 0);
  for (std::size_t k = 0; k < d; ++k) cy[k] += r * (x[k] - ref[k]);
  if (counts.shape == Shape::Full) {
    double* s = &counts.scatter(j, 0, 0);
    for (std::size_t a = 0; a < d; ++a) {
      const double da = r * (x[a] - ref[a]);
      for (std::size_t b = 0; b < d; ++b) s[a * d + b] += da * (x[b] - ref[b]);
    }
  } else {
    double* s = &counts.scatter_diagonal(j, 0);
    for (std::size_t k = 0; k < d; ++k) {
      const double e = x[k] - ref[k];
      s[k] += r * e * e;
    }
  }
}

// The variance of component j in dimension k (shape-aware), for averaging.
inline double variance_of(const Centres& c, std::size_t j, std::size_t k) {
  switch (c.shape) {
    case Shape::Spherical: return c.variances(j);
    case Shape::Diagonal: return c.diagonal(j, k);
    case Shape::Full: return c.covariances(j, k, k);
    case Shape::None: break;
  }
  return 1.0;
}

// Sets component j's shape to the diagonal variances v (d values).
inline void set_variances(Centres& c, std::size_t j, const std::vector<double>& v) {
  const std::size_t d = c.dim();
  switch (c.shape) {
    case Shape::Spherical:
      c.variances(j) = std::accumulate(v.begin(), v.end(), 0.0) / double(d);
      break;
    case Shape::Diagonal:
      for (std::size_t k = 0; k < d; ++k) c.diagonal(j, k) = v[k];
      break;
    case Shape::Full:
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b) c.covariances(j, a, b) = a == b ? v[a] : 0.0;
      break;
    case Shape::None: break;
  }
}

inline void allocate_shape(Centres& c, std::size_t m, std::size_t d, Shape shape) {
  c.shape = shape;
  c.means = Matrix::from_shape({m, d});
  c.variances = Vector();
  c.diagonal = Matrix();
  c.covariances = Tensor3();
  if (shape == Shape::Spherical) c.variances = Vector::from_shape({m});
  if (shape == Shape::Diagonal) c.diagonal = Matrix::from_shape({m, d});
  if (shape == Shape::Full) c.covariances = Tensor3::from_shape({m, d, d});
}

}  // namespace radial::mixture_detail
