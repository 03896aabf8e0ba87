#pragma once
// The sufficient statistics an E-step block adds to the mixture counts (mixture_em.hpp,
// MixtureCounts): C(1), C(x), C(x - m_j) and the scatter about each component's reference from
// one product of the block's features and responsibilities, and the class-split counts.
// Internal to the E-step (mixture_estep.cpp); the products are in mixture_estep_counts.cpp.

#include <cstddef>
#include <vector>

#include "radial/numerics/mixture/mixture_em.hpp"
#include "radial/core/types.hpp"

namespace radial::mixture_detail {

inline void add_to(double* to, const double* from, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) to[i] += from[i];
}

struct BlockScratch {
  std::vector<double> g;      // d: the shared shift (the block's column means, or the features')
  Matrix f;                   // rows x P: features of y = x - g
  Matrix stats;               // P x M: F^T R
  Matrix z, rz;               // class counts: [x, 1] and R with the rows grouped by class
  Matrix class_stats;         // (d + 1) x M
  std::vector<std::size_t> order, starts;
};

// counts += the statistics of responsibilities r (rows x M) over the block xb (rows x d), in one
// product for all components: G = F^T R with F the features of y = x - g, so C(1), C(y) and the
// scatter about g. F is the density's (`features`, about `feature_g`: SquaredDistances' Full
// quadratic form, g the mean of the centre means) or made here about the block's column means
// (shifted_features). Then each component's terms are moved to its reference m_j with
// e = m_j - g (exact algebra):
//   C(x - m_j) = C(y) - C(1) e,   S(m_j) = S(g) - e C(y)^T - C(y) e^T + C(1) e e^T.
// x - g is exact for data far from the origin (same binade), so only |m_j - g| / sigma_j can
// cancel, and a component whose shift would lose too much is summed directly (direct_block).
void accumulate_block(const Matrix& xb, const Matrix& r, const Matrix* features,
                      const double* feature_g, MixtureCounts& counts, BlockScratch& s);

// counts.class_c1 / class_cx += the block's responsibilities split by the rows' classes: the
// rows grouped by class, then one product [x, 1]^T R per class present. Row n of xb is data row
// index[n] (index null: first + n).
void accumulate_classes(const Matrix& xb, const Matrix& r, const Labels& classes, std::size_t first,
                        const std::size_t* index, MixtureCounts& counts, BlockScratch& s);

}  // namespace radial::mixture_detail
