#pragma once
// The design matrix Phi = [phi(x_n; c_1..c_M), 1] (N x (M+1), bias column last, as NETLAB),
// produced block by block so that it never has to fit in memory. Blocks are built by the GEMM
// identity for distances fused with the basis map while the block is in cache.

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "radial/network/basis.hpp"
#include "radial/core/centres.hpp"
#include "radial/core/types.hpp"

namespace radial {

class DesignMatrix {
 public:
  // `inputs`, `centres` and `basis` must outlive the DesignMatrix. With log_domain the blocks
  // hold log phi (basis.has_log_map() must be true) and no bias column: the design of a
  // prediction rule whose log_domain() is true (radial/network/prediction_rule.hpp).
  // Phi is kept in memory after the first pass when it needs at most `cache_bytes`.
  // Outside the log domain every block is finite: a non-finite activation throws DataError
  // naming its row and centre, so readers of the blocks need no check of their own.
  DesignMatrix(const Matrix& inputs, const Centres& centres, const Basis& basis,
               bool log_domain = false, std::size_t cache_bytes = std::size_t(256) << 20,
               std::size_t block_rows = 1024);
  ~DesignMatrix();
  DesignMatrix(const DesignMatrix&) = delete;
  DesignMatrix& operator=(const DesignMatrix&) = delete;

  // Rows with missing (NaN) inputs ([data] missing = "em"): with an input model (one Gaussian,
  // Diagonal or Full shape, in the inputs' coordinates: Model::input_model) and a basis whose
  // gaussian_activation() is true, phi is the expected activation over the missing inputs given
  // the observed ones (SquaredDistances::compute_expected); null (the default) keeps the
  // distance over the observed coordinates. `model` is prepared (copied) here; set it before
  // the first pass (the cache keeps the blocks of that pass). Rows without NaN never change.
  void set_input_model(const Centres* model);

  // The same design (inputs, centres, basis, input model, threads) in blocks of `block_rows`
  // rows with a cache of up to `cache_bytes`, sharing what this one refers to; its cache
  // starts empty. Passes whose
  // work per entry is small (conjugate gradient at thousands of centres) want blocks that stay
  // in cache between the basis map and their products.
  std::unique_ptr<DesignMatrix> reblocked(std::size_t block_rows, std::size_t cache_bytes) const;

  // Blocks made in single precision (radial/numerics/gaussian_rows.hpp, Precision::Single) from
  // this call on, when the basis takes the fused Gaussian path and the centres suit it; returns
  // whether they are. Activations are then within ~1e-6 relative, not to rounding: for passes
  // that need no more (a conjugate-gradient solve to a residual of 1e-4), on a design that is
  // made again every pass. Call before the first pass (the cache keeps that pass's blocks).
  bool use_single_precision();
  bool single_precision() const;

  // Activations kept in single precision: every block's values rounded to float as they are
  // made, and the cache, when it fits, holds the floats: half the memory, and half the bytes a
  // pass over the cache reads (conjugate gradient at tens of thousands of rows is bound by
  // them). The values are then within 2^-24 relative of the double ones; every pass sees the
  // same rounded values, cached or made again, so thread and rank counts keep the bits. For a
  // Gaussian activation without a polynomial term (values in [0, 1]); returns whether it was
  // taken. Call before the first pass. Once cached, fused_normal_products() is true and
  // add_normal_products() reads the floats.
  bool use_single_storage();
  bool single_storage() const;

  // Phi^T (Phi X) without a double-precision block, for a single-precision design (above)
  // whose blocks are made every pass: from this call on, add_normal_products() forms each block's
  // product from float activations (GaussianRows::add_normal_products) and the design is never
  // cached. Returns whether it can (single precision on an AVX-512 CPU); the choice must be the
  // same on every rank (it changes the rounding, not the values to ~1e-6).
  bool use_fused_normal_products();
  // qt (k x cols(), row-major) += (Phi_b^T (Phi_b X))^T for rows [first, first + count), X^T =
  // xt (k x cols()); k <= 4 fused (rows with a missing input through compute_block), more
  // through compute_block and normal_rows. Only after use_fused_normal_products(), or with
  // single storage once cached (then [first, first + count) is one of the blocks).
  void add_normal_products(std::size_t first, std::size_t count, const double* xt,
                           std::size_t k, double* qt) const;
  // Whether add_normal_products() serves a pass now (fused, or single storage once cached).
  bool fused_normal_products() const;

  std::size_t rows() const;
  std::size_t cols() const;        // M + 1 (M in the log domain); M + q with a polynomial term
                                   // (Basis::polynomial: its q - 1 monomials before the bias)
  // True once a complete pass has kept Phi in memory (it fits in cache_bytes): later passes
  // read it instead of making the blocks.
  bool cached() const;
  std::size_t block_rows() const;
  std::size_t block_count() const;

  // Row-block parallelism (radial/exec/parallel.hpp): blocks are computed by up to `threads`
  // workers (0 = all cores) while visit() still sees them one at a time in row order, so
  // results never depend on the setting. Default 1.
  void set_threads(int threads);
  int threads() const;

  // Calls visit(first_row, block) for consecutive blocks, in order, one call at a time (from
  // any of the workers when threads() > 1). `block` is (rows in block) x cols() and valid only
  // during the call.
  void for_each_block(const std::function<void(std::size_t, const Matrix&)>& visit) const;

  // Ordered reduction over the blocks: work(worker, first_row, block) runs on up to threads()
  // workers at once, then combine(worker, first_row) runs for the blocks in row order, one at
  // a time, before that worker's next block. worker < worker_count(rows(), block_rows(),
  // threads()). Per-worker partials combined in block order give the same bits for any
  // thread count.
  void reduce_blocks(
      const std::function<void(std::size_t worker, std::size_t first, const Matrix&)>& work,
      const std::function<void(std::size_t worker, std::size_t first)>& combine) const;

  // The whole N x cols() matrix (convenient for small problems and tests).
  Matrix materialise() const;

  // Computes one block (rows [first, first+count)) into `out`, resized as needed. The calling
  // thread keeps its input-row and distance buffers (one block's, two sizes) for its next call.
  void compute_block(std::size_t first, std::size_t count, Matrix& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace radial
