// The E-steps in parallel (brute force, discriminative with and without the K-d tree, class
// weights): counts bit-identical for threads = 1, 2, 3, 4; the brute-force one also equal
// to responsibilities computed row by row from the Gaussian densities written out here.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "radial/core/centres.hpp"
#include "radial/numerics/kdtree.hpp"
#include "radial/numerics/mixture/mixture_em.hpp"

namespace {

bool same_bits(const double* a, const double* b, std::size_t n) {
  return std::memcmp(a, b, n * sizeof(double)) == 0;
}

// e_step again with opt.threads = 2, 3 and 4: the log-likelihood has the bits of `first` (the
// run on one thread), and check(counts, summary) compares the rest.
template <class Weights, class Groups, class Check>
void check_on_more_threads(const radial::Matrix& x, const radial::Centres& c, const Weights& log_w,
                           const Groups& groups, radial::EStepOptions& opt,
                           const radial::EStepSummary& first, Check check) {
  for (int threads : {2, 3, 4}) {
    INFO("threads = " << threads);
    opt.threads = threads;
    radial::MixtureCounts other;
    const radial::EStepSummary s = radial::e_step(x, c, log_w, groups, opt, other);
    CHECK(std::memcmp(&s.log_likelihood, &first.log_likelihood, sizeof(double)) == 0);
    check(other, s);
  }
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

    check_on_more_threads(x, c, logw, nullptr, opt, s1, [&](const auto& other, const auto& s) {
      CHECK(same_bits(one.c1.data(), other.c1.data(), m));
      CHECK(same_bits(one.cx.data(), other.cx.data(), m * d));
      if (shape == radial::Shape::Diagonal)
        CHECK(same_bits(one.scatter_diagonal.data(), other.scatter_diagonal.data(), m * d));
      else
        CHECK(same_bits(one.scatter.data(), other.scatter.data(), m * d * d));
      CHECK(same_bits(s1.row_log_likelihood.data(), s.row_log_likelihood.data(), n));
    });
  }
}

TEST_CASE("the discriminative E-step (DEM) gives bit-identical counts for any thread count",
          "[parallel][dem]") {
  // Two classes with two diagonal Gaussians each (owners), weights w_jg and P(y) w_jg; the
  // dense feature path and the K-d tree path (with fallback rows), threads = 1, 2, 3, 4.
  const std::size_t n = 2500, d = 3, m = 4;
  std::mt19937_64 rng(31);
  std::normal_distribution<double> g;
  radial::Matrix x = xt::empty<double>({n, d});
  radial::Labels y = xt::empty<std::int64_t>({n});
  for (std::size_t i = 0; i < n; ++i) {
    y(i) = std::int64_t(i % 2);
    for (std::size_t a = 0; a < d; ++a) x(i, a) = g(rng) + (y(i) ? 1.5 : -1.0);
  }
  radial::Centres c;
  c.shape = radial::Shape::Diagonal;
  c.means = xt::empty<double>({m, d});
  for (auto& v : c.means) v = g(rng);
  c.diagonal = xt::empty<double>({m, d});
  for (auto& v : c.diagonal) v = 0.5 + std::fabs(g(rng));
  c.owner = radial::Labels{0, 0, 1, 1};
  const radial::Vector lnum = {std::log(0.3), std::log(0.7), std::log(0.5), std::log(0.5)};
  radial::Vector lden = lnum;
  for (auto& v : lden) v += std::log(0.5);

  radial::GaussianBoxTreeOptions tree_options;
  tree_options.threshold = 0.25;  // sigma/2 boxes: some rows' leaves miss their class
  tree_options.leaf_size = 1;
  const radial::GaussianBoxTree tree(c, x, tree_options);
  for (const bool use_tree : {false, true}) {
    INFO("tree " << use_tree);
    radial::EStepOptions opt;
    opt.block_rows = 200;
    opt.threads = 1;
    if (use_tree) opt.tree = &tree;
    radial::MixtureCounts num1, den1;
    const auto s1 = radial::e_step_discriminative(x, y, c, lnum, lden, opt, num1, den1);
    if (use_tree) CHECK(s1.fallback_rows > 0);
    // Independent check of the denominator's log-likelihood (brute force only).
    if (!use_tree) {
      double ll = 0;
      for (std::size_t i = 0; i < n; ++i) {
        double total = 0;
        for (std::size_t j = 0; j < m; ++j) {
          double q = 0, logdet = 0;
          for (std::size_t a = 0; a < d; ++a) {
            const double t = x(i, a) - c.means(j, a);
            q += t * t / c.diagonal(j, a);
            logdet += std::log(c.diagonal(j, a));
          }
          total += std::exp(lden(j) - 0.5 * (q + logdet + double(d) * std::log(2 * M_PI)));
        }
        ll += std::log(total);
      }
      CHECK(s1.log_denominator == Approx(ll).epsilon(1e-10));
    }
    for (int threads : {2, 3, 4}) {
      INFO("threads = " << threads);
      opt.threads = threads;
      radial::MixtureCounts num, den;
      const auto s = radial::e_step_discriminative(x, y, c, lnum, lden, opt, num, den);
      CHECK(std::memcmp(&s.log_numerator, &s1.log_numerator, sizeof(double)) == 0);
      CHECK(std::memcmp(&s.log_denominator, &s1.log_denominator, sizeof(double)) == 0);
      CHECK(s.fallback_rows == s1.fallback_rows);
      for (const auto& [one, other] : {std::pair{&num1, &num}, std::pair{&den1, &den}}) {
        CHECK(same_bits(one->c1.data(), other->c1.data(), m));
        CHECK(same_bits(one->cx.data(), other->cx.data(), m * d));
        CHECK(same_bits(one->scatter_diagonal.data(), other->scatter_diagonal.data(), m * d));
      }
    }
  }
}

TEST_CASE("the class-weighted E-step (PRBF) gives bit-identical counts for any thread count",
          "[parallel][prbf]") {
  const std::size_t n = 2000, d = 2, m = 3, k = 2;
  std::mt19937_64 rng(37);
  std::normal_distribution<double> g;
  radial::Matrix x = xt::empty<double>({n, d});
  radial::Labels y = xt::empty<std::int64_t>({n});
  for (std::size_t i = 0; i < n; ++i) {
    y(i) = std::int64_t((i * 7) % k);
    for (std::size_t a = 0; a < d; ++a) x(i, a) = g(rng);
  }
  radial::Centres c;
  c.shape = radial::Shape::Diagonal;
  c.means = radial::Matrix{{-1.0, 0.0}, {0.0, 1.0}, {1.0, -1.0}};
  c.diagonal = xt::ones<double>({m, d});
  radial::Matrix log_pi = {{0.2, 0.5}, {0.3, 0.3}, {0.5, 0.2}};
  for (auto& v : log_pi) v = std::log(v);
  radial::EStepOptions opt;
  opt.block_rows = 128;
  radial::MixtureCounts one;
  const auto s1 = radial::e_step(x, c, log_pi, y, opt, one);
  check_on_more_threads(x, c, log_pi, y, opt, s1, [&](const auto& other, const auto&) {
    CHECK(same_bits(one.class_c1.data(), other.class_c1.data(), m * k));
    CHECK(same_bits(one.class_cx.data(), other.class_cx.data(), m * k * d));
    CHECK(same_bits(one.scatter_diagonal.data(), other.scatter_diagonal.data(), m * d));
  });
}
