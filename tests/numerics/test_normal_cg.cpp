// solve_normal_cg (radial/network/normal_cg.hpp): the weights equal the solution of the formed
// system (Phi^T Phi + H) W = Phi^T T - g by Gauss-Jordan elimination over a brute-force Phi
// (brute_force.hpp, nothing shared with the code under test) for a dense SPD H, a diagonal one
// and none, on both product paths (K <= 8 fused rows, K > 8 two GEMMs); the preconditioned
// iteration count stays within 2x from M = 100 to M = 5,000 centres while plain CG needs many
// times more; the iterates (and sketch_gram) are the same bits on 1 and 2 threads, and with Phi
// kept in single precision, cached or made again, they solve the rounded system; a zero
// target column gives W = 0 exactly; an iteration cap reports no convergence.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include <radial/network/design_matrix.hpp>
#include <radial/network/normal_cg.hpp>
#include <radial/exec/parallel.hpp>

#include "brute_force.hpp"

using namespace radial;

namespace {

// phi = exp(-r2 / (2 width^2)), the Euclidean squared distance r2.
class WidthGaussian : public Basis {
 public:
  explicit WidthGaussian(double width) : scale_(-0.5 / (width * width)) {}
  Metric metric() const override { return Metric::Euclidean; }
  void prepare(Centres&, FitContext&) override {}
  void map(Matrix& r2) const override {
    for (auto& v : r2) v = std::exp(scale_ * v);
  }
  double operator()(double r2) const { return std::exp(scale_ * r2); }
  State state() const override { return {}; }
  void load_state(const State&) override {}

 private:
  double scale_;
};

// exp(-r2 / 2) declared a Gaussian activation: the design's fused rows and single storage.
class UnitGaussian : public WidthGaussian {
 public:
  UnitGaussian() : WidthGaussian(1.0) {}
  bool gaussian_activation() const override { return true; }
};

// Phi = [phi(||x_n - c_j||^2), 1] by plain loops.
Matrix brute_design(const Matrix& x, const Centres& c, const WidthGaussian& basis) {
  const std::size_t n = x.shape(0), m = c.count(), d = x.shape(1);
  Matrix phi = xt::ones<double>({n, m + 1});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) {
      double r2 = 0;
      for (std::size_t a = 0; a < d; ++a) {
        const double diff = x(i, a) - c.means(j, a);
        r2 += diff * diff;
      }
      phi(i, j) = basis(r2);
    }
  return phi;
}

// The centres: `m` distinct rows of `x` drawn uniformly (FALKON's Nystrom centres).
Centres subset_centres(const Matrix& x, std::size_t m, std::mt19937_64& rng) {
  std::vector<std::size_t> index(x.shape(0));
  std::iota(index.begin(), index.end(), std::size_t(0));
  std::shuffle(index.begin(), index.end(), rng);
  Centres c;
  c.means = Matrix::from_shape({m, x.shape(1)});
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t a = 0; a < x.shape(1); ++a) c.means(j, a) = x(index[j], a);
  return c;
}

// A penalty quadratic with Hessian `h` (P x P, dense) and gradient `g` (P x 1; empty: 0).
ColumnQuadratic dense_quadratic(const Matrix& h, const Matrix& g) {
  ColumnQuadratic q;
  q.add_hessian = [h](Matrix& hessian) { hessian += h; };
  // By pointers: xtensor's element access unoptimised under the sanitizers cost a minute.
  q.add_product = [h](const Matrix& w, Matrix& out) {
    const std::size_t p = w.shape(0), k = w.shape(1);
    const double *hd = h.data(), *wd = w.data();
    double* od = out.data();
    for (std::size_t i = 0; i < out.shape(0); ++i)
      for (std::size_t c = 0; c < k; ++c) {
        double s = 0;
        for (std::size_t j = 0; j < p; ++j) s += hd[i * p + j] * wd[j * k + c];
        od[i * k + c] += s;
      }
  };
  q.gradient = g;
  return q;
}

// Weight decay alpha on the rows but the last (the bias), as the weight-decay plugin's default.
Matrix decay_hessian(std::size_t p, double alpha, bool include_bias = false) {
  Matrix h = xt::zeros<double>({p, p});
  for (std::size_t i = 0; i < (include_bias ? p : p - 1); ++i) h(i, i) = alpha;
  return h;
}

// W = (Phi^T Phi + H)^{-1} (Phi^T T - g) by plain loops and Gauss-Jordan elimination.
Matrix closed_form(const Matrix& phi, const Matrix& t, const Matrix& h, const Matrix& g) {
  const std::size_t n = phi.shape(0), p = phi.shape(1), k = t.shape(1);
  std::vector<std::vector<double>> a(p, std::vector<double>(p, 0.0));
  Matrix b = xt::zeros<double>({p, k});
  for (std::size_t i = 0; i < p; ++i) {
    for (std::size_t j = 0; j < p; ++j) {
      double s = h.size() ? h(i, j) : 0.0;
      for (std::size_t r = 0; r < n; ++r) s += phi(r, i) * phi(r, j);
      a[i][j] = s;
    }
    for (std::size_t c = 0; c < k; ++c) {
      double s = g.size() ? -g(i, 0) : 0.0;
      for (std::size_t r = 0; r < n; ++r) s += phi(r, i) * t(r, c);
      b(i, c) = s;
    }
  }
  const auto inv = test::inverse(a);
  Matrix w = xt::zeros<double>({p, k});
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t c = 0; c < k; ++c)
      for (std::size_t j = 0; j < p; ++j) w(i, c) += inv[i][j] * b(j, c);
  return w;
}

// max |a - b| / max |b|.
double relative_error(const Matrix& a, const Matrix& b) {
  REQUIRE(a.shape(0) == b.shape(0));
  REQUIRE(a.shape(1) == b.shape(1));
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a.data()[i] - b.data()[i]));
    scale = std::max(scale, std::abs(b.data()[i]));
  }
  return diff / scale;
}

// Three Gaussian clouds in d dimensions with 1-of-3 targets (rows x 3).
struct Clouds {
  Matrix x, t;
};

Clouds clouds(std::size_t n, std::size_t d, std::mt19937_64& rng) {
  Clouds out;
  out.x = Matrix::from_shape({n, d});
  out.t = xt::zeros<double>({n, std::size_t(3)});
  std::normal_distribution<double> normal(0.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = i % 3;
    for (std::size_t a = 0; a < d; ++a)
      out.x(i, a) = normal(rng) + (a == k ? 1.5 : 0.0);
    out.t(i, k) = 1.0;
  }
  return out;
}

struct Options {
  double tolerance = 1e-13;
  std::size_t max_iterations = 1000;
  bool precondition = true;
};

// solve_normal_cg on `x` with the centres' own design as the sketch (weight N / M).
NormalCgResult solve(const Matrix& x, const Centres& c, const WidthGaussian& basis,
                     const Matrix& t, const ColumnQuadratic& penalty, const Options& o,
                     std::size_t block_rows = 64, int threads = 1,
                     std::size_t cache_bytes = std::size_t(256) << 20) {
  DesignMatrix design(x, c, basis, false, cache_bytes, block_rows);
  design.set_threads(threads);
  DesignMatrix sketch(c.means, c, basis, false, 0, block_rows);
  sketch.set_threads(threads);
  NormalCgOptions options;
  options.tolerance = o.tolerance;
  options.max_iterations = o.max_iterations;
  options.precondition = o.precondition;
  options.sketch_weight = double(x.shape(0)) / double(c.count());
  return solve_normal_cg(design, t, o.precondition ? &sketch : nullptr, penalty, options);
}

}  // namespace

TEST_CASE("normal_cg equals the formed system's solution for any quadratic penalty",
          "[normal-cg]") {
  const SingleThreadedBlasScope blas;
  std::mt19937_64 rng(2017);
  const std::size_t n = 203, d = 3, m = 14, p = m + 1;
  const Matrix x = test::random_matrix(n, d, rng);
  const Centres c = subset_centres(x, m, rng);
  const WidthGaussian basis(1.0);
  const Matrix phi = brute_design(x, c, basis);

  // A dense SPD Hessian (0.5 (A A^T + 0.1 I)) with a gradient: a non-diagonal penalty.
  const auto spd = test::random_spd(p, rng);
  Matrix dense = Matrix::from_shape({p, p});
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t j = 0; j < p; ++j) dense(i, j) = 0.5 * spd[i][j];
  const Matrix gradient = test::random_matrix(p, 1, rng);
  struct Penalty {
    const char* name;
    Matrix h, g;
  };
  const std::vector<Penalty> penalties = {
      {"dense SPD H and g", dense, gradient},
      {"weight decay 0.01 (bias free)", decay_hessian(p, 0.01), Matrix()},
      {"weight decay 1 (bias included)", decay_hessian(p, 1.0, true), Matrix()},
      {"none", xt::zeros<double>({p, p}), Matrix()},
  };
  // K = 1 and 3 take the fused row products, K = 10 the two GEMMs per block.
  for (const std::size_t k : {std::size_t(1), std::size_t(3), std::size_t(10)}) {
    const Matrix t = test::random_matrix(n, k, rng);
    for (const auto& pen : penalties)
      for (const bool precondition : {true, false}) {
        INFO(pen.name << ", K = " << k << (precondition ? ", preconditioned" : ", plain CG"));
        const ColumnQuadratic q = pen.name == std::string("none")
                                      ? ColumnQuadratic{}
                                      : dense_quadratic(pen.h, pen.g);
        Options o;
        o.precondition = precondition;
        const NormalCgResult r = solve(x, c, basis, t, q, o);
        const Matrix want = closed_form(phi, t, pen.h, pen.g);
        INFO("iterations " << r.iterations << ", last residual " << r.residuals.back());
        CHECK(r.converged);
        CHECK(r.iterations <= 1000);
        CHECK(r.residuals.size() == r.iterations + 1);
        CHECK(r.residuals.front() == 1.0);
        CHECK(r.residuals.back() <= 1e-13);
        CHECK(relative_error(r.weights, want) <= 1e-8);
        if (precondition) CHECK(r.jitter >= 1e-12);
        else CHECK(r.jitter == 0.0);
      }
  }
}

TEST_CASE("normal_cg: a zero right-hand side column gives W = 0 exactly", "[normal-cg]") {
  const SingleThreadedBlasScope blas;
  std::mt19937_64 rng(7);
  const std::size_t n = 150, m = 10, p = m + 1;
  const Matrix x = test::random_matrix(n, 2, rng);
  const Centres c = subset_centres(x, m, rng);
  const WidthGaussian basis(1.0);
  const Matrix h = decay_hessian(p, 0.1);
  Matrix t = test::random_matrix(n, 3, rng);
  for (std::size_t i = 0; i < n; ++i) t(i, 1) = 0.0;
  const NormalCgResult r = solve(x, c, basis, t, dense_quadratic(h, Matrix()), Options{});
  CHECK(r.converged);
  for (std::size_t i = 0; i < p; ++i) {
    INFO("row " << i);
    CHECK(r.weights(i, 1) == 0.0);
  }
  // The other columns are solved as if alone.
  const Matrix want = closed_form(brute_design(x, c, basis), t, h, Matrix());
  CHECK(relative_error(r.weights, want) <= 1e-8);

  // Every column zero: no iteration, converged at once.
  const Matrix zeros = xt::zeros<double>({n, std::size_t(2)});
  const NormalCgResult none = solve(x, c, basis, zeros, dense_quadratic(h, Matrix()), Options{});
  CHECK(none.converged);
  CHECK(none.iterations == 0);
  CHECK(none.residuals == std::vector<double>{0.0});
  for (const double w : none.weights) CHECK(w == 0.0);
}

TEST_CASE("normal_cg reports an iteration cap as not converged", "[normal-cg]") {
  const SingleThreadedBlasScope blas;
  std::mt19937_64 rng(8);
  const std::size_t n = 300, m = 40;
  const Matrix x = test::random_matrix(n, 3, rng);
  const Centres c = subset_centres(x, m, rng);
  const WidthGaussian basis(1.0);
  const Matrix t = test::random_matrix(n, 2, rng);
  Options o;
  o.max_iterations = 1;
  const NormalCgResult r =
      solve(x, c, basis, t, dense_quadratic(decay_hessian(m + 1, 1e-3), Matrix()), o);
  CHECK_FALSE(r.converged);
  CHECK(r.iterations == 1);
  REQUIRE(r.residuals.size() == 2);
  // (CG lowers the error in the system's norm; the residual may rise after one step.)
  CHECK(r.residuals[1] > 1e-13);
  CHECK(std::isfinite(r.residuals[1]));
  CHECK(r.weights.shape(0) == m + 1);
}

TEST_CASE("normal_cg: the same bits on 1 and 2 threads", "[normal-cg][threads]") {
  // M = 300: the sketch's Gram matrix comes in two panels of columns, one per thread.
  const SingleThreadedBlasScope blas;
  std::mt19937_64 rng(9);
  const std::size_t n = 1000;
  const Matrix x = test::random_matrix(n, 4, rng);
  const WidthGaussian basis(1.5);
  for (const std::size_t m : {std::size_t(60), std::size_t(300)}) {
    const Centres c = subset_centres(x, m, rng);
    const Matrix h = decay_hessian(m + 1, 1e-2);
    for (const std::size_t k : {std::size_t(3), std::size_t(10)})
      for (const std::size_t cache : {std::size_t(0), std::size_t(256) << 20}) {
        INFO("M = " << m << ", K = " << k << ", cache " << cache);
        const Matrix t = test::random_matrix(n, k, rng);
        Options o;
        o.tolerance = 1e-10;
        const NormalCgResult one =
            solve(x, c, basis, t, dense_quadratic(h, Matrix()), o, 32, 1, cache);
        const NormalCgResult two =
            solve(x, c, basis, t, dense_quadratic(h, Matrix()), o, 32, 2, cache);
        CHECK(one.converged);
        CHECK(two.iterations == one.iterations);
        CHECK(two.residuals == one.residuals);
        CHECK(two.jitter == one.jitter);
        REQUIRE(two.weights.size() == one.weights.size());
        CHECK(std::equal(one.weights.begin(), one.weights.end(), two.weights.begin()));
      }
    // sketch_gram itself: the same bits on both, and Phi^T Phi by plain loops.
    DesignMatrix sketch(c.means, c, basis, false, 0, 64);
    const Matrix gram_one = sketch_gram(sketch);
    sketch.set_threads(2);
    const Matrix gram_two = sketch_gram(sketch);
    CHECK(std::equal(gram_one.begin(), gram_one.end(), gram_two.begin()));
    const Matrix phi = brute_design(c.means, c, basis);
    Matrix want = xt::zeros<double>({m + 1, m + 1});
    const double* rows = phi.data();  // by pointers, as dense_quadratic's product
    for (std::size_t i = 0; i <= m; ++i)
      for (std::size_t j = 0; j <= m; ++j) {
        double s = 0;
        for (std::size_t r = 0; r < m; ++r) s += rows[r * (m + 1) + i] * rows[r * (m + 1) + j];
        want(i, j) = s;
      }
    CHECK(relative_error(gram_two, want) <= 1e-12);
    for (std::size_t i = 0; i <= m; ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (gram_two(i, j) != gram_two(j, i)) FAIL_CHECK("not symmetric at " << i << ", " << j);
  }
}

TEST_CASE("normal_cg: the preconditioned iteration count is flat in M, plain CG's is not",
          "[normal-cg][preconditioner]") {
  // One fixed problem: 20,000 rows of three 4-d unit clouds, 1-of-3 targets, Gaussian width 2,
  // weight decay 50 on the basis weights; M = 100 .. 5,000 uniformly drawn training rows as
  // centres, at most a quarter of the rows (with M near N the sketch is the data and the count
  // drops to a few for that reason alone). The count at a fixed tolerance must stay within 2x
  // while plain CG on the same system needs many more (what makes this test able to fail).
  // Measured (AVX2, 2 threads): 11 10 8 6 6 preconditioned; 54 plain at M = 1000. The count falls
  // as M grows (the centres' quadrature of Phi^T Phi improves); where M = 100 is too few for
  // the width and alpha it falls further: width 1, alpha 1 on 6,000 rows gave 32 25 15 10.
  const SingleThreadedBlasScope blas;
  std::mt19937_64 rng(45);
  const std::size_t n = 20000;
  const Clouds data = clouds(n, 4, rng);
  const WidthGaussian basis(2.0);
  const double alpha = 50;
  Options o;
  o.tolerance = 1e-6;
  o.max_iterations = 500;
  const auto run = [&](std::size_t m, const Options& options) {
    std::mt19937_64 draw(m);
    const Centres c = subset_centres(data.x, m, draw);
    return solve(data.x, c, basis, data.t,
                 dense_quadratic(decay_hessian(m + 1, alpha), Matrix()), options, 256, 2,
                 std::size_t(1) << 30);
  };
  std::vector<std::size_t> counts;
  std::size_t at_1000 = 0;
  for (const std::size_t m : {100, 300, 1000, 3000, 5000}) {
    const NormalCgResult r = run(m, o);
    WARN("M = " << m << ": " << r.iterations << " preconditioned iterations (jitter "
                << r.jitter << ", preconditioner " << r.preconditioner_seconds << " s)");
    CHECK(r.converged);
    counts.push_back(r.iterations);
    if (m == 1000) at_1000 = r.iterations;
  }
  const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
  INFO("iterations from " << *lo << " to " << *hi);
  CHECK(*lo > 0);
  CHECK(double(*hi) <= 2.0 * double(*lo));

  o.precondition = false;
  o.max_iterations = 20 * at_1000;
  const NormalCgResult plain = run(1000, o);
  WARN("M = 1000: " << plain.iterations << " plain CG iterations"
                    << (plain.converged ? "" : " (not converged)") << " against " << at_1000
                    << " preconditioned");
  CHECK(plain.iterations >= 4 * at_1000);
}

TEST_CASE("normal_cg on a design kept in single precision solves the rounded system, the same "
          "bits cached or made again, on 1 and 2 threads",
          "[normal-cg][threads]") {
  const SingleThreadedBlasScope blas;
  std::mt19937_64 rng(24);
  const std::size_t n = 700, m = 90, k = 3;
  const Matrix x = test::random_matrix(n, 4, rng);
  const Centres c = subset_centres(x, m, rng);
  const UnitGaussian basis;
  const Matrix h = decay_hessian(m + 1, 1e-2);
  const Matrix t = test::random_matrix(n, k, rng);
  const auto run = [&](std::size_t cache, int threads) {
    DesignMatrix design(x, c, basis, false, cache, 64);
    design.set_threads(threads);
    REQUIRE(design.use_single_storage());
    DesignMatrix sketch(c.means, c, basis, false, 0, 64);
    sketch.set_threads(threads);
    NormalCgOptions options;
    options.tolerance = 1e-11;
    options.sketch_weight = double(n) / double(m);
    NormalCgResult r = solve_normal_cg(design, t, &sketch, dense_quadratic(h, Matrix()), options);
    CHECK(design.cached() == (cache != 0));
    CHECK(design.fused_normal_products() == (cache != 0));  // the floats, once cached
    return r;
  };
  const NormalCgResult base = run(std::size_t(256) << 20, 1);
  CHECK(base.converged);
  for (const std::size_t cache : {std::size_t(0), std::size_t(256) << 20})
    for (const int threads : {1, 2}) {
      INFO("cache " << cache << ", threads " << threads);
      const NormalCgResult r = run(cache, threads);
      CHECK(r.iterations == base.iterations);
      CHECK(r.residuals == base.residuals);
      CHECK(std::equal(r.weights.begin(), r.weights.end(), base.weights.begin()));
    }
  // The right-hand side comes from the same rounded blocks: (Phi_f^T Phi_f + H) W = Phi_f^T T,
  // Phi_f the brute-force design with each activation rounded to float.
  Matrix rounded = brute_design(x, c, basis);
  for (double& v : rounded) v = double(float(v));
  const Matrix want = closed_form(rounded, t, h, Matrix());
  CHECK(relative_error(base.weights, want) <= 1e-8);
  // and not the double system's solution to that accuracy (the rounding is seen).
  CHECK(relative_error(base.weights, closed_form(brute_design(x, c, basis), t, h, Matrix())) >
        1e-8);
}
