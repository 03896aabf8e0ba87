// Phi^T Phi and Phi^T T in one ordered pass (radial/network/gram_products.hpp).
#include "radial/network/gram_products.hpp"

#include <algorithm>
#include <exception>

#include <xtensor-blas/xblas.hpp>

#include "radial/distributed/sharded_pass.hpp"
#include "radial/exec/heap_policy.hpp"
#include "radial/exec/parallel.hpp"
#include "radial/numerics/small_gemm.hpp"

namespace radial {

GramProducts gram_products(const DesignMatrix& design, const Matrix& t,
                           const std::function<void(std::size_t, const Matrix&)>& check,
                           std::vector<double>* extra) {
  using Index = xt::blas_index_t;
  const std::size_t p = design.cols(), k = t.shape(1);
  GramProducts out{advised_zeros(p, p), xt::zeros<double>({p, k})};
  std::exception_ptr failure;
  try {
    // A worker's block Gram is added to a zero upper triangle (beta = 1), which the combine
    // step zeroes again as it reads it: the same bits as beta = 0 without OpenBLAS's separate
    // scaling pass over C (dsyrk 2-3% faster at P = 1025, K = 1024).
    std::vector<GramProducts> part(
        worker_count(design.rows(), design.block_rows(), design.threads()),
        GramProducts{Matrix(), Matrix::from_shape({p, k})});
    for (GramProducts& g : part) g.gram = advised_zeros(p, p);
    design.reduce_blocks(
        [&](std::size_t w, std::size_t first, const Matrix& block) {
          if (check) check(first, block);
          const Index rows = Index(block.shape(0));
          if (small_gemm_beats_blas()) {
            small_gemm_upper_gram(block.data(), std::size_t(rows), p, p, part[w].gram.data(), p);
            small_gemm(p, k, std::size_t(rows), block.data(), 1, p, t.data() + first * k, k,
                       part[w].cross.data(), k, false);
            return;
          }
          cxxblas::syrk<Index>(cxxblas::RowMajor, cxxblas::Upper, cxxblas::Trans, Index(p), rows,
                               1.0, block.data(), Index(p), 1.0, part[w].gram.data(), Index(p));
          cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::Trans, cxxblas::NoTrans, Index(p),
                               Index(k), rows, 1.0, block.data(), Index(p), t.data() + first * k,
                               Index(k), 0.0, part[w].cross.data(), Index(k));
        },
        [&](std::size_t w, std::size_t) {
          for (std::size_t i = 0; i < p; ++i) {
            double* from = &part[w].gram(i, 0);
            double* to = &out.gram(i, 0);
            for (std::size_t j = i; j < p; ++j) {
              to[j] += from[j];
              from[j] = 0.0;
            }
          }
          out.cross += part[w].cross;
        });
  } catch (...) {
    failure = std::current_exception();
  }
  std::vector<double> packed;
  packed.reserve(out.gram.size() + out.cross.size() + (extra ? extra->size() : 0));
  advise_huge_pages(packed.data(), packed.capacity() * sizeof(double));
  packed.assign(out.gram.begin(), out.gram.end());
  packed.insert(packed.end(), out.cross.begin(), out.cross.end());
  if (extra) packed.insert(packed.end(), extra->begin(), extra->end());
  sum_pass_over_ranks(packed, failure);
  std::copy_n(packed.data(), out.gram.size(), out.gram.data());
  std::copy_n(packed.data() + out.gram.size(), out.cross.size(), out.cross.data());
  if (extra)
    std::copy_n(packed.data() + out.gram.size() + out.cross.size(), extra->size(),
                extra->data());
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t j = 0; j < i; ++j) out.gram(i, j) = out.gram(j, i);  // dsyrk's upper part
  return out;
}

}  // namespace radial
