// The design matrix Phi = [phi(x_n; c_1..c_M), p(x_n), 1] (p: a polynomial term's monomials,
// radial/core/polynomial_term.hpp, when the basis has one), block by block: distances by the GEMM
// identity, the basis map on the block while it is in cache, then the bias column (last, as
// NETLAB); for a Gaussian activation one fused pass (GaussianRows) makes the whole block. After
// one complete pass the blocks are kept when they fit in cache_bytes, so iterative output layers
// (IRLS, SCG, BFGS) pay for the basis once.
#include "radial/network/design_matrix.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/numerics/distances.hpp"
#include "radial/numerics/gaussian_rows.hpp"
#include "radial/numerics/normal_rows.hpp"
#include "radial/exec/heap_policy.hpp"
#include "radial/exec/parallel.hpp"

namespace radial {

namespace {

bool all_finite(const double* v, std::size_t count) {
  bool finite = true;
  for (std::size_t i = 0; i < count; ++i) finite &= v[i] - v[i] == 0;
  return finite;
}

// out resized to rows x cols, its pages advised huge when that took new memory (a design block
// of 1,024 rows at 1,864 centres: 15 MB).
void resize_advised(Matrix& out, std::size_t rows, std::size_t cols) {
  const double* before = out.data();
  out.resize({rows, cols});
  if (out.data() != before) advise_huge_pages(out.data(), out.size() * sizeof(double));
}

}  // namespace

struct DesignMatrix::Impl {
  Impl(const Matrix& x, const Centres& c, const Basis& b, bool log, std::size_t bytes,
       std::size_t rows)
      : inputs(x), centres(c), basis(b), log_domain(log), cache_bytes(bytes),
        block_rows(std::max<std::size_t>(1, rows)), distances(c, b.metric()),
        polynomial(log ? nullptr : b.polynomial()),
        extra(polynomial ? polynomial->columns(x.shape(1)) : 1) {
    if (!log && !polynomial && b.gaussian_activation() && GaussianRows::kernel() &&
        GaussianRows::supports(c, b.metric()))
      gaussian.emplace(c, b.metric());
  }

  const Matrix& inputs;
  const Centres& centres;
  const Centres* input_model_source = nullptr;  // as given to set_input_model
  const Basis& basis;
  bool log_domain;
  std::size_t cache_bytes;
  std::size_t block_rows;
  SquaredDistances distances;
  // The basis's polynomial term (outside the log domain): its q - 1 monomials sit between the
  // M activations and the bias column; `extra` = q columns after the activations (1: the bias).
  const PolynomialTerm* polynomial;
  std::size_t extra;
  // phi = exp(-r2 / 2) in one fused pass, for a basis with gaussian_activation() under
  // Euclidean or spherical distances, on CPUs with AVX2 or AVX-512; blocks with a missing or
  // non-finite input take the general path.
  std::optional<GaussianRows> gaussian;
  std::optional<InputModel> input_model;  // set_input_model
  int threads = 1;
  bool fused = false;   // use_fused_normal_products
  bool single = false;  // use_single_storage

  // Filled by the first complete pass that fits; read without the lock once `cached` is set.
  // Single storage keeps the floats in `single_cache` instead.
  std::mutex cache_mutex;
  std::atomic<bool> cached{false};
  std::vector<Matrix> cache;
  AdvisedFloats single_cache;  // the blocks in order, each block_rows x cols()
  float* single_block(std::size_t index) const {
    return single_cache.data() + index * block_rows * cols();
  }

  // A worker's buffers: one set for full blocks and one for the short last block, kept between
  // passes, so that no pass reallocates them (a fresh block of N x M doubles costs its page
  // faults, zeroed, on every pass).
  struct Buffers {
    Matrix x, r2, block;
  };
  struct WorkerBuffers {
    Buffers full, tail;
    Buffers& for_block(std::size_t count, std::size_t rows) { return count == rows ? full : tail; }
  };
  std::mutex buffers_mutex;
  std::vector<WorkerBuffers> kept;

  std::size_t rows() const { return inputs.shape(0); }
  std::size_t cols() const { return distances.count() + (log_domain ? 0 : extra); }
  std::size_t block_count() const { return (rows() + block_rows - 1) / block_rows; }
  bool fits() const {
    return double(rows()) * double(cols()) * double(single ? sizeof(float) : sizeof(double)) <=
           double(cache_bytes);
  }

  // One block into `out`, with the caller's buffers for the input rows and distances.
  // A basis value that overflowed (r^4 log r of inputs near 1e80) is the inputs' scale, not a
  // bug: a DataError (exit 2) naming where, with the remedy. Called when one was seen.
  [[noreturn]] void refuse_non_finite(const Matrix& phi, std::size_t first) const {
    const std::size_t m = phi.shape(1);
    std::size_t at = 0;
    while (phi.data()[at] - phi.data()[at] == 0) ++at;
    throw DataError("the basis gives the non-finite value " + std::to_string(phi.data()[at]) +
                    " at row " + std::to_string(first + at / m + 1) + ", centre " +
                    std::to_string(at % m) +
                    ": the inputs are too large for it; standardize them ([data] standardize = "
                    "true) or rescale the columns");
  }

  // Rows with missing (NaN) inputs (trained with [data] missing = "em"). A density basis gets
  // the squared distance over the observed coordinates under the marginal shapes plus the
  // marginal's normalising constant (Basis::density): phi is then the exact marginal
  // N(x_o | c_o, S_oo), the missing inputs integrated out (Ghahramani & Jordan 1994). A Gaussian
  // activation exp(-r^2/2) with an input model gets the r2 of its expectation over the missing
  // inputs given the observed ones (SquaredDistances::compute_expected; the Gaussian integral);
  // other bases are evaluated at the observed coordinates' Mahalanobis distance, as if each
  // missing input sat at the centre's. Rows without NaN keep the GEMM values.
  void observed_distances(const Matrix& x, Matrix& r2) const {
    const std::size_t n = x.shape(0), d = x.shape(1), m = distances.count();
    const bool density = basis.density();
    const bool expected = !density && input_model && basis.gaussian_activation();
    thread_local std::vector<double> log_det;
    log_det.resize(m);
    for (std::size_t row = 0; row < n; ++row) {
      const double* xr = &x(row, 0);
      std::size_t missing = 0;
      for (std::size_t k = 0; k < d; ++k) missing += std::isnan(xr[k]) ? 1 : 0;
      if (missing == 0) continue;
      double* r = &r2(row, 0);
      if (expected) {
        distances.compute_expected(xr, *input_model, r);
        continue;
      }
      distances.compute_observed(xr, r, log_det.data());
      if (!density) continue;
      const double shift = -double(missing) * std::log(2.0 * M_PI);
      const Vector& full = distances.log_determinants();
      for (std::size_t j = 0; j < m; ++j) r[j] += log_det[j] - full(j) + shift;
    }
  }

  // One block as single storage keeps it: each value rounded to float (values in [0, 1]).
  void compute(std::size_t first, std::size_t count, Matrix& x_buffer, Matrix& r2,
               Matrix& out) const {
    compute_values(first, count, x_buffer, r2, out);
    if (single)
      for (double& v : out) v = double(float(v));
  }

  void compute_values(std::size_t first, std::size_t count, Matrix& x_buffer, Matrix& r2,
                      Matrix& out) const {
    if (first > rows() || count > rows() - first)
      throw Error("DesignMatrix: rows [" + std::to_string(first) + ", " +
                  std::to_string(first + count) + ") are outside the " +
                  std::to_string(rows()) + " rows of the inputs");
    const std::size_t d = inputs.shape(1), m = distances.count();
    if (gaussian && all_finite(inputs.data() + first * d, count * d)) {
      resize_advised(out, count, m + 1);
      gaussian->compute(inputs.data() + first * d, count, out.data(), m + 1);
      for (std::size_t row = 0; row < count; ++row) out(row, m) = 1.0;  // bias column
      return;
    }
    const Matrix* x = &inputs;
    if (first != 0 || count != rows()) {
      x_buffer.resize({count, d});
      std::copy_n(inputs.data() + first * d, count * d, x_buffer.data());
      x = &x_buffer;
    }
    if (log_domain) {
      distances.compute(*x, out);
      observed_distances(*x, out);
      basis.log_map(out);
      return;
    }
    distances.compute(*x, r2);
    observed_distances(*x, r2);
    basis.map(r2);
    const std::size_t c = m + extra;
    resize_advised(out, count, c);
    bool bad = false;  // checked in the copy: no pass of its own
    for (std::size_t row = 0; row < count; ++row) {
      double* o = out.data() + row * c;
      const double* v = r2.data() + row * m;
      for (std::size_t j = 0; j < m; ++j) {
        o[j] = v[j];
        bad |= !(v[j] - v[j] == 0);
      }
      if (polynomial) {
        polynomial->evaluate(x->data() + row * d, d, o + m);
        bool missing = false;
        for (std::size_t i = m; i + 1 < c; ++i) missing |= !(o[i] - o[i] == 0);
        // A missing input has no monomial: refused, never a NaN column in the fit.
        if (missing)
          throw DataError("row " + std::to_string(first + row + 1) + " has a missing or "
                          "non-finite input, which the basis's polynomial term cannot take "
                          "(its monomials need every input); give [data] missing = \"mean\" or "
                          "\"median\", or basis.polynomial = -1");
      }
      o[c - 1] = 1.0;  // bias column
    }
    if (bad) refuse_non_finite(r2, first);
  }
};

DesignMatrix::DesignMatrix(const Matrix& inputs, const Centres& centres, const Basis& basis,
                           bool log_domain, std::size_t cache_bytes, std::size_t block_rows) {
  if (inputs.dimension() != 2 || centres.means.dimension() != 2 ||
      inputs.shape(1) != centres.dim())
    throw ShapeError("DesignMatrix: the inputs have " + std::to_string(inputs.shape(1)) +
                     " features but the centres have " + std::to_string(centres.dim()) +
                     " dimensions; give inputs with the features the centres were trained on");
  if (log_domain && !basis.has_log_map())
    throw InputError("DesignMatrix: the log-domain design matrix (log phi, read by rules such as "
                     "bayes) needs a basis "
                     "that is positive everywhere and provides log_map()");
  const PolynomialTerm* term = log_domain ? nullptr : basis.polynomial();
  if (term && term->shift().size() != inputs.shape(1))
    throw ShapeError("DesignMatrix: the basis's polynomial term of degree " +
                     std::to_string(term->degree()) + " was fitted on " +
                     std::to_string(term->shift().size()) + " inputs (its shift and scale come "
                     "from the centres in prepare() or load_state()), the inputs have " +
                     std::to_string(inputs.shape(1)));
  impl_ = std::make_unique<Impl>(inputs, centres, basis, log_domain, cache_bytes, block_rows);
}

DesignMatrix::~DesignMatrix() = default;

void DesignMatrix::set_input_model(const Centres* model) {
  impl_->input_model_source = model;
  if (model) impl_->input_model.emplace(*model);
  else impl_->input_model.reset();
}
std::unique_ptr<DesignMatrix> DesignMatrix::reblocked(std::size_t block_rows,
                                                     std::size_t cache_bytes) const {
  auto out = std::make_unique<DesignMatrix>(impl_->inputs, impl_->centres, impl_->basis,
                                            impl_->log_domain, cache_bytes, block_rows);
  out->set_input_model(impl_->input_model_source);
  out->set_threads(impl_->threads);
  return out;
}

bool DesignMatrix::use_single_precision() {
  Impl& s = *impl_;
  if (!s.gaussian || !GaussianRows::single_precision_suits(s.centres, s.basis.metric()))
    return false;
  s.gaussian.emplace(s.centres, s.basis.metric(), GaussianRows::kernel(),
                     GaussianRows::Precision::Single);
  return true;
}
bool DesignMatrix::single_precision() const {
  return impl_->gaussian && impl_->gaussian->single_precision();
}

bool DesignMatrix::use_fused_normal_products() {
  Impl& s = *impl_;
  const char* kernel = GaussianRows::kernel();
  if (!single_precision() || !kernel || std::strcmp(kernel, "avx512") != 0) return false;
  s.fused = true;
  s.cache_bytes = 0;  // never cached: each pass makes its blocks again
  return true;
}
bool DesignMatrix::fused_normal_products() const {
  return impl_->fused || (impl_->single && impl_->cached.load(std::memory_order_acquire));
}

bool DesignMatrix::use_single_storage() {
  Impl& s = *impl_;
  if (s.log_domain || s.polynomial || !s.basis.gaussian_activation()) return false;
  s.single = true;
  return true;
}
bool DesignMatrix::single_storage() const { return impl_->single; }

void DesignMatrix::add_normal_products(std::size_t first, std::size_t count, const double* xt,
                                       std::size_t k, double* qt) const {
  const Impl& s = *impl_;
  if (s.single && s.cached.load(std::memory_order_acquire)) {
    if (first % s.block_rows != 0 || count != std::min(s.block_rows, s.rows() - first))
      throw Error("DesignMatrix::add_normal_products: rows [" + std::to_string(first) + ", " +
                  std::to_string(first + count) + ") are not one of the cached blocks");
    if (k > normal_rows_max_outputs)
      throw Error("DesignMatrix::add_normal_products: " + std::to_string(k) +
                  " outputs, more than the row kernels take");
    normal_rows(s.single_block(first / s.block_rows), count, cols(), xt, k, qt);
    return;
  }
  if (!s.fused)
    throw Error("DesignMatrix::add_normal_products: call use_fused_normal_products(), or "
                "use_single_storage() and make a pass that caches the design");
  const std::size_t d = s.inputs.shape(1);
  const double* x = s.inputs.data() + first * d;
  if (k <= 4 && all_finite(x, count * d) && s.gaussian->add_normal_products(x, count, xt, k, qt))
    return;
  thread_local Matrix block;
  compute_block(first, count, block);
  normal_rows(block.data(), count, cols(), xt, k, qt);
}

std::size_t DesignMatrix::rows() const { return impl_->rows(); }
bool DesignMatrix::cached() const { return impl_->cached.load(); }
std::size_t DesignMatrix::cols() const { return impl_->cols(); }
std::size_t DesignMatrix::block_rows() const { return impl_->block_rows; }
std::size_t DesignMatrix::block_count() const { return impl_->block_count(); }
void DesignMatrix::set_threads(int threads) { impl_->threads = resolve_threads(threads); }
int DesignMatrix::threads() const { return impl_->threads; }

void DesignMatrix::for_each_block(
    const std::function<void(std::size_t, const Matrix&)>& visit) const {
  // A reduction whose work only notes the block: it stays valid until the worker's next block,
  // and the combine step, in row order, hands it to visit().
  std::vector<const Matrix*> current(worker_count(rows(), block_rows(), threads()), nullptr);
  reduce_blocks([&](std::size_t w, std::size_t, const Matrix& block) { current[w] = &block; },
                [&](std::size_t w, std::size_t first) { visit(first, *current[w]); });
}

void DesignMatrix::reduce_blocks(
    const std::function<void(std::size_t, std::size_t, const Matrix&)>& work,
    const std::function<void(std::size_t, std::size_t)>& combine) const {
  Impl& s = *impl_;
  const std::size_t n = s.rows(), blocks = s.block_count();
  const std::size_t workers = worker_count(n, s.block_rows, s.threads);
  auto done = [&](std::size_t w, const RowBlock& b) { combine(w, b.first); };
  if (s.cached.load(std::memory_order_acquire) && !s.single) {
    parallel_reduce_blocks(
        n, s.block_rows, s.threads,
        [&](std::size_t w, const RowBlock& b) { work(w, b.first, s.cache[b.index]); }, done);
    return;
  }
  // The kept buffers, unless another pass over this design holds them.
  std::unique_lock<std::mutex> keep(s.buffers_mutex, std::try_to_lock);
  std::vector<Impl::WorkerBuffers> local;
  std::vector<Impl::WorkerBuffers>& buffers = keep.owns_lock() ? s.kept : local;
  if (buffers.size() < workers) buffers.resize(workers);
  if (s.cached.load(std::memory_order_acquire)) {  // single storage: each block widened
    parallel_reduce_blocks(
        n, s.block_rows, s.threads,
        [&](std::size_t w, const RowBlock& b) {
          Matrix& block = buffers[w].for_block(b.count, s.block_rows).block;
          block.resize({b.count, s.cols()});
          std::copy_n(s.single_block(b.index), block.size(), block.begin());
          work(w, b.first, block);
        },
        done);
    return;
  }
  std::unique_lock<std::mutex> lock(s.cache_mutex, std::try_to_lock);
  if (lock.owns_lock() && s.fits() && !s.cached.load(std::memory_order_acquire)) {
    // First pass: keep every block; publish only once the pass has completed.
    if (s.single) s.single_cache = AdvisedFloats(n * s.cols());
    else s.cache.assign(blocks, Matrix());
    try {
      parallel_reduce_blocks(
          n, s.block_rows, s.threads,
          [&](std::size_t w, const RowBlock& b) {
            Impl::Buffers& buf = buffers[w].for_block(b.count, s.block_rows);
            if (s.single) {
              s.compute(b.first, b.count, buf.x, buf.r2, buf.block);
              std::copy(buf.block.begin(), buf.block.end(), s.single_block(b.index));
              work(w, b.first, buf.block);
              return;
            }
            s.compute(b.first, b.count, buf.x, buf.r2, s.cache[b.index]);
            work(w, b.first, s.cache[b.index]);
          },
          done);
    } catch (...) {
      s.cache.clear();
      s.single_cache = AdvisedFloats();
      throw;
    }
    s.cached.store(true, std::memory_order_release);
    return;
  }
  if (lock.owns_lock()) lock.unlock();
  parallel_reduce_blocks(
      n, s.block_rows, s.threads,
      [&](std::size_t w, const RowBlock& b) {
        Impl::Buffers& buf = buffers[w].for_block(b.count, s.block_rows);
        s.compute(b.first, b.count, buf.x, buf.r2, buf.block);
        work(w, b.first, buf.block);
      },
      done);
}

Matrix DesignMatrix::materialise() const {
  const std::size_t c = cols();
  Matrix phi = Matrix::from_shape({rows(), c});
  for_each_block([&](std::size_t first, const Matrix& block) {
    std::copy_n(block.data(), block.size(), phi.data() + first * c);
  });
  return phi;
}

void DesignMatrix::compute_block(std::size_t first, std::size_t count, Matrix& out) const {
  // The calling thread's buffers, kept for its next block (of any design).
  thread_local Impl::WorkerBuffers scratch;
  Impl::Buffers& buf = scratch.for_block(count, impl_->block_rows);
  impl_->compute(first, count, buf.x, buf.r2, out);
}

}  // namespace radial
