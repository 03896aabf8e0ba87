// kdtree-bench: the discriminative E-step (paper 002, fig. 2) over all G Gaussians with and
// without the K-d tree of Gaussian boxes (section III-C), on data generated from G spherical
// Gaussians in d dimensions, each owned by one of 4 classes; and the test error of DEM
// (the `dem` plugin) trained with and without the tree.
//
//   kdtree-bench [--small] [--check] [--threshold 16] [--leaf-size 4] [--repeats 5]
//
// For each (G, d): per-class EM mixtures (G/4 Gaussians per class) fitted by brute force give
// the Gaussians timed; E-step time is the median of --repeats runs, the tree's time including
// its construction. --check also verifies that the tree at the exact threshold reproduces the
// brute-force counts and log R^d (exit status 1 if not). Target: >= 5x faster at
// G = 256, d <= 8 with the error within 0.2 points.
#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "radial/core/errors.hpp"
#include "radial/exec/blas_threads.hpp"
#include "radial/numerics/gaussian.hpp"
#include "radial/numerics/kdtree.hpp"
#include "radial/numerics/log_sum_exp.hpp"
#include "radial/numerics/mixture/mixture_em.hpp"
#include "radial/plugin/loader.hpp"

namespace {

using radial::Centres;
using radial::Matrix;

constexpr std::size_t kClasses = 4;

struct Problem {
  radial::Dataset train, test;
};

// Rows drawn from G spherical Gaussians (sd 0.08) with means uniform in [-1, 1]^d; Gaussian j
// belongs to class j mod 4.
Problem generate(std::size_t g, std::size_t d, std::size_t train_rows, std::size_t test_rows,
                 std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::normal_distribution<double> z(0.0, 0.08);
  Matrix means = Matrix::from_shape({g, d});
  for (double& v : means) v = u(rng);
  auto draw = [&](std::size_t rows) {
    radial::Dataset data;
    data.inputs = Matrix::from_shape({rows, d});
    data.classes = radial::Labels::from_shape({rows});
    data.num_classes = kClasses;
    data.task = radial::Task::Classification;
    for (std::size_t n = 0; n < rows; ++n) {
      const std::size_t j = n % g;  // every Gaussian gets rows, so every class has enough
      for (std::size_t k = 0; k < d; ++k) data.inputs(n, k) = means(j, k) + z(rng);
      data.classes(n) = std::int64_t(j % kClasses);
    }
    for (std::size_t c = 0; c < kClasses; ++c) data.class_values.push_back(double(c));
    return data;
  };
  Problem p;
  p.train = draw(train_rows);
  p.test = draw(test_rows);
  return p;
}

void log_weights(const Centres& c, radial::Vector& num, radial::Vector& den) {
  num = radial::Vector::from_shape({c.count()});
  den = radial::Vector::from_shape({c.count()});
  for (std::size_t j = 0; j < c.count(); ++j) {
    const auto k = std::size_t(c.owner(j));
    num(j) = c.mixing(j, k) > 0 ? std::log(c.mixing(j, k)) : -INFINITY;
    den(j) = num(j) + std::log(c.class_priors(k));
  }
}

// Arg max of P(C_k) sum_j pi_jk N(x|j), brute force; error rate in %.
double test_error(const Centres& c, const radial::Dataset& test) {
  const radial::GaussianLogDensity density(c);
  Matrix logn;
  density.compute(test.inputs, logn);
  const std::size_t n = test.rows(), m = c.count(), k = c.class_priors.size();
  Matrix terms = Matrix::from_shape({n, m}), a = Matrix::from_shape({n, k});
  for (std::size_t cls = 0; cls < k; ++cls) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < m; ++j)
        terms(i, j) = c.mixing(j, cls) > 0 ? logn(i, j) + std::log(c.mixing(j, cls)) : -INFINITY;
    const radial::Vector lse = radial::log_sum_exp_rows(terms);
    for (std::size_t i = 0; i < n; ++i) a(i, cls) = std::log(c.class_priors(cls)) + lse(i);
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t best = 0;
    for (std::size_t cls = 1; cls < k; ++cls)
      if (a(i, cls) > a(i, best)) best = cls;
    wrong += best != std::size_t(test.classes(i));
  }
  return 100.0 * double(wrong) / double(n);
}

// Process CPU time: on a shared machine wall time mostly measures the other processes. BLAS is
// single-threaded here, so CPU time is the work done.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

template <class F>
double median_seconds(std::size_t repeats, F&& f) {
  std::vector<double> t;
  for (std::size_t r = 0; r < repeats; ++r) {
    const double start = cpu_seconds();
    f();
    t.push_back(cpu_seconds() - start);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

bool close(double a, double b, double rel) { return std::fabs(a - b) <= rel * (1.0 + std::fabs(b)); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"K-d tree of Gaussian boxes: E-step time and error, with and without the tree"};
  bool small = false, check = false;
  double threshold = 16.0;
  std::size_t leaf_size = 4, repeats = 5, dem_iterations = 10;
  app.add_flag("--small", small, "one small size (G = 64, d = 2), for the CTest run");
  app.add_flag("--check", check, "verify the exact-threshold tree against brute force");
  app.add_option("--threshold", threshold, "c of the Gaussian boxes, t = mu -/+ sigma sqrt(c)");
  app.add_option("--leaf-size", leaf_size, "leaf size of the tree");
  app.add_option("--repeats", repeats, "timed repetitions (median reported)");
  app.add_option("--dem-iterations", dem_iterations, "DEM iterations for the error comparison");
  CLI11_PARSE(app, argc, argv);

  try {
    radial::set_blas_threads(1);
    radial::Registry registry;
    registry.load_default();
    const auto& dem_info = registry.require(radial::Slot::Centres, "dem");

    std::vector<std::size_t> gs = {64, 256}, ds = {2, 8, 16};
    if (small) {
      gs = {64};
      ds = {2};
    }
    std::printf("discriminative E-step over all G Gaussians; threshold c = %g, leaf size %zu; "
                "times are CPU medians of %zu runs (tree: build + E-step; build alone in brackets)\n",
                threshold, leaf_size, repeats);
    std::printf("%5s %3s %6s %10s %18s %8s %10s %10s %10s %8s\n", "G", "d", "rows", "brute ms",
                "tree ms (build)", "speedup", "cand/row", "err brute", "err tree", "delta");
    bool ok = true;
    for (const std::size_t g : gs)
      for (const std::size_t d : ds) {
        const std::size_t rows = small ? 10 * g : 20 * g;
        const Problem p = generate(g, d, rows, rows, 7 + g + d);
        radial::EmOptions em;
        em.shape = radial::Shape::Diagonal;
        em.iterations = 20;
        std::mt19937_64 rng(1);
        const Centres c = radial::fit_class_mixtures(p.train.inputs, p.train.classes, kClasses,
                                                     g / kClasses, em, rng, "kdtree-bench")
                              .centres;
        radial::Vector lnum, lden;
        log_weights(c, lnum, lden);
        radial::MixtureCounts num, den;
        radial::EStepOptions e;
        radial::DiscriminativeSummary brute, fast;
        const double t_brute = median_seconds(repeats, [&] {
          e.tree = nullptr;
          brute = radial::e_step_discriminative(p.train.inputs, p.train.classes, c, lnum, lden, e,
                                                num, den);
        });
        radial::GaussianBoxTreeOptions to;
        to.threshold = threshold;
        to.leaf_size = leaf_size;
        const double t_build = median_seconds(repeats, [&] {
          const radial::GaussianBoxTree tree(c, p.train.inputs, to);
          fast.mean_candidates = tree.mean_candidates();
        });
        const double t_tree = median_seconds(repeats, [&] {
          const radial::GaussianBoxTree tree(c, p.train.inputs, to);
          e.tree = &tree;
          fast = radial::e_step_discriminative(p.train.inputs, p.train.classes, c, lnum, lden, e,
                                               num, den);
          e.tree = nullptr;
        });

        // Test error of DEM trained with and without the tree.
        double errors[2];
        for (int use = 0; use < 2; ++use) {
          auto learner = registry.make_centre_learner(
              "dem", radial::validate_params(
                         dem_info.params,
                         {{"count", std::int64_t(g / kClasses)},
                          {"iterations", std::int64_t(dem_iterations)},
                          {"em_iterations", std::int64_t(20)},
                          {"kdtree", use == 1},
                          {"threshold", threshold},
                          {"leaf_size", std::int64_t(leaf_size)}},
                         "centres dem"));
          radial::FitContext ctx(1);
          errors[use] = test_error(learner->fit(p.train, nullptr, ctx), p.test);
        }
        std::printf("%5zu %3zu %6zu %10.2f %9.2f (%6.2f) %8.1f %10.1f %10.2f %10.2f %8.2f\n", g, d,
                    rows, 1e3 * t_brute, 1e3 * t_tree, 1e3 * t_build, t_brute / t_tree,
                    fast.mean_candidates,
                    errors[0], errors[1], errors[1] - errors[0]);
        std::fflush(stdout);

        if (check) {
          radial::GaussianBoxTreeOptions exact = to;
          exact.threshold = radial::GaussianBoxTree::exact_threshold(c, p.train.inputs);
          const radial::GaussianBoxTree tree(c, p.train.inputs, exact);
          radial::MixtureCounts tn, td, bn, bd;
          e.tree = nullptr;
          const auto b = radial::e_step_discriminative(p.train.inputs, p.train.classes, c, lnum,
                                                       lden, e, bn, bd);
          e.tree = &tree;
          const auto t = radial::e_step_discriminative(p.train.inputs, p.train.classes, c, lnum,
                                                       lden, e, tn, td);
          bool same = close(t.log_numerator, b.log_numerator, 1e-10) &&
                      close(t.log_denominator, b.log_denominator, 1e-10);
          for (std::size_t j = 0; j < c.count(); ++j)
            same = same && close(td.c1(j), bd.c1(j), 1e-9) && close(tn.c1(j), bn.c1(j), 1e-9);
          std::printf("      exact threshold c = %.4g: tree %s brute force (%.1f candidates/row)\n",
                      exact.threshold, same ? "equals" : "DIFFERS FROM", t.mean_candidates);
          ok = ok && same;
        }
      }
    return ok ? 0 : 1;
  } catch (const radial::InputError& e) {
    std::cerr << "kdtree-bench: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "kdtree-bench: " << e.what() << "\n";
    return 1;
  }
}
