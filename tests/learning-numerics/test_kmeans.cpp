// k-means (radial/numerics/kmeans/kmeans.hpp) against scikit-learn's Lloyd from the same initial
// centres (tests/reference/kmeans_reference.py) and against closed forms.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include <xtensor/xview.hpp>

#include "radial/core/errors.hpp"
#include "radial/distributed/sharded_rows.hpp"
#include "radial/numerics/kmeans/kmeans.hpp"
#include "radial/exec/parallel.hpp"
#include "reference_csv.hpp"

using radial::Matrix;
using radial::testing::learning_reference;
using radial::testing::max_abs_difference;
using radial::testing::read_reference_matrix;

namespace {

Matrix rows_of(const Matrix& x, const Matrix& index_row) {
  Matrix out = xt::empty<double>({index_row.shape(1), x.shape(1)});
  for (std::size_t j = 0; j < index_row.shape(1); ++j)
    for (std::size_t k = 0; k < x.shape(1); ++k) out(j, k) = x(std::size_t(index_row(0, j)), k);
  return out;
}

// The summary row: inertia, iterations, init rows (space separated).
struct Summary {
  double inertia;
  std::size_t iterations;
  Matrix init_rows;
};

Summary read_summary(const std::string& name) {
  std::ifstream in(learning_reference(name));
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  std::stringstream cells(line);
  std::string inertia, iterations, rows;
  std::getline(cells, inertia, ',');
  std::getline(cells, iterations, ',');
  std::getline(cells, rows);
  std::vector<double> index;
  std::stringstream r(rows);
  for (double v; r >> v;) index.push_back(v);
  Matrix init = xt::empty<double>({std::size_t(1), index.size()});
  for (std::size_t i = 0; i < index.size(); ++i) init(0, i) = index[i];
  return {std::stod(inertia), std::size_t(std::stoul(iterations)), init};
}

void check_against_sklearn(const std::string& name, const Matrix& x) {
  const Summary summary = read_summary(name + "_summary.csv");
  const Matrix expected_centres = read_reference_matrix(learning_reference(name + "_centres.csv"));
  const Matrix expected_labels = read_reference_matrix(learning_reference(name + "_labels.csv"));

  radial::KMeansOptions options;
  options.count = expected_centres.shape(0);
  options.iterations = 300;
  options.tolerance = 1e-12;  // stops at the first iteration that moves no centre
  const auto result = radial::kmeans_lloyd(x, rows_of(x, summary.init_rows), options);

  INFO(name);
  CHECK(result.converged);
  CHECK(result.empty_cluster_repairs == 0);
  // scikit-learn stops when the labels repeat: the iteration whose update moved nothing.
  CHECK(result.iterations == summary.iterations);
  CHECK(max_abs_difference(result.centres, expected_centres) < 1e-8);
  CHECK(result.inertia == Approx(summary.inertia).epsilon(1e-10));
  std::size_t mismatched = 0;
  for (std::size_t i = 0; i < x.shape(0); ++i)
    mismatched += result.assignment(i) != std::int64_t(expected_labels(i, 0)) ? 1 : 0;
  CHECK(mismatched == 0);

  // Sizes and spreads follow from the assignment by definition.
  double total = 0;
  for (std::size_t j = 0; j < options.count; ++j) {
    std::size_t members = 0;
    double spread = 0;
    for (std::size_t i = 0; i < x.shape(0); ++i) {
      if (std::size_t(expected_labels(i, 0)) != j) continue;
      ++members;
      for (std::size_t k = 0; k < x.shape(1); ++k)
        spread += std::pow(x(i, k) - expected_centres(j, k), 2);
    }
    CHECK(result.cluster_sizes(j) == double(members));
    CHECK(result.cluster_spread(j) == Approx(spread / double(members)).epsilon(1e-9));
    total += spread;
  }
  CHECK(total == Approx(summary.inertia).epsilon(1e-9));
}

Matrix iris_inputs() {
  const Matrix all = read_reference_matrix(
      radial::testing::source_dir() / "docs" / "examples" / "data" / "iris.csv", true);
  return xt::view(all, xt::all(), xt::range(0, 4));
}

}  // namespace

TEST_CASE("k-means Lloyd equals scikit-learn from the same initial centres", "[kmeans]") {
  SECTION("iris, 3 centres") { check_against_sklearn("iris", iris_inputs()); }
  SECTION("generated blobs, 600 x 3, 6 centres") {
    check_against_sklearn("blobs", read_reference_matrix(learning_reference("blobs_data.csv")));
  }
}

// Lloyd by plain loops (direct differences, every row against every centre, lowest index on
// ties): the definition the bounded assignment must reproduce.
struct PlainLloyd {
  Matrix centres;
  std::vector<std::size_t> labels;
};

PlainLloyd plain_lloyd(const Matrix& x, Matrix centres, std::size_t iterations) {
  const std::size_t n = x.shape(0), d = x.shape(1), m = centres.shape(0);
  std::vector<std::size_t> labels(n);
  auto assign = [&] {
    for (std::size_t i = 0; i < n; ++i) {
      double best = std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < m; ++j) {
        double s = 0;
        for (std::size_t k = 0; k < d; ++k) s += (x(i, k) - centres(j, k)) * (x(i, k) - centres(j, k));
        if (s < best) {
          best = s;
          labels[i] = j;
        }
      }
    }
  };
  for (std::size_t it = 0; it < iterations; ++it) {
    assign();
    Matrix sums = xt::zeros<double>({m, d});
    std::vector<double> counts(m, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < d; ++k) sums(labels[i], k) += x(i, k);
      counts[labels[i]] += 1;
    }
    for (std::size_t j = 0; j < m; ++j) {
      REQUIRE(counts[j] > 0);  // the data below never empties a cluster
      for (std::size_t k = 0; k < d; ++k) centres(j, k) = sums(j, k) / counts[j];
    }
  }
  assign();
  return {centres, labels};
}

TEST_CASE("bounded assignment (Hamerly) reproduces plain Lloyd on real data", "[kmeans]") {
  // waveform: 5000 x 21, three overlapping classes, so many rows sit near cluster borders.
  const Matrix all = read_reference_matrix(
      radial::testing::source_dir() / "docs" / "examples" / "data" / "waveform.csv", true);
  const Matrix x = xt::view(all, xt::all(), xt::range(0, all.shape(1) - 1));
  for (std::size_t m : {1u, 2u, 17u, 60u}) {
    for (std::size_t iterations : {1u, 5u, 40u}) {
      CAPTURE(m, iterations);
      Matrix init = xt::view(x, xt::range(0, m), xt::all());
      radial::KMeansOptions options;
      options.count = m;
      options.iterations = iterations;
      options.tolerance = 0;
      options.threads = 2;
      const auto got = radial::kmeans_lloyd(x, init, options);
      const PlainLloyd want = plain_lloyd(x, init, iterations);
      std::size_t differing = 0;
      for (std::size_t i = 0; i < x.shape(0); ++i)
        differing += std::size_t(got.assignment(i)) != want.labels[i];
      CHECK(differing == 0);
      CHECK(max_abs_difference(got.centres, want.centres) < 1e-12);
    }
  }
}

TEST_CASE("bounded assignment breaks exact ties as plain Lloyd does (lowest index)", "[kmeans]") {
  // A 41 x 41 integer grid with centres placed symmetrically: every row on a symmetry line is
  // exactly equidistant from two or four centres, and must go to the lowest index.
  Matrix x = xt::empty<double>({std::size_t(41 * 41), std::size_t(2)});
  for (std::size_t i = 0; i < 41; ++i)
    for (std::size_t j = 0; j < 41; ++j) {
      x(i * 41 + j, 0) = double(i);
      x(i * 41 + j, 1) = double(j);
    }
  Matrix init = {{10.0, 10.0}, {30.0, 10.0}, {10.0, 30.0}, {30.0, 30.0}, {20.0, 20.0}};
  for (std::size_t iterations : {1u, 3u, 12u}) {
    CAPTURE(iterations);
    radial::KMeansOptions options;
    options.count = init.shape(0);
    options.iterations = iterations;
    options.tolerance = 0;
    const auto got = radial::kmeans_lloyd(x, init, options);
    const PlainLloyd want = plain_lloyd(x, init, iterations);
    for (std::size_t i = 0; i < x.shape(0); ++i) {
      CAPTURE(i);
      REQUIRE(std::size_t(got.assignment(i)) == want.labels[i]);
    }
    CHECK(max_abs_difference(got.centres, want.centres) < 1e-12);
  }
}

TEST_CASE("k-means results do not depend on the thread count", "[kmeans]") {
  // More rows than one block (1024) so that threads share the work.
  std::mt19937_64 data_rng(5);
  std::normal_distribution<double> normal;
  Matrix x = xt::empty<double>({std::size_t(5000), std::size_t(4)});
  for (auto& v : x) v = normal(data_rng);
  radial::KMeansOptions options;
  options.count = 12;
  options.iterations = 20;
  options.tolerance = 0;
  std::mt19937_64 rng1(3), rng2(3);
  options.threads = 1;
  const auto one = radial::kmeans(x, options, rng1);
  options.threads = 2;
  const auto two = radial::kmeans(x, options, rng2);
  CHECK(max_abs_difference(one.centres, two.centres) == 0.0);
  CHECK(one.inertia == two.inertia);
  CHECK(one.iterations == 20);  // tolerance 0 runs exactly `iterations`
}

TEST_CASE("tolerance 0 runs exactly the given number of iterations", "[kmeans]") {
  const Matrix x = iris_inputs();
  radial::KMeansOptions options;
  options.count = 3;
  options.tolerance = 0;
  options.iterations = 40;  // more than the 12 that reach the fixed point from rows 0, 1, 2
  Matrix init = xt::view(x, xt::range(0, 3), xt::all());
  const auto result = radial::kmeans_lloyd(x, init, options);
  CHECK(result.iterations == 40);
  CHECK(result.converged);  // the last iteration moved nothing
  options.iterations = 2;
  const auto early = radial::kmeans_lloyd(x, init, options);
  CHECK(early.iterations == 2);
  CHECK_FALSE(early.converged);
}

// Lloyd's objective after the assignment step of iteration t (1-based) from `init`, by brute
// force: every row to its nearest centre of those t - 1 iterations left.
double assignment_inertia(const Matrix& x, const Matrix& init, std::size_t t) {
  Matrix centres = init;
  if (t > 1) {
    radial::KMeansOptions before;
    before.count = init.shape(0);
    before.tolerance = 0;
    before.iterations = t - 1;
    centres = radial::kmeans_lloyd(x, init, before).centres;
  }
  double total = 0;
  for (std::size_t n = 0; n < x.shape(0); ++n) {
    double nearest = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < centres.shape(0); ++j) {
      double e = 0;
      for (std::size_t k = 0; k < x.shape(1); ++k) e += std::pow(x(n, k) - centres(j, k), 2);
      nearest = std::min(nearest, e);
    }
    total += nearest;
  }
  return total;
}

TEST_CASE("inertia_tolerance stops Lloyd at the first iteration that lowers the inertia by at "
          "most that fraction",
          "[kmeans]") {
  // 2,000 rows of a 4-d Gaussian into 40 centres from the first 40 rows: many small steps.
  std::mt19937_64 data_rng(11);
  std::normal_distribution<double> normal;
  Matrix x = xt::empty<double>({std::size_t(2000), std::size_t(4)});
  for (auto& v : x) v = normal(data_rng);
  const Matrix init = xt::view(x, xt::range(0, 40), xt::all());
  for (const double fraction : {0.05, 0.01, 0.002}) {
    // The first t >= 2 whose assignment lowered the brute-force inertia by <= fraction of t - 1's.
    std::size_t expected = 0;
    double last = assignment_inertia(x, init, 1);
    for (std::size_t t = 2; t <= 60 && !expected; ++t) {
      const double now = assignment_inertia(x, init, t);
      if (last - now <= fraction * last) expected = t;
      last = now;
    }
    REQUIRE(expected > 2);  // not at once: the criterion has something to decide
    radial::KMeansOptions options;
    options.count = 40;
    options.tolerance = 0;  // only the inertia stops it
    options.iterations = 100;
    options.inertia_tolerance = fraction;
    const auto settled = radial::kmeans_lloyd(x, init, options);
    CHECK(settled.iterations == expected);
    CHECK(settled.converged);
    CHECK(settled.inertia_settled);
    // The same centres as exactly that many plain iterations.
    options.inertia_tolerance = 0;
    options.iterations = expected;
    const auto plain = radial::kmeans_lloyd(x, init, options);
    CHECK(max_abs_difference(settled.centres, plain.centres) == 0.0);
    CHECK_FALSE(plain.inertia_settled);
  }
}

TEST_CASE("an empty cluster is re-seeded at the farthest point", "[kmeans]") {
  // 1-D points 0, 1, 10, 11; centres 0.5, 10.5, 100. The third centre wins no point; every
  // point is 0.5 from its centre, so the first point of a cluster with two members (x = 0,
  // from cluster 0) re-seeds it. Then: centres 1, 10.5, 0 — a fixed point with error 0.5.
  Matrix x = {{0.0}, {1.0}, {10.0}, {11.0}};
  Matrix init = {{0.5}, {10.5}, {100.0}};
  radial::KMeansOptions options;
  options.count = 3;
  options.tolerance = 1e-9;
  const auto result = radial::kmeans_lloyd(x, init, options);
  CHECK(result.empty_cluster_repairs == 1);
  CHECK(result.centres(0, 0) == 1.0);
  CHECK(result.centres(1, 0) == 10.5);
  CHECK(result.centres(2, 0) == 0.0);
  CHECK(result.inertia == Approx(0.5));
  CHECK(result.converged);
  CHECK(result.assignment(0) == 2);
  CHECK(result.assignment(1) == 0);
  CHECK(result.cluster_sizes(1) == 2.0);
  CHECK(result.cluster_spread(1) == Approx(0.25));
  CHECK(result.cluster_spread(0) == 0.0);
}

TEST_CASE("k-means initialisation", "[kmeans]") {
  // Three tight, far-apart groups of 50 points: k-means++ (D^2 sampling) puts one centre in
  // each unless a draw of probability ~1e-7 happens; random picks distinct rows.
  Matrix x = xt::empty<double>({std::size_t(150), std::size_t(2)});
  std::mt19937_64 data_rng(11);
  std::normal_distribution<double> noise(0.0, 0.01);
  for (std::size_t i = 0; i < 150; ++i) {
    x(i, 0) = 100.0 * double(i / 50) + noise(data_rng);
    x(i, 1) = noise(data_rng);
  }
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    const Matrix c = radial::kmeans_initial_centres(x, 3, "kmeans++", rng);
    std::set<long> groups;
    for (std::size_t j = 0; j < 3; ++j) groups.insert(std::lround(c(j, 0) / 100.0));
    CHECK(groups.size() == 3);

    const Matrix r = radial::kmeans_initial_centres(x, 150, "random", rng);
    std::set<std::pair<double, double>> distinct;
    for (std::size_t j = 0; j < 150; ++j) distinct.insert({r(j, 0), r(j, 1)});
    CHECK(distinct.size() == 150);  // every row exactly once
  }
  std::mt19937_64 a(9), b(9);
  CHECK(max_abs_difference(radial::kmeans_initial_centres(x, 5, "kmeans++", a),
                           radial::kmeans_initial_centres(x, 5, "kmeans++", b)) == 0.0);
}

// k-means++ as Arthur & Vassilvitskii define it, every row's D(x)^2 lowered at every draw: the
// first centre a uniform row, each next the first row whose cumulative D(x)^2 (summed in row
// order per block of parallel_block_rows rows, the blocks in order) exceeds a uniform draw.
Matrix plain_kmeans_pp(const Matrix& x, std::size_t count, std::mt19937_64& rng) {
  const std::size_t n = x.shape(0), d = x.shape(1), block = radial::parallel_block_rows;
  const std::size_t blocks = (n + block - 1) / block;
  Matrix c = xt::empty<double>({count, d});
  std::vector<double> d2(n, std::numeric_limits<double>::infinity()), sums(blocks);
  std::size_t row = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  for (std::size_t j = 0; j < count; ++j) {
    for (std::size_t k = 0; k < d; ++k) c(j, k) = x(row, k);
    for (std::size_t i = 0; i < n; ++i) {
      double s[4] = {0, 0, 0, 0};
      std::size_t k = 0;
      for (; k + 4 <= d; k += 4)
        for (std::size_t l = 0; l < 4; ++l) {
          const double t = x(i, k + l) - c(j, k + l);
          s[l] += t * t;
        }
      for (; k < d; ++k) s[0] += (x(i, k) - c(j, k)) * (x(i, k) - c(j, k));
      d2[i] = std::min(d2[i], (s[0] + s[1]) + (s[2] + s[3]));
    }
    if (j + 1 == count) break;
    double total = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
      sums[b] = 0;
      for (std::size_t i = b * block; i < std::min(n, (b + 1) * block); ++i) sums[b] += d2[i];
      total += sums[b];
    }
    REQUIRE(total > 0);
    const double r = std::uniform_real_distribution<double>(0.0, total)(rng);
    double cumulative = 0;
    std::size_t b = 0;
    while (b + 1 < blocks && (sums[b] <= 0 || cumulative + sums[b] <= r)) cumulative += sums[b++];
    row = n;
    for (std::size_t i = b * block; i < std::min(n, (b + 1) * block) && row == n; ++i) {
      if (d2[i] <= 0) continue;
      cumulative += d2[i];
      if (cumulative > r) row = i;
    }
    REQUIRE(row < n);
  }
  return c;
}

TEST_CASE("k-means++ seeding skips rows by the triangle inequality without changing a draw",
          "[kmeans]") {
  // Clustered rows in d = 5 (a partial chunk of the 4-wide sums) and d = 18, over several row
  // blocks: the pruned seeding must pick exactly the rows of the plain definition, with 1 and 2
  // threads.
  for (const std::size_t d : {std::size_t(5), std::size_t(18)}) {
    const std::size_t n = 5000;
    Matrix x = xt::empty<double>({n, d});
    std::mt19937_64 data_rng(d);
    std::normal_distribution<double> noise(0.0, 1.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < d; ++k)
        x(i, k) = 5.0 * double((i * 7919) % 13 == k % 13) + noise(data_rng);
    for (int threads : {1, 2}) {
      std::mt19937_64 a(3), b(3);
      const Matrix fast = radial::kmeans_initial_centres(x, 400, "kmeans++", a, threads);
      const Matrix plain = plain_kmeans_pp(x, 400, b);
      CHECK(max_abs_difference(fast, plain) == 0.0);
    }
  }
}

TEST_CASE("k-means++ on many rows seeds from a seeded row sample", "[kmeans]") {
  // More than 2 x kmeans_seeding_floor rows: the draws are those of the plain definition on the
  // rows sample_rows keeps for a seed of one draw of rng, for 1 and 2 threads.
  const std::size_t n = 2 * radial::kmeans_seeding_floor + 1000, d = 3, count = 50;
  Matrix x = xt::empty<double>({n, d});
  std::mt19937_64 data_rng(5);
  std::normal_distribution<double> noise(0.0, 1.0);
  for (double& v : x) v = noise(data_rng);
  std::mt19937_64 expected_rng(8);
  const std::vector<std::size_t> kept =
      radial::sample_rows(n, 0, n, radial::kmeans_seeding_floor, expected_rng());
  REQUIRE(kept.size() < n);
  Matrix sample = xt::empty<double>({kept.size(), d});
  for (std::size_t r = 0; r < kept.size(); ++r)
    for (std::size_t k = 0; k < d; ++k) sample(r, k) = x(kept[r], k);
  const Matrix expected = plain_kmeans_pp(sample, count, expected_rng);
  for (int threads : {1, 2}) {
    std::mt19937_64 rng(8);
    CHECK(max_abs_difference(radial::kmeans_initial_centres(x, count, "kmeans++", rng, threads),
                             expected) == 0.0);
  }
}

TEST_CASE("k-means on a row sample: its rows, its iteration cap, one update on every row",
          "[kmeans]") {
  // Uniform rows in the unit square: Lloyd with 10 centres needs more than two iterations.
  const std::size_t n = 2 * radial::kmeans_sample_floor + 10000;
  Matrix x = xt::empty<double>({n, std::size_t(2)});
  std::mt19937_64 data_rng(12);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (double& v : x) v = uniform(data_rng);
  radial::KMeansOptions options;
  options.count = 10;
  options.sample_per_centre = 1;  // the floor's 200,000 rows
  options.threads = 2;
  std::size_t rows_used = 0;
  std::mt19937_64 rng(4);
  const radial::KMeansResult free = radial::kmeans_on_sample(x, options, rng, rows_used);
  CHECK(rows_used > 195000);
  CHECK(rows_used < 205000);
  CHECK(free.iterations > 4);  // the sample's iterations, then the update on every row
  options.sample_iterations = 2;
  std::mt19937_64 rng2(4);
  const radial::KMeansResult capped = radial::kmeans_on_sample(x, options, rng2, rows_used);
  CHECK(capped.iterations == 3);
  CHECK_FALSE(capped.converged);
  // Every row counted once in the final partition of all the rows.
  double members = 0;
  for (double c : capped.cluster_sizes) members += c;
  CHECK(members == double(n));
  // Fewer rows than twice the sample but more than it: every row, with the same cap.
  const std::size_t between = radial::kmeans_sample_floor + 50000;
  Matrix fewer = xt::view(x, xt::range(0, between), xt::all());
  std::mt19937_64 rng3(4);
  const radial::KMeansResult all_rows = radial::kmeans_on_sample(fewer, options, rng3, rows_used);
  CHECK(rows_used == between);
  CHECK(all_rows.iterations == 2);
  CHECK_FALSE(all_rows.converged);
  // Stopped on the sample by its inertia: said so after the update on every row.
  options.sample_iterations = 25;
  options.tolerance = 0;
  options.inertia_tolerance = 0.05;
  std::mt19937_64 rng4(4);
  const radial::KMeansResult settled = radial::kmeans_on_sample(x, options, rng4, rows_used);
  CHECK(settled.inertia_settled);
  CHECK(settled.converged);
  CHECK(settled.iterations < free.iterations);
}

TEST_CASE("k-means refuses impossible requests", "[kmeans]") {
  Matrix x = {{0.0, 1.0}, {1.0, 0.0}};
  std::mt19937_64 rng(1);
  CHECK_THROWS_AS(radial::kmeans_initial_centres(x, 3, "kmeans++", rng), radial::InputError);
  CHECK_THROWS_WITH(radial::kmeans_initial_centres(x, 3, "random", rng),
                    Catch::Contains("3 centres requested") && Catch::Contains("only 2 rows"));
  CHECK_THROWS_AS(radial::kmeans_initial_centres(x, 1, "forgy", rng), radial::InputError);
  Matrix wrong = {{0.0, 1.0, 2.0}};
  CHECK_THROWS_AS(radial::kmeans_lloyd(x, wrong, radial::KMeansOptions{}), radial::ShapeError);
  // Identical rows: k-means++ still returns distinct rows and Lloyd ends with zero error.
  Matrix same = xt::ones<double>({std::size_t(4), std::size_t(2)});
  radial::KMeansOptions options;
  options.count = 2;
  const auto result = radial::kmeans(same, options, rng);
  CHECK(result.inertia == 0.0);
  CHECK(result.converged);
}
