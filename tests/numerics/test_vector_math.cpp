// Vectorised exp / log against std::exp / std::log, for the kernel in use and for the portable
// xsimd kernel. Tolerance: 4 ulp relative (4 * 2^-52 ~ 8.9e-16); the kernels measured here are
// within 2 ulp, and a wrong polynomial or range reduction is off by far more.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <radial/numerics/vector_math.hpp>

using namespace radial;

namespace {

constexpr double tolerance = 4 * std::numeric_limits<double>::epsilon();
constexpr double inf = std::numeric_limits<double>::infinity();

using Kernel = void (*)(double*, std::size_t);

bool same(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want) || want == 0.0) return got == want;
  return std::fabs(got - want) <= tolerance * std::fabs(want);
}

void check(Kernel kernel, double (*reference)(double), const std::vector<double>& inputs) {
  std::vector<double> v = inputs;
  kernel(v.data(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    INFO("x = " << inputs[i] << " got " << v[i] << " want " << reference(inputs[i]));
    REQUIRE(same(v[i], reference(inputs[i])));
  }
}

double std_exp(double x) { return std::exp(x); }
double std_log(double x) { return std::log(x); }

}  // namespace

TEST_CASE("vector exp and log agree with std", "[vector-math]") {
  INFO("kernel in use: " << vector_math_kernel());
  std::mt19937_64 rng(123);
  std::uniform_real_distribution<double> exponent(-745.0, 709.0), magnitude(-700.0, 700.0);
  // 10007 values: a prime length exercises every scalar-tail length of the batches.
  std::vector<double> exp_inputs(10007), log_inputs(10007);
  for (auto& x : exp_inputs) x = exponent(rng);
  // The Gaussian basis's range, densely (every reduced argument r of the polynomial kernels).
  for (std::size_t i = 0; i < 4000; ++i) exp_inputs.push_back(-20.0 * double(i) / 4000.0);
  for (auto& x : log_inputs) x = std::exp(magnitude(rng));
  // Limits, subnormal results / arguments, and values around 1 (log's cancellation region).
  const std::vector<double> exp_special = {-inf, inf, std::nan(""), -800.0, 710.0, 0.0, -0.0,
                                           -708.5, -720.0, -740.0, -744.4, 1e-300, -1e-300,
                                           1.0, -1.0, 0.5, 700.0, -0.25, 708.99, 709.0,
                                           709.01, 709.7, -708.39, -708.4};
  const std::vector<double> log_special = {0.0, -0.0, -1.0, inf, -inf, std::nan(""), 1e-320,
                                           4.9e-324, 2.2e-308, 1.0, 1.0 + 1e-15, 1.0 - 1e-15,
                                           0.999, 1.001, 1e308, 2.0, 0.5, 3.0};
  for (auto kernel : {std::pair<Kernel, Kernel>{exp_in_place, log_in_place},
                      std::pair<Kernel, Kernel>{exp_in_place_xsimd, log_in_place_xsimd}}) {
    check(kernel.first, std_exp, exp_inputs);
    check(kernel.first, std_exp, exp_special);
    check(kernel.second, std_log, log_inputs);
    check(kernel.second, std_log, log_special);
  }
}

TEST_CASE("vector exp over matrices matches elementwise", "[vector-math]") {
  Matrix m = {{0.0, 1.0, -1.0}, {2.0, -3.5, 10.0}};
  const Matrix copy = m;
  exp_in_place(m);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j) REQUIRE(same(m(i, j), std::exp(copy(i, j))));
  log_in_place(m);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      REQUIRE(m(i, j) == Approx(copy(i, j)).epsilon(1e-15).margin(1e-15));
}

TEST_CASE("exp_normalise_rows is a capped softmax with log-sum-exp, row by row",
          "[vector-math]") {
  // Reference: std::exp, sums in long double. exp agrees to 4 ulp and the sum of up to 65 terms
  // adds rounding of ~65 ulp at most, so 1e-13 relative is a wide but still tight margin. Every
  // kernel this CPU can run, each with the terms read in place or from l plus per-row terms.
  std::mt19937_64 rng(17);
  std::normal_distribution<double> normal(0.0, 20.0);
  for (std::size_t m : {1, 2, 3, 4, 5, 7, 8, 9, 16, 64, 65})
    for (bool capped : {false, true})
      for (bool terms : {false, true})
        for (const ExpNormaliseKernel& kernel : exp_normalise_kernels()) {
          INFO("m " << m << " capped " << capped << " row terms " << terms << " kernel "
                    << kernel.name << " (in use: " << vector_math_kernel() << ")");
          const std::size_t rows = 6;
          std::vector<double> a(rows * m), cap(m), w(2 * m);
          for (auto& v : a) v = normal(rng) - 700.0;  // the maximum subtraction matters here
          for (auto& v : cap) v = normal(rng) - 700.0;
          for (auto& v : w) v = normal(rng);
          if (m > 2) {
            cap[1] = -inf;        // a component with zero weight
            a[2 * m + 0] = -inf;  // single -inf entries
            w[m + 2] = -inf;      // a zero weight in one row's terms
          }
          for (std::size_t j = 0; j < m; ++j) a[3 * m + j] = -inf;  // an all -inf row
          // Rows take the two weight vectors in turn (the class-weighted E-step's pattern).
          std::vector<const double*> row_terms(rows);
          for (std::size_t n = 0; n < rows; ++n) row_terms[n] = w.data() + (n % 2) * m;
          std::vector<double> got = terms ? std::vector<double>(rows * m, 7.0) : a, lse(rows);
          if (terms)
            kernel.run(got.data(), rows, m, a.data(), capped ? cap.data() : nullptr,
                       row_terms.data(), lse.data());
          else
            kernel.run(got.data(), rows, m, got.data(), capped ? cap.data() : nullptr, nullptr,
                       lse.data());
          for (std::size_t n = 0; n < rows; ++n) {
            std::vector<double> b(m);
            double mx = -inf;
            for (std::size_t j = 0; j < m; ++j) {
              b[j] = capped ? std::min(a[n * m + j], cap[j]) : a[n * m + j];
              if (terms) b[j] += row_terms[n][j];
              mx = std::max(mx, b[j]);
            }
            if (mx == -inf) {
              REQUIRE(lse[n] == -inf);
              for (std::size_t j = 0; j < m; ++j) REQUIRE(got[n * m + j] == 0.0);
              continue;
            }
            long double s = 0;
            for (std::size_t j = 0; j < m; ++j) s += std::exp((long double)(b[j] - mx));
            REQUIRE(lse[n] == Approx(double(mx + std::log(s))).epsilon(1e-15));
            for (std::size_t j = 0; j < m; ++j) {
              const double want = double(std::exp((long double)(b[j] - mx)) / s);
              REQUIRE(std::fabs(got[n * m + j] - want) <= 1e-13 * want + 1e-300);
            }
          }
        }
  // The in-place wrapper is the kernel in use.
  std::vector<double> x{1.0, 2.0, 3.0}, lse(1);
  exp_normalise_rows(x.data(), 1, 3, nullptr, lse.data());
  const long double s = std::exp(-2.0L) + std::exp(-1.0L) + 1.0L;
  REQUIRE(x[2] == Approx(double(1.0L / s)).epsilon(1e-15));
  REQUIRE(lse[0] == Approx(double(3.0L + std::log(s))).epsilon(1e-15));
}
