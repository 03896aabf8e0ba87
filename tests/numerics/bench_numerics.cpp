// Throughput of the numerics kernels, for the figures quoted in reports (not a test):
//   cmake --build <build> --target bench-numerics && OPENBLAS_NUM_THREADS=1 <build>/bin/bench-numerics
// Prints best-of-3 times, and distances as a fraction of a raw GEMM of the same shape measured
// in the same run (so machine load affects both alike).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <xtensor-blas/xblas.hpp>

#include <radial/network/design_matrix.hpp>
#include <radial/numerics/distances.hpp>
#include <radial/numerics/vector_math.hpp>

using namespace radial;
using Clock = std::chrono::steady_clock;

namespace {

template <class F>
double best_of_3(F&& f) {
  double best = 1e300;
  for (int rep = 0; rep < 3; ++rep) {
    const auto start = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

// exp(-r^2 / 2) with the framework's vector exp, as the gaussian plugin does.
class ExpBasis : public Basis {
 public:
  Metric metric() const override { return Metric::Euclidean; }
  void prepare(Centres&, FitContext&) override {}
  void map(Matrix& r2) const override {
    for (auto& v : r2) v *= -0.5;
    exp_in_place(r2);
  }
  State state() const override { return {}; }
  void load_state(const State&) override {}
};

}  // namespace

int main() {
  const std::size_t n = 50000, d = 16, m = 256, block = 1024;
  std::mt19937_64 rng(1);
  std::normal_distribution<double> normal;
  Matrix x = Matrix::from_shape({n, d});
  for (auto& v : x) v = normal(rng);
  Centres centres;
  centres.means = Matrix::from_shape({m, d});
  for (auto& v : centres.means) v = normal(rng);

  // Raw GEMM of one distance block, as the reference speed.
  Matrix xb = Matrix::from_shape({block, d});
  std::copy_n(x.data(), block * d, xb.data());
  Matrix out = Matrix::from_shape({block, m});
  const std::size_t blocks = n / block;
  const double gemm_seconds = best_of_3([&] {
    for (std::size_t b = 0; b < blocks; ++b) xt::blas::gemm(xb, centres.means, out, false, true);
  });
  const double gemm_rate = 2.0 * blocks * block * m * d / gemm_seconds;
  std::printf("raw gemm %zux%zux%zu: %.2f GFLOP/s\n", block, d, m, gemm_rate * 1e-9);

  for (Shape shape : {Shape::None, Shape::Diagonal, Shape::Full}) {
    Centres c = centres;
    c.shape = shape;
    if (shape == Shape::Diagonal) c.diagonal = xt::ones<double>({m, d});
    if (shape == Shape::Full) {
      c.covariances = Tensor3::from_shape({m, d, d});
      c.covariances.fill(0.2);
      for (std::size_t j = 0; j < m; ++j)
        for (std::size_t k = 0; k < d; ++k) c.covariances(j, k, k) = 1.0;
    }
    const SquaredDistances distances(c, shape == Shape::None ? Metric::Euclidean : Metric::Shape);
    Matrix r2;
    const double seconds = best_of_3([&] {
      for (std::size_t b = 0; b < blocks; ++b) distances.compute(xb, r2);
    });
    // GEMM flops: 2 N M d (Euclidean), 4 N M d (diagonal: two GEMMs), 2 N M d^2 (whitening).
    const double flops = (shape == Shape::Full ? 2.0 * d : shape == Shape::Diagonal ? 4.0 : 2.0) *
                         blocks * block * m * d;
    std::printf("distances %-9s: %.3f s, %.2f GFLOP/s = %.0f%% of the raw gemm rate\n",
                to_string(shape), seconds, flops / seconds * 1e-9,
                100.0 * flops / seconds / gemm_rate);
  }

  std::vector<double> values(std::size_t(1) << 20), copy;
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = -20.0 * double(i) / values.size();
  double sink = 0;
  const double scalar = best_of_3([&] {
    copy = values;
    for (auto& v : copy) v = std::exp(v);
    sink += copy[1];
  });
  const double vector = best_of_3([&] {
    copy = values;
    exp_in_place(copy.data(), copy.size());
    sink += copy[1];
  });
  const double portable = best_of_3([&] {
    copy = values;
    exp_in_place_xsimd(copy.data(), copy.size());
    sink += copy[1];
  });
  std::printf("exp over 2^20 doubles: std::exp %.2f ns, exp_in_place (%s) %.2f ns, xsimd %.2f ns "
              "per element\n", scalar / values.size() * 1e9, vector_math_kernel(),
              vector / values.size() * 1e9, portable / values.size() * 1e9);

  // The E-step's softmax (k = 64 components, blocks of 1024 rows of log densities, each row
  // with its log weights), every kernel this CPU runs, best of 3 over 16 blocks.
  {
    const std::size_t rows = 1024, k = 64;
    std::normal_distribution<double> spread(-100.0, 30.0);
    std::vector<double> logn(rows * k), out(rows * k), log_w(k, -std::log(double(k))), lse(rows);
    for (auto& v : logn) v = spread(rng);
    std::vector<const double*> terms(rows, log_w.data());
    for (const ExpNormaliseKernel& kernel : exp_normalise_kernels()) {
      const double t = best_of_3([&] {
        for (int b = 0; b < 16; ++b)
          kernel.run(out.data(), rows, k, logn.data(), nullptr, terms.data(), lse.data());
        sink += out[1];
      });
      std::printf("E-step softmax, %zu x %zu, kernel %s: %.2f ns per value\n", rows, k,
                  kernel.name, t / (16.0 * rows * k) * 1e9);
    }
  }

  ExpBasis basis;
  const DesignMatrix phi(x, centres, basis, false, 0, block);
  const double design = best_of_3([&] {
    phi.for_each_block([&](std::size_t, const Matrix& b) { sink += b(0, 0); });
  });
  std::printf("Gaussian design matrix %zu x %zu (d = %zu), one uncached pass: %.3f s = %.2f ns per "
              "entry\n", n, m + 1, d, design, design / (double(n) * m) * 1e9);
  return std::isfinite(sink) ? 0 : 1;
}
