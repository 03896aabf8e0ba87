// The mixture and k-means numerics and every shipped centre learner under mpirun -np 1/2/3: each
// rank computes the single-process result on all rows (outside any scope), then the same run on
// its shard inside ShardedScope(world()), and the two must agree to 1e-10 relative (the same
// partitions, iteration counts and reports); a second sharded run must give the same bits.
// Shards: even ones, one where a rank holds no rows, and one where a class is missing from a
// rank's rows.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/dataset.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/numerics/kmeans/kmeans.hpp"
#include "radial/numerics/mixture/mixture_em.hpp"
#include "radial/core/params.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/class_mixtures.hpp"
#include "radial/testing/paths.hpp"
#include "radial/testing/registry.hpp"

using namespace radial;

namespace {

constexpr double kRelative = 1e-10;

enum class Split {
  Even,       // even_shard
  EmptyRank,  // rank 1 holds no rows (with 2 or more ranks), the others split the rows evenly
  FirstRows,  // rank 0 holds the first `head` rows, the others split the rest evenly
};

std::string name(Split s) {
  return s == Split::Even ? "even" : s == Split::EmptyRank ? "empty-rank" : "first-rows";
}

// This rank's rows under the split.
RowRange my_rows(Split split, std::size_t total, std::size_t head = 0) {
  const int p = world().size(), r = world().rank();
  if (split == Split::Even || p == 1) return even_shard(total, r, p);
  std::vector<std::size_t> counts(std::size_t(p), 0);
  if (split == Split::EmptyRank) {
    for (int q = 0, k = 0; q < p; ++q)
      if (q != 1) counts[std::size_t(q)] = even_shard(total, k++, p - 1).count;
  } else {
    counts[0] = head;
    for (int q = 1; q < p; ++q)
      counts[std::size_t(q)] = even_shard(total - head, q - 1, p - 1).count;
  }
  RowRange range;
  for (int q = 0; q < r; ++q) range.first += counts[std::size_t(q)];
  range.count = counts[std::size_t(r)];
  return range;
}

Matrix rows_of(const Matrix& x, RowRange r) {
  Matrix out = Matrix::from_shape({r.count, x.shape(1)});
  for (std::size_t i = 0; i < r.count; ++i)
    for (std::size_t k = 0; k < x.shape(1); ++k) out(i, k) = x(r.first + i, k);
  return out;
}

Labels labels_of(const Labels& y, RowRange r) {
  Labels out = Labels::from_shape({r.count});
  for (std::size_t i = 0; i < r.count; ++i) out(i) = y(r.first + i);
  return out;
}

Dataset dataset_of(const Dataset& d, RowRange r) {
  std::vector<std::size_t> index(r.count);
  for (std::size_t i = 0; i < r.count; ++i) index[i] = r.first + i;
  Dataset out = select_rows(d, index);
  out.num_classes = d.num_classes;
  out.class_values = d.class_values;
  if (r.count == 0) out.inputs = Matrix::from_shape({0, d.features()});
  return out;
}

// |a - b| <= 1e-10 max|a| elementwise (relative to the array's scale), and equal shapes.
template <class A, class B>
void check_close(const A& a, const B& b, const std::string& what) {
  INFO(what);
  REQUIRE(a.size() == b.size());
  double scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    scale = std::max(scale, std::fabs(double(a.data()[i])));
  std::size_t bad = 0;
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double e = std::fabs(double(a.data()[i]) - double(b.data()[i]));
    if (!(e <= kRelative * scale)) ++bad;
    worst = std::max(worst, e);
  }
  INFO("largest difference " << worst << " at scale " << scale);
  CHECK(bad == 0);
}

void check_close(double a, double b, const std::string& what) {
  INFO(what << ": " << a << " vs " << b);
  CHECK(std::fabs(a - b) <= kRelative * std::max(std::fabs(a), std::fabs(b)));
}

// Bit equality (a second run with the same rank count; NaN equals the same NaN).
template <class A>
void check_same(const A& a, const A& b, const std::string& what) {
  INFO(what);
  REQUIRE(a.size() == b.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(a.data() + i, b.data() + i, sizeof(*a.data())) != 0) ++differ;
  CHECK(differ == 0);
}

// check(a's array, b's array, what + its name) for each array of numbers in two Centres.
template <class Check>
void for_each_centre_array(const Centres& a, const Centres& b, const std::string& what,
                           Check check) {
  check(a.means, b.means, what + " means");
  check(a.variances, b.variances, what + " variances");
  check(a.diagonal, b.diagonal, what + " diagonal");
  check(a.covariances, b.covariances, what + " covariances");
  check(a.mixing, b.mixing, what + " mixing");
  check(a.class_priors, b.class_priors, what + " class priors");
}

void check_centres(const Centres& single, const Centres& sharded, const std::string& what) {
  CHECK(single.shape == sharded.shape);
  for_each_centre_array(single, sharded, what,
                        [](const auto& a, const auto& b, const std::string& name) {
                          check_close(a, b, name);
                        });
  REQUIRE(single.owner.size() == sharded.owner.size());
  for (std::size_t j = 0; j < single.owner.size(); ++j) CHECK(single.owner(j) == sharded.owner(j));
}

void check_same_centres(const Centres& a, const Centres& b, const std::string& what) {
  for_each_centre_array(a, b, what, [](const auto& x, const auto& y, const std::string& name) {
    check_same(x, y, name);
  });
}

// Reports agree: counts and decisions exactly, numbers to 1e-10 (seconds and flops aside),
// warnings by guard (their messages carry numbers printed to 6 digits, so exactly too).
void check_report(const FitReport& a, const FitReport& b, const std::string& what) {
  INFO(what);
  CHECK(a.iterations == b.iterations);
  CHECK(a.termination == b.termination);
  CHECK(a.message == b.message);
  if (std::isnan(a.final_error))
    CHECK(std::isnan(b.final_error));
  else
    check_close(a.final_error, b.final_error, what + " final error");
  REQUIRE(a.figures.size() == b.figures.size());
  for (const auto& [key, value] : a.figures) {
    REQUIRE(b.figures.count(key) == 1);
    check_close(value, b.figures.at(key), what + " figure " + key);
  }
  REQUIRE(a.series.size() == b.series.size());
  for (const auto& [key, values] : a.series) {
    REQUIRE(b.series.count(key) == 1);
    check_close(values, b.series.at(key), what + " series " + key);
  }
  REQUIRE(a.curve.size() == b.curve.size());
  for (std::size_t i = 0; i < a.curve.size(); ++i) {
    CHECK(a.curve[i].iteration == b.curve[i].iteration);
    check_close(a.curve[i].error, b.curve[i].error, what + " curve");
  }
  REQUIRE(a.warnings.size() == b.warnings.size());
  for (std::size_t i = 0; i < a.warnings.size(); ++i) {
    CHECK(a.warnings[i].guard == b.warnings[i].guard);
    CHECK(a.warnings[i].message == b.warnings[i].message);
  }
}

void check_same_report(const FitReport& a, const FitReport& b, const std::string& what) {
  INFO(what);
  CHECK(a.iterations == b.iterations);
  CHECK(std::memcmp(&a.final_error, &b.final_error, sizeof(double)) == 0);
  for (const auto& [key, value] : a.figures) CHECK(b.figures.at(key) == value);
  for (const auto& [key, values] : a.series) CHECK(b.series.at(key) == values);
}

// Standardised waveform (3 classes, 21 features; classes interleaved; 1501 rows, so even shards
// of 2 and 3 ranks are uneven) and iris (ordered by class: 50 rows each), from the repository's
// example data.
const testing::Data& waveform() {
  static const testing::Data data = testing::load_standardised("waveform.csv", 1501);
  return data;
}
const testing::Data& iris() {
  static const testing::Data data = testing::load_standardised("iris.csv", 150);
  return data;
}

Dataset as_dataset(const testing::Data& d) {
  Dataset out;
  out.inputs = d.x;
  out.classes = d.y;
  out.num_classes = d.k;
  out.task = Task::Classification;
  for (std::size_t k = 0; k < d.k; ++k) out.class_values.push_back(double(k));
  out.source = "test data";
  return out;
}

void check_kmeans(const KMeansResult& single, const KMeansResult& sharded, RowRange mine,
                  const std::string& what) {
  INFO(what);
  check_close(single.centres, sharded.centres, what + " centres");
  REQUIRE(sharded.assignment.size() == mine.count);
  std::size_t moved = 0;
  for (std::size_t i = 0; i < mine.count; ++i)
    moved += single.assignment(mine.first + i) != sharded.assignment(i) ? 1 : 0;
  CHECK(moved == 0);
  check_same(single.cluster_sizes, sharded.cluster_sizes, what + " cluster sizes");
  check_close(single.cluster_spread, sharded.cluster_spread, what + " spreads");
  check_close(single.inertia, sharded.inertia, what + " inertia");
  CHECK(single.iterations == sharded.iterations);
  CHECK(single.converged == sharded.converged);
  CHECK(single.empty_cluster_repairs == sharded.empty_cluster_repairs);
}

const std::vector<Split> kSplits{Split::Even, Split::EmptyRank, Split::FirstRows};

}  // namespace

TEST_CASE("k-means under sharding: kmeans++, random, empty-cluster repairs", "[mpi][kmeans]") {
  const Matrix& x = waveform().x;
  for (const std::string init : {"kmeans++", "random"}) {
    KMeansOptions o;
    o.count = 12;
    o.init = init;
    std::mt19937_64 rng(11);
    const KMeansResult single = kmeans(x, o, rng);
    CHECK(single.iterations > 1);
    for (Split split : kSplits) {
      const RowRange mine = my_rows(split, x.shape(0), 700);
      const Matrix xs = rows_of(x, mine);
      ShardedScope scope(world());
      std::mt19937_64 a(11), b(11);
      const KMeansResult first = kmeans(xs, o, a), second = kmeans(xs, o, b);
      check_kmeans(single, first, mine, init + " " + name(split));
      check_same(first.centres, second.centres, "second run centres");
      CHECK(a() == b());  // the same draws taken
    }
  }
  // Initial centres far from the data: most clusters empty after the first assignment, so the
  // farthest-point repair picks rows across ranks.
  Matrix start = xt::zeros<double>({std::size_t(8), x.shape(1)});
  for (std::size_t j = 0; j < 8; ++j) start(j, 0) = j < 2 ? double(j) : 1e3 * double(j);
  KMeansOptions o;
  o.count = 8;
  const KMeansResult single = kmeans_lloyd(x, start, o);
  REQUIRE(single.empty_cluster_repairs >= 6);
  for (Split split : kSplits) {
    const RowRange mine = my_rows(split, x.shape(0), 700);
    ShardedScope scope(world());
    check_kmeans(single, kmeans_lloyd(rows_of(x, mine), start, o), mine,
                 "repairs " + name(split));
  }
}

TEST_CASE("mixture EM under sharding: shapes, K-d tree, reseed", "[mpi][em]") {
  const Matrix& x = waveform().x;
  for (const Shape shape : {Shape::Spherical, Shape::Diagonal, Shape::Full}) {
    for (const bool tree : {false, true}) {
      if (tree && shape == Shape::Full) continue;
      EmOptions em;
      em.shape = shape;
      em.iterations = 25;
      em.use_tree = tree;
      std::mt19937_64 rng(5);
      const EmResult single = em_mixture_kmeans(x, 6, em, rng);
      for (Split split : kSplits) {
        const std::string what =
            std::string(to_string(shape)) + (tree ? " tree " : " ") + name(split);
        const RowRange mine = my_rows(split, x.shape(0), 700);
        const Matrix xs = rows_of(x, mine);
        ShardedScope scope(world());
        std::mt19937_64 a(5), b(5);
        const EmResult first = em_mixture_kmeans(xs, 6, em, a);
        const EmResult second = em_mixture_kmeans(xs, 6, em, b);
        INFO(what);
        check_centres(single.components, first.components, what);
        check_close(single.weights, first.weights, what + " weights");
        check_close(single.log_likelihood, first.log_likelihood, what + " log-likelihood");
        CHECK(single.iterations == first.iterations);
        CHECK(single.converged == first.converged);
        CHECK(single.floored == first.floored);
        CHECK(single.fallback_rows == first.fallback_rows);
        check_close(single.mean_candidates, first.mean_candidates, what + " candidates");
        CHECK(single.notes == first.notes);
        check_same_centres(first.components, second.components, what + " rerun");
        check_same(first.log_likelihood, second.log_likelihood, what + " rerun log-likelihood");
      }
    }
  }
  // A component far from every row loses all responsibility: reseeded at the worst-explained
  // rows of all ranks.
  Centres start;
  start.shape = Shape::Diagonal;
  start.means = xt::zeros<double>({std::size_t(3), x.shape(1)});
  start.diagonal = xt::ones<double>({std::size_t(3), x.shape(1)});
  for (std::size_t k = 0; k < x.shape(1); ++k) {
    start.means(1, k) = 0.5;
    start.means(2, k) = 1e3;
  }
  start.diagonal(2, 0) = 1e-3;
  Vector w = {0.4, 0.4, 0.2};
  EmOptions em;
  em.shape = Shape::Diagonal;
  em.iterations = 10;
  const EmResult single = em_mixture(x, start, w, em);
  REQUIRE(single.empty_repairs >= 1);
  for (Split split : kSplits) {
    const RowRange mine = my_rows(split, x.shape(0), 700);
    ShardedScope scope(world());
    const EmResult sharded = em_mixture(rows_of(x, mine), start, w, em);
    INFO("reseed " << name(split));
    CHECK(single.empty_repairs == sharded.empty_repairs);
    CHECK(single.notes == sharded.notes);
    check_centres(single.components, sharded.components, "reseed " + name(split));
    check_close(single.log_likelihood, sharded.log_likelihood, "reseed log-likelihood");
  }
}

TEST_CASE("discriminative E-step and per-class mixtures under sharding", "[mpi][em]") {
  // iris is ordered by class: with FirstRows (50) rank 0 holds class 0 only and the other ranks
  // none of class 0.
  const testing::Data& data = iris();
  const Centres c = testing::em_start(data, 2, 3);
  Vector num, den;
  testing::log_weights(c, num, den);
  for (const bool tree : {false, true}) {
    EStepOptions o;
    std::unique_ptr<GaussianBoxTree> box;
    GaussianBoxTreeOptions to;
    to.threshold = 4.0;
    if (tree) {
      box = std::make_unique<GaussianBoxTree>(c, data.x, to);
      o.tree = box.get();
    }
    MixtureCounts sn, sd;
    const DiscriminativeSummary single =
        e_step_discriminative(data.x, data.y, c, num, den, o, sn, sd);
    for (Split split : kSplits) {
      const std::string what = std::string(tree ? "tree " : "") + name(split);
      const RowRange mine = my_rows(split, data.x.shape(0), 50);
      const Matrix xs = rows_of(data.x, mine);
      ShardedScope scope(world());
      std::unique_ptr<GaussianBoxTree> sharded_box;
      if (tree) {
        sharded_box = std::make_unique<GaussianBoxTree>(c, box_tree_sample(xs, to.sample_rows), to);
        o.tree = sharded_box.get();
      }
      MixtureCounts pn, pd;
      const DiscriminativeSummary sharded =
          e_step_discriminative(xs, labels_of(data.y, mine), c, num, den, o, pn, pd);
      INFO(what);
      check_close(single.log_numerator, sharded.log_numerator, what + " numerator");
      check_close(single.log_denominator, sharded.log_denominator, what + " denominator");
      CHECK(single.fallback_rows == sharded.fallback_rows);
      check_close(single.mean_candidates, sharded.mean_candidates, what + " candidates");
      for (auto [s, p] : {std::pair<MixtureCounts*, MixtureCounts*>{&sn, &pn}, {&sd, &pd}}) {
        check_close(s->c1, p->c1, what + " C(1)");
        check_close(s->cx, p->cx, what + " C(x)");
        check_close(s->cy, p->cy, what + " C(y)");
        check_close(s->scatter_diagonal, p->scatter_diagonal, what + " scatter");
      }
    }
  }
  // The class-weighted E-step (PRBF's eq 4) for both shapes, with class counts.
  for (const Shape shape : {Shape::Diagonal, Shape::Full}) {
    EmOptions em;
    em.shape = shape;
    em.iterations = 5;
    std::mt19937_64 rng(4);
    const EmResult fit = em_mixture_kmeans(data.x, 5, em, rng);
    Matrix log_pi = Matrix::from_shape({std::size_t(5), data.k});
    for (std::size_t j = 0; j < 5; ++j)
      for (std::size_t k = 0; k < data.k; ++k)
        log_pi(j, k) = std::log(double(1 + j + 2 * k) / 40.0);
    MixtureCounts single;
    const EStepSummary s = e_step(data.x, fit.components, log_pi, data.y, EStepOptions{}, single);
    for (Split split : kSplits) {
      const std::string what =
          std::string("class-weighted ") + to_string(shape) + " " + name(split);
      const RowRange mine = my_rows(split, data.x.shape(0), 50);
      const Matrix xs = rows_of(data.x, mine);
      ShardedScope scope(world());
      MixtureCounts sharded;
      const EStepSummary p =
          e_step(xs, fit.components, log_pi, labels_of(data.y, mine), EStepOptions{}, sharded);
      check_close(s.log_likelihood, p.log_likelihood, what + " log-likelihood");
      check_close(single.c1, sharded.c1, what + " C(1)");
      check_close(single.cx, sharded.cx, what + " C(x)");
      check_close(single.scatter_diagonal, sharded.scatter_diagonal, what + " scatter");
      check_close(single.scatter, sharded.scatter, what + " full scatter");
      check_close(single.class_c1, sharded.class_c1, what + " class C(1)");
      check_close(single.class_cx, sharded.class_cx, what + " class C(x)");
    }
  }

  EmOptions em;
  em.shape = Shape::Full;
  em.iterations = 15;
  std::mt19937_64 rng(9);
  const ClassMixtures single = fit_class_mixtures(data.x, data.y, data.k, 2, em, rng, "test");
  for (Split split : kSplits) {
    const RowRange mine = my_rows(split, data.x.shape(0), 50);
    ShardedScope scope(world());
    std::mt19937_64 r(9);
    const ClassMixtures sharded = fit_class_mixtures(rows_of(data.x, mine),
                                                     labels_of(data.y, mine), data.k, 2, em, r,
                                                     "test");
    check_centres(single.centres, sharded.centres, "per-class " + name(split));
    CHECK(single.kmeans_repairs == sharded.kmeans_repairs);
  }
}

namespace {

struct LearnerCase {
  std::string id;
  std::map<std::string, ParamValue> params;
  bool use_iris = false;
};

Centres fit_learner(const LearnerCase& c, const Dataset& data, FitReport& report,
                    int threads = 1) {
  const Registry& registry = testing::shipped_registry();
  const auto& info = registry.require(Slot::Centres, c.id);
  auto learner = registry.make_centre_learner(
      c.id, validate_params(info.params, c.params, "centres " + c.id));
  FitContext ctx(42, threads);
  Centres centres = learner->fit(data, nullptr, ctx);
  report = ctx.report;
  return centres;
}

}  // namespace

TEST_CASE("every shipped centre learner under sharding", "[mpi][plugins]") {
  // The fixed learner's file, one per rank (ranks may share a folder).
  const std::string file = (testing::binary_dir() / ("centres-mpi-rank" +
                                                     std::to_string(world().rank()) + ".csv"))
                               .string();
  {
    std::ofstream out(file);
    out << "a,b,c,d,variance\n0,0,0,0,1\n1,1,1,1,2\n";
  }
  using P = std::map<std::string, ParamValue>;
  const std::vector<LearnerCase> cases{
      {"kmeans", P{{"count", std::int64_t(10)}}, false},
      {"kmeans", P{{"count", std::int64_t(6)}, {"init", std::string("random")}}, true},
      {"gmm", P{{"count", std::int64_t(5)}, {"covariance", std::string("full")}}, false},
      {"gmm", P{{"count", std::int64_t(2)}, {"mode", std::string("per-class")}}, true},
      {"gmm", P{{"count", std::int64_t(3)}, {"mode", std::string("per-class")},
                {"kdtree", true}}, false},
      {"dem", P{{"count", std::int64_t(2)}, {"iterations", std::int64_t(15)}}, true},
      {"dem", P{{"count", std::int64_t(2)}, {"iterations", std::int64_t(10)}, {"kdtree", true}},
       false},
      {"prbf", P{{"count", std::int64_t(6)}, {"iterations", std::int64_t(20)}}, false},
      {"prbf", P{{"count", std::int64_t(4)}, {"covariance", std::string("full")},
                 {"init", std::string("gmm")}, {"iterations", std::int64_t(10)}}, true},
      {"subset", P{{"count", std::int64_t(7)}}, false},
      {"subset", P{{"all", true}}, true},
      {"fixed", P{{"file", std::string(file)}}, true},
  };
  for (const LearnerCase& c : cases) {
    const Dataset data = as_dataset(c.use_iris ? iris() : waveform());
    FitReport single_report;
    const Centres single = fit_learner(c, data, single_report);
    for (Split split : kSplits) {
      std::ostringstream what;
      what << c.id << " #" << (&c - cases.data()) << " " << name(split);
      const RowRange mine = my_rows(split, data.rows(), c.use_iris ? 50 : 700);
      const Dataset shard = dataset_of(data, mine);
      INFO(what.str());
      ShardedScope scope(world());
      FitReport first_report, second_report;
      const Centres first = fit_learner(c, shard, first_report);
      // The rerun with 2 threads: results depend neither on the run nor on the thread count.
      const Centres second = fit_learner(c, shard, second_report, 2);
      check_centres(single, first, what.str());
      check_report(single_report, first_report, what.str());
      check_same_centres(first, second, what.str() + " rerun");
      check_same_report(first_report, second_report, what.str() + " rerun");
    }
  }
}
