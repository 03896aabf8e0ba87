// The brute-force E-step in parallel: counts bit-identical for threads = 1, 2, 3, 4, and equal
// to responsibilities computed row by row from the Gaussian densities written out here.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "radial/centres.hpp"
#include "radial/numerics/mixture_em.hpp"

namespace {

bool same_bits(const double* a, const double* b, std::size_t n) {
  return std::memcmp(a, b, n * sizeof(double)) == 0;
}

}  // namespace

TEST_CASE("the E-step gives bit-identical counts for any thread count", "[parallel]") {
  const std::size_t n = 3000, d = 3, m = 5;
  std::mt19937_64 rng(21);
  std::normal_distribution<double> g;
  radial::Matrix x = xt::empty<double>({n, d});
  for (auto& v : x) v = g(rng);
  for (radial::Shape shape : {radial::Shape::Diagonal, radial::Shape::Full}) {
    radial::Centres c;
    c.shape = shape;
    c.means = xt::empty<double>({m, d});
    for (auto& v : c.means) v = g(rng);
    radial::Matrix var = xt::empty<double>({m, d});
    for (auto& v : var) v = 0.5 + std::fabs(g(rng));
    if (shape == radial::Shape::Diagonal) {
      c.diagonal = var;
    } else {
      c.covariances = xt::zeros<double>({m, d, d});
      for (std::size_t j = 0; j < m; ++j)
        for (std::size_t a = 0; a < d; ++a) {
          c.covariances(j, a, a) = var(j, a);
          if (a > 0) c.covariances(j, a, a - 1) = c.covariances(j, a - 1, a) = 0.2;
        }
    }
    radial::Vector logw = xt::empty<double>({m});
    for (std::size_t j = 0; j < m; ++j) logw(j) = std::log((j + 1.0) / 15.0);

    radial::EStepOptions opt;
    opt.block_rows = 256;
    opt.threads = 1;
    radial::MixtureCounts one;
    const auto s1 = radial::e_step(x, c, logw, nullptr, opt, one);

    // Independent: diagonal densities row by row (the full case checks bit-identity only).
    if (shape == radial::Shape::Diagonal) {
      double ll = 0;
      std::vector<double> c1(m, 0.0);
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> lp(m);
        double mx = -INFINITY;
        for (std::size_t j = 0; j < m; ++j) {
          double q = 0, logdet = 0;
          for (std::size_t a = 0; a < d; ++a) {
            const double t = x(i, a) - c.means(j, a);
            q += t * t / var(j, a);
            logdet += std::log(var(j, a));
          }
          lp[j] = logw(j) - 0.5 * (q + logdet + double(d) * std::log(2 * M_PI));
          mx = std::max(mx, lp[j]);
        }
        double s = 0;
        for (double v : lp) s += std::exp(v - mx);
        ll += mx + std::log(s);
        for (std::size_t j = 0; j < m; ++j) c1[j] += std::exp(lp[j] - mx) / s;
      }
      CHECK(s1.log_likelihood == Approx(ll).epsilon(1e-10));
      for (std::size_t j = 0; j < m; ++j) CHECK(one.c1(j) == Approx(c1[j]).epsilon(1e-9));
    }

    for (int threads : {2, 3, 4}) {
      INFO("threads = " << threads);
      opt.threads = threads;
      radial::MixtureCounts other;
      const auto s = radial::e_step(x, c, logw, nullptr, opt, other);
      CHECK(std::memcmp(&s.log_likelihood, &s1.log_likelihood, sizeof(double)) == 0);
      CHECK(same_bits(one.c1.data(), other.c1.data(), m));
      CHECK(same_bits(one.cx.data(), other.cx.data(), m * d));
      if (shape == radial::Shape::Diagonal)
        CHECK(same_bits(one.scatter_diagonal.data(), other.scatter_diagonal.data(), m * d));
      else
        CHECK(same_bits(one.scatter.data(), other.scatter.data(), m * d * d));
      CHECK(same_bits(s1.row_log_likelihood.data(), s.row_log_likelihood.data(), n));
    }
  }
}
