// [search] against an independent by-hand cross-validation through the library's public API
// (parse_pipeline with overrides for each candidate, assign_folds, train() on each fold), thread
// count invariance, nested CV, ties, failures and the reader's messages.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <random>

#include <catch2/catch.hpp>

#include <radial/testing/paths.hpp>

#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/registry.hpp"
#include "radial/training/trainer.hpp"

namespace {

using radial::Pipeline;

const radial::Registry& plugins() { return radial::testing::shipped_registry(); }

// Relative data paths resolve against docs/examples.
std::filesystem::path file() { return radial::testing::source_dir() / "docs/examples/search-test.toml"; }

// k-means + thin-plate + least squares.
const std::string thin_plate_ls = R"([basis]
plugin = "thin-plate"
[centres]
plugin = "kmeans"
count = 4
[output]
plugin = "least-squares"
)";

// Nabney's synthetic two-class problem, standardised, and thin_plate_ls.
const std::string base = R"(seed = 7
[data]
train = "data/synth3_train.csv"
target = "label"
)" + thin_plate_ls;

Pipeline parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return radial::parse_pipeline(text, file(), plugins(), overrides);
}

radial::Dataset synth() {
  radial::DataOptions options;
  options.target = "label";
  options.target_from_pipeline = true;
  return radial::read_dataset(radial::testing::source_dir() / "docs/examples/data/synth3_train.csv",
                              options);
}

std::string message_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    parse(text, overrides);
  } catch (const radial::PipelineError& e) {
    return e.what();
  }
  return "(no error)";
}

struct ByHand {
  std::vector<double> per_fold;
  double mean = 0, sd = 0;
};

// The cross-validation of one candidate as the documentation describes it: folds from
// assign_folds(rows, k, stratified, derive_seed(seed, 5)), fold j fitted by train() on its raw
// rows with seed derive_seed(derive_seed(seed, 6), j) and tested on the held-out rows, as
// [evaluate] does.
ByHand cross_validate(const Pipeline& candidate, const radial::Dataset& raw, std::uint64_t seed,
                      std::size_t folds, const std::string& metric) {
  const auto fold_of = radial::assign_folds(raw, folds, true, radial::derive_seed(seed, 5));
  ByHand r;
  for (std::size_t j = 0; j < folds; ++j) {
    std::vector<std::size_t> in, out;
    for (std::size_t n = 0; n < raw.rows(); ++n) (fold_of[n] == j ? out : in).push_back(n);
    radial::TrainOptions options;
    options.seed = radial::derive_seed(radial::derive_seed(seed, 6), j);
    options.threads = 1;
    const auto result = radial::train(candidate, plugins(), radial::select_rows(raw, in),
                                      radial::select_rows(raw, out), options);
    const radial::Metrics& m = *result.report.test;
    r.per_fold.push_back(metric == "error_rate" ? *m.error_rate
                         : metric == "mse"      ? m.mse
                                                : *m.cross_entropy);
  }
  r.mean = std::accumulate(r.per_fold.begin(), r.per_fold.end(), 0.0) / double(folds);
  double s = 0;
  for (double v : r.per_fold) s += (v - r.mean) * (v - r.mean);
  r.sd = std::sqrt(s / double(folds - 1));
  return r;
}

radial::TrainingResult train(const Pipeline& p, int threads) {
  radial::TrainOptions options;
  options.threads = threads;
  return radial::train(p, plugins(), synth(), std::nullopt, options);
}

}  // namespace

TEST_CASE("the search chooses the candidate a by-hand cross-validation of each one chooses") {
  for (const std::string metric : {"mse", "error_rate"}) {
    const std::string text = base + "[search]\nfolds = 4\nmetric = \"" + metric +
                             "\"\n\"centres.count\" = [2, 5, 9]\n\"centres.init\" = [\"random\", \"kmeans++\"]\n";
    const Pipeline p = parse(text);
    REQUIRE(p.search->candidates.size() == 6);
    const auto result = train(p, 2);
    REQUIRE(result.report.search);
    const radial::SearchReport& search = *result.report.search;
    CHECK(search.metric == metric);
    CHECK(search.folds == 4);
    REQUIRE(search.candidates.size() == 6);

    const radial::Dataset raw = synth();
    std::size_t best = 0;
    double best_mean = INFINITY;
    std::size_t index = 0;
    for (const std::string count : {"2", "5", "9"}) {  // the first axis varies slowest
      for (const std::string init : {"random", "kmeans++"}) {
        const Pipeline candidate = parse(base, {"centres.count=" + count, "centres.init=" + init});
        const ByHand expected = cross_validate(candidate, raw, 7, 4, metric);
        const radial::SearchCandidateReport& got = search.candidates[index];
        CAPTURE(metric, count, init);
        CHECK(got.values[0].first == "centres.count");
        CHECK(std::get<std::int64_t>(got.values[0].second) == std::stoll(count));
        CHECK(std::get<std::string>(got.values[1].second) == init);
        CHECK(got.error.empty());
        REQUIRE(got.per_fold.size() == 4);
        for (std::size_t j = 0; j < 4; ++j) CHECK(got.per_fold[j] == Approx(expected.per_fold[j]).margin(1e-12));
        CHECK(*got.mean == Approx(expected.mean).margin(1e-12));
        CHECK(*got.sd == Approx(expected.sd).margin(1e-12));
        if (expected.mean < best_mean) best = index, best_mean = expected.mean;
        ++index;
      }
    }
    CHECK(search.best == best);

    // The model is the best candidate refitted on all rows with the pipeline's seed.
    const auto refit = train(p.search->candidates[best], 1);
    CHECK(result.model.centres.means == refit.model.centres.means);
    CHECK(result.model.weights == refit.model.weights);
    const std::string note = "# [search] chose centres.count = " +
                             radial::to_string(search.candidates[best].values[0].second) +
                             ", centres.init = " +
                             radial::to_string(search.candidates[best].values[1].second) + "\n";
    CHECK(result.model.pipeline_text == p.text + note);
    const std::string json = radial::report_json(result.report);
    CHECK(json.find("\"search\"") != std::string::npos);
    CHECK(json.find("\"centres.init\"") != std::string::npos);
  }
}

TEST_CASE("[search] sweeps the refine stage's parameters like any slot's") {
  const std::string refined = base + "[refine]\nplugin = \"lbfgs\"\niterations = 10\n";
  const Pipeline p = parse(refined + "[search]\nfolds = 3\nmetric = \"mse\"\n" +
                           "\"refine.centres\" = [false, true]\n\"refine.iterations\" = [3, 30]\n");
  REQUIRE(p.search->candidates.size() == 4);
  const auto result = train(p, 2);
  REQUIRE(result.report.search);
  const radial::SearchReport& search = *result.report.search;
  const radial::Dataset raw = synth();
  std::size_t index = 0;
  for (const std::string centres : {"false", "true"}) {
    for (const std::string iterations : {"3", "30"}) {
      const Pipeline candidate =
          parse(refined, {"refine.centres=" + centres, "refine.iterations=" + iterations});
      REQUIRE(candidate.refine);
      const ByHand expected = cross_validate(candidate, raw, 7, 3, "mse");
      const radial::SearchCandidateReport& got = search.candidates[index++];
      CAPTURE(centres, iterations);
      CHECK(got.error.empty());
      REQUIRE(got.per_fold.size() == 3);
      for (std::size_t j = 0; j < 3; ++j)
        CHECK(got.per_fold[j] == Approx(expected.per_fold[j]).margin(1e-12));
    }
  }
  // The swept values reach the refiner: the candidates score differently.
  CHECK(search.candidates[0].mean != search.candidates[3].mean);
  CHECK(message_of(base + "[search]\n\"refine.iterations\" = [3]\n")
            .find("has no [refine]") != std::string::npos);
  CHECK(message_of(refined + "[search]\n\"refine.iteration\" = [3]\n")
            .find("has no parameter 'iteration'") != std::string::npos);
}

TEST_CASE("the search's tables and model do not depend on the thread count") {
  const Pipeline p = parse(base + "[search]\nfolds = 3\n\"centres.count\" = [3, 6, 300]\n"
                                  "\"centres.iterations\" = [2, 50]\n");
  const auto one = train(p, 1);
  for (int threads : {2, 3}) {
    const auto other = train(p, threads);
    CAPTURE(threads);
    const auto& a = *one.report.search;
    const auto& b = *other.report.search;
    CHECK(a.best == b.best);
    REQUIRE(a.candidates.size() == b.candidates.size());
    for (std::size_t c = 0; c < a.candidates.size(); ++c) {
      CHECK(a.candidates[c].per_fold == b.candidates[c].per_fold);
      CHECK(a.candidates[c].mean == b.candidates[c].mean);
      CHECK(a.candidates[c].sd == b.candidates[c].sd);
      CHECK(a.candidates[c].error == b.candidates[c].error);
    }
    CHECK(one.model.centres.means == other.model.centres.means);
    CHECK(one.model.weights == other.model.weights);
  }
  // 300 centres cannot be fitted on a fold's 166 rows: recorded as failed, never chosen.
  const auto& failed = one.report.search->candidates[4];
  CHECK_FALSE(failed.mean.has_value());
  CHECK(failed.per_fold.empty());
  CHECK_FALSE(failed.error.empty());
  CHECK(one.report.search->best < 4);
  CHECK(radial::report_json(one.report).find("\"error\"") != std::string::npos);
}

TEST_CASE("when every candidate fails the search says so with the first one's error") {
  const Pipeline p = parse(base + "[search]\nfolds = 3\n\"centres.count\" = [300, 400]\n");
  try {
    train(p, 2);
    FAIL("no error");
  } catch (const radial::InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("[search]: every candidate failed; first: centres.count = 300") != std::string::npos);
    CHECK(what.find("search-test.toml:12:1") != std::string::npos);
  }
}

TEST_CASE("nested cross-validation: each outer fold runs its own search") {
  const Pipeline p = parse(base + "[evaluate]\nfolds = 3\n[search]\nfolds = 3\n"
                                  "\"centres.count\" = [1, 4, 8]\n");
  const Pipeline alone_p = parse(base + "[search]\nfolds = 3\n\"centres.count\" = [1, 4, 8]\n");
  const auto result = train(p, 2);
  REQUIRE(result.report.cv);
  REQUIRE(result.report.search);
  const radial::Dataset raw = synth();
  const auto fold_of = radial::assign_folds(raw, 3, true, radial::derive_seed(7, 5));
  for (std::size_t k = 0; k < 3; ++k) {
    const radial::FoldReport& fold = result.report.cv->per_fold[k];
    REQUIRE(fold.chosen.size() == 1);
    CHECK(fold.chosen[0].first == "centres.count");
    // Fold k is train() of the whole pipeline (search included) on the fold's rows, with the
    // seed the fold's fit gets.
    std::vector<std::size_t> in, out;
    for (std::size_t n = 0; n < raw.rows(); ++n) (fold_of[n] == k ? out : in).push_back(n);
    radial::TrainOptions options;
    options.seed = radial::derive_seed(radial::derive_seed(7, 6), k);
    options.threads = 1;
    const auto alone = radial::train(alone_p, plugins(), radial::select_rows(raw, in),
                                     radial::select_rows(raw, out), options);
    const auto& search = *alone.report.search;
    CHECK(fold.chosen == search.candidates[search.best].values);
    CHECK(fold.test.mse == alone.report.test->mse);
    CHECK(fold.test.error_rate == alone.report.test->error_rate);
  }
  const std::string json = radial::report_json(result.report);
  CHECK(json.find("\"chosen\"") != std::string::npos);
}

TEST_CASE("ties go to the earlier candidate") {
  // Candidates 1 and 2 are the same pipeline: equal means, the earlier one wins.
  const Pipeline p = parse(base + "[search]\nfolds = 4\n\"centres.count\" = [1, 6, 6]\n");
  const auto result = train(p, 3);
  const auto& s = *result.report.search;
  REQUIRE(*s.candidates[1].mean < *s.candidates[0].mean);
  CHECK(s.candidates[1].per_fold == s.candidates[2].per_fold);
  CHECK(s.best == 1);

  // k-means converges within 100 iterations on these folds, so a cap of 200 changes nothing:
  // (6, 100) and (6, 200) tie and the earlier, index 2, is chosen.
  const Pipeline q = parse(base + "[search]\nfolds = 4\n\"centres.count\" = [1, 6]\n"
                                  "\"centres.iterations\" = [100, 200]\n");
  const auto tied = train(q, 2);
  const auto& t = *tied.report.search;
  REQUIRE(t.candidates[2].per_fold == t.candidates[3].per_fold);
  REQUIRE(*t.candidates[2].mean < *t.candidates[0].mean);
  CHECK(t.best == 2);
}

TEST_CASE("the grid: file order, dotted keys, plugins swept, candidate pipelines") {
  const Pipeline p = parse(base + "[search]\n\"output.plugin\" = [\"least-squares\", \"irls\"]\n"
                                  "centres.count = [2, 3]\n");
  const radial::SearchSpec& s = *p.search;
  CHECK(s.folds == 10);
  CHECK(s.metric.empty());
  CHECK(s.stratified);
  REQUIRE(s.axes.size() == 2);
  CHECK(s.axes[0].key == "output.plugin");  // the file's order, not toml++'s sorted one
  CHECK(s.axes[1].key == "centres.count");
  CHECK(s.axes[1].where[1].line == 14);
  CHECK(s.axes[1].where[1].column == 21);
  REQUIRE(s.candidates.size() == 4);
  CHECK(s.candidates[1].output.plugin == "least-squares");
  CHECK(s.candidates[1].centres.params.integer("count") == 3);
  CHECK(s.candidates[2].output.plugin == "irls");
  CHECK(s.candidates[2].output.params.has("link"));  // validated: defaults filled
  CHECK(s.candidates[2].centres.params.integer("count") == 2);
  for (const auto& c : s.candidates) CHECK_FALSE(c.search);
  CHECK(s.candidates[3].text.find("# [search] candidate: output.plugin = \"irls\", centres.count = 3") != std::string::npos);
  CHECK(s.candidates[3].settings.find("search") == std::string::npos);
  CHECK(p.settings.find("search") != std::string::npos);
  CHECK(s.candidates[0].settings != s.candidates[1].settings);

  // --set reaches [search] like any table.
  const Pipeline five = parse(base + "[search]\nfolds = 10\n\"centres.count\" = [2]\n", {"search.folds=5"});
  CHECK(five.search->folds == 5);
  CHECK_FALSE(parse(base).search.has_value());
}

TEST_CASE("a bad [search] is reported where it is written") {
  // Line 12 is [search]; the values' columns are counted by hand.
  struct Case {
    std::string search;                  // the [search] table after `base`
    std::vector<std::string> overrides;  // as --set
    std::string message, also;           // what the message contains (also: when not empty)
  };
  const std::vector<Case> cases = {
      {"[search]\n\"centres.count\" = [2, 0]\n", {}, "search-test.toml:13:23: centres plugin 'kmeans'", "count"},
      {"[search]\nfold = 5\n\"centres.count\" = [2]\n", {}, "search-test.toml:13:1: unknown key 'fold' in [search] (did you mean 'folds'?)", ""},
      {"[search]\n\"nocentres.count\" = [2]\n", {}, "search-test.toml:13:1: [search] key \"nocentres.count\": 'nocentres' is not a slot (did you mean 'centres'?)", ""},
      {"[search]\n\"centres.count\" = []\n", {}, "search-test.toml:13:19: [search] \"centres.count\" is empty", ""},
      {"[search]\n\"centres.count\" = 3\n", {}, "search-test.toml:13:19: [search] \"centres.count\" must be an array", ""},
      {"[search]\nfolds = 1\n\"centres.count\" = [2]\n", {}, "search-test.toml:13:9: folds = 1. Violated constraint: folds is an integer >= 2", ""},
      {"[search]\n\"centres.count\" = [2]\n", {"search.folds=1"}, "--set search.folds=1: folds = 1", ""},
      {"[search]\nmetric = \"error\"\n\"centres.count\" = [2]\n", {}, "search-test.toml:13:10: metric = \"error\"", "(did you mean 'error_rate'?)"},
      {"[search]\n\"centres.cout\" = [2]\n", {}, "search-test.toml:13:1: [search] sweeps \"centres.cout\", but centres plugin 'kmeans' has no parameter 'cout' (did you mean 'count'?)", ""},
      {"[search]\n\"kernel-prior.alpha\" = [0.1]\n", {}, "search-test.toml:13:1: [search] sweeps \"kernel-prior.alpha\" but the pipeline has no [kernel-prior]", ""},
      {"[search]\nfolds = 3\n", {}, "search-test.toml:12:1: [search] sweeps nothing", ""},
      {"[search]\n\"centres.count\" = [2, [3]]\n", {}, "search-test.toml:13:23: [search] \"centres.count\": a value to try must be", ""},
      {"[search]\n\"output.plugin\" = [\"irls\", \"kmeans\"]\n", {}, "search-test.toml:13:28: unknown output plugin 'kmeans'", ""},
  };
  for (const Case& c : cases) {
    INFO(c.search);
    const std::string message = message_of(base + c.search, c.overrides);
    CHECK_THAT(message, Catch::Contains(c.message));
    if (!c.also.empty()) CHECK_THAT(message, Catch::Contains(c.also));
  }
  // A whole component is validated per candidate: least-squares takes no link.
  std::string logistic = base;
  logistic.replace(logistic.find("\"least-squares\""), 15, "\"irls\"\nlink = \"logistic\"");
  CHECK_THAT(message_of(logistic + "[search]\n\"output.plugin\" = [\"irls\", \"least-squares\"]\n"),
             Catch::Contains("search-test.toml:14:28: [search] candidate output.plugin = \"least-squares\": ") &&
                 Catch::Contains("unknown parameter 'link' for output plugin 'least-squares'"));
  CHECK_THAT(message_of(base + "[search]\n\"centres.count\" = [2]\ncentres.count = [3]\n"),
             Catch::Contains("sweeps \"centres.count\" twice"));
}

TEST_CASE("the metric must fit the data and the outputs") {
  const std::string regression = "seed = 1\n[data]\ntrain = \"data/sine.train.csv\"\n" +
                                 thin_plate_ls + "[search]\nfolds = 3\n\"centres.count\" = [2, 4]\n";
  radial::DataOptions options;
  const auto sine = radial::read_dataset(radial::testing::source_dir() / "docs/examples/data/sine.train.csv", options);
  const auto ok = radial::train(parse(regression), plugins(), sine, std::nullopt, {});
  CHECK(ok.report.search->metric == "mse");
  try {
    radial::train(parse(regression + "metric = \"error_rate\"\n"), plugins(), sine, std::nullopt, {});
    FAIL("no error");
  } catch (const radial::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("[search] metric = \"error_rate\" needs classes") &&
                             Catch::Contains("use metric = \"mse\""));
  }
  try {
    train(parse(base + "[search]\nfolds = 3\nmetric = \"cross_entropy\"\n\"centres.count\" = [2]\n"), 1);
    FAIL("no error");
  } catch (const radial::InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("[search] metric = \"cross_entropy\" needs probabilities") &&
                             Catch::Contains("least-squares") && Catch::Contains("\"error_rate\""));
  }
  // With probabilities it is the mean cross-entropy over the held-out rows.
  const auto ce = train(parse(base + "[search]\nfolds = 3\nmetric = \"cross_entropy\"\n"
                                     "\"output.plugin\" = [\"irls\"]\n"), 1);
  CHECK(*ce.report.search->candidates[0].mean > 0);
}

TEST_CASE("a search's score of a candidate is [evaluate]'s number for it") {
  // The search and [evaluate] folds = 5 with the same seed: the same folds, the same fits.
  const Pipeline searched = parse(base + "[search]\nfolds = 5\n\"centres.count\" = [3, 6]\n");
  const auto result = train(searched, 1);
  const auto& candidates = result.report.search->candidates;
  for (const std::int64_t count : {3, 6}) {
    const Pipeline evaluated =
        parse(base + "[evaluate]\nfolds = 5\n", {"centres.count=" + std::to_string(count)});
    const auto cv = train(evaluated, 1).report.cv;
    REQUIRE(cv);
    const auto& candidate = candidates[count == 3 ? 0 : 1];
    INFO("count " << count);
    CHECK(*candidate.mean == Approx(cv->error_rate).epsilon(1e-15));
  }
}

TEST_CASE("[evaluate] and [search] run on folds the user gives, from a file or a column") {
  const radial::Dataset raw = synth();
  const std::size_t n = raw.rows();
  // Folds 7, 3, 5 in a fixed pattern (renumbered 3 -> 0, 5 -> 1, 7 -> 2), after a header.
  const std::vector<int> given = {7, 3, 5};
  const auto folder = std::filesystem::temp_directory_path() / "radial-test-user-folds";
  std::filesystem::create_directories(folder);
  const auto fold_file = folder / "folds.csv";
  {
    std::ofstream out(fold_file);
    out << "fold\n";
    for (std::size_t r = 0; r < n; ++r) out << given[(r * 7) % 3] << "\n";
  }
  const Pipeline p = parse(base + "[evaluate]\nfold_file = \"" + fold_file.string() +
                           "\"\n[search]\n\"centres.count\" = [3, 6]\n");
  const auto result = train(p, 2);
  REQUIRE(result.report.cv);
  CHECK(result.report.cv->folds == 3);
  CHECK(result.report.search->folds == 3);
  const Pipeline single = parse(base);
  for (std::size_t k = 0; k < 3; ++k) {
    const int value = k == 0 ? 3 : k == 1 ? 5 : 7;
    std::vector<std::size_t> in, out;
    for (std::size_t r = 0; r < n; ++r) (given[(r * 7) % 3] == value ? out : in).push_back(r);
    // The top-level search on the given folds: candidate count = 3 on fold k by hand.
    radial::TrainOptions options;
    options.seed = radial::derive_seed(radial::derive_seed(7, 6), k);
    options.threads = 1;
    const auto alone = radial::train(parse(base, {"centres.count=3"}), plugins(),
                                     radial::select_rows(raw, in), radial::select_rows(raw, out),
                                     options);
    CHECK(result.report.search->candidates[0].per_fold[k] == *alone.report.test->error_rate);
    CHECK(result.report.cv->per_fold[k].test_rows == out.size());
  }

  // The same folds as a column of the data: taken out of the inputs, the same numbers.
  const auto data_file = folder / "with-folds.csv";
  {
    std::ofstream out(data_file);
    out << "x1,x2,fold,label\n";
    for (std::size_t r = 0; r < n; ++r)
      out << raw.inputs(r, 0) << "," << raw.inputs(r, 1) << "," << given[(r * 7) % 3] << ","
          << raw.class_values[std::size_t(raw.classes(r))] << "\n";
  }
  std::string column = base;
  column.replace(column.find("data/synth3_train.csv"), std::strlen("data/synth3_train.csv"),
                 data_file.string());
  const Pipeline by_column = parse(column + "[evaluate]\nfold_column = \"fold\"\n");
  radial::TrainOptions one_thread;
  one_thread.threads = 1;
  const auto from_column = radial::train(by_column, plugins(), one_thread);  // reads the file
  CHECK(from_column.model.feature_names == std::vector<std::string>{"x1", "x2"});
  REQUIRE(from_column.report.cv->folds == 3);
  const Pipeline by_file = parse(base + "[evaluate]\nfold_file = \"" + fold_file.string() + "\"\n");
  const auto from_file = train(by_file, 1);
  for (std::size_t k = 0; k < 3; ++k)
    CHECK(from_column.report.cv->per_fold[k].test.error_rate ==
          from_file.report.cv->per_fold[k].test.error_rate);

  // Bad folds: a short file, a word, one fold; each named.
  const auto bad = folder / "bad.csv";
  const auto refuse = [&](const std::string& text, const std::string& says) {
    { std::ofstream(bad) << text; }
    const Pipeline q = parse(base + "[evaluate]\nfold_file = \"" + bad.string() + "\"\n");
    REQUIRE_THROWS_WITH(train(q, 1), Catch::Contains(says));
  };
  refuse("0\n1\n", "2 folds for " + std::to_string(n) + " training rows");
  std::string words = "fold\n0\n";
  for (std::size_t r = 1; r < n; ++r) words += r == 5 ? "two\n" : "1\n";
  refuse(words, "bad.csv:7: \"two\" is not a fold number");
  std::string one;
  for (std::size_t r = 0; r < n; ++r) one += "4\n";
  refuse(one, "1 distinct fold(s)");
  refuse("fold\n" + std::string(100000, '1') + "\n", "bad.csv:2: a line longer than 64");
  REQUIRE_THROWS_WITH(parse(base + "[evaluate]\nfold_file = \"" + (folder / "none.csv").string() + "\"\n"),
                      Catch::Contains("is not a file"));
  std::filesystem::remove_all(folder);
}

TEST_CASE("an irls output's penalty: the closed form proposes, its own cross-validated path decides") {
  const std::string text = R"(seed = 3
[data]
train = "data/synth3_train.csv"
target = "label"
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
count = 8
[output]
plugin = "irls"
link = "logistic"
)";
  const auto result = train(parse(text), 1);
  REQUIRE(result.report.selection);
  const radial::SelectionReport& s = *result.report.selection;
  CHECK(s.penalty_added);
  CHECK(s.path_metric == "error_rate");
  CHECK(s.path_folds == 5);
  REQUIRE(s.path_alphas.size() >= 3);
  // Alphas from large to small by factors of 3, cut short after two no better than the best.
  for (std::size_t i = 1; i < s.path_alphas.size(); ++i)
    CHECK(s.path_alphas[i - 1] / s.path_alphas[i] == Approx(3.0).epsilon(1e-12));
  double lowest = s.path_errors[0];
  for (double e : s.path_errors) lowest = std::min(lowest, e);
  double chosen = 0;
  for (const auto& [key, value] : s.chosen)
    if (key == "weight-penalty.alpha") chosen = std::get<double>(value);
  // Every alpha fitted every fold or stopped hopeless, above the best; the chosen alpha is one
  // of the lowest error (ties go to the lower cross-entropy).
  REQUIRE(s.path_fitted_folds.size() == s.path_alphas.size());
  for (std::size_t i = 0; i < s.path_alphas.size(); ++i)
    if (s.path_fitted_folds[i] < 5) CHECK(s.path_errors[i] > lowest);
  const auto at = std::find(s.path_alphas.begin(), s.path_alphas.end(), chosen);
  REQUIRE(at != s.path_alphas.end());
  CHECK(s.path_errors[std::size_t(at - s.path_alphas.begin())] == lowest);
  // The model was fitted with that penalty: its pipeline says so.
  CHECK(result.model.pipeline_text.find("# chose by leave-one-out") != std::string::npos);
  // 250 rows: chosen on all of them.
  CHECK(s.rows == 250);
  CHECK(s.sample_of == 0);
}

TEST_CASE("above 100000 training rows the values are chosen on a sample of about 100000") {
  // y = sin(3x) + noise, x uniform on [-2, 2]: 150000 rows.
  constexpr std::size_t n = 150000;
  radial::Dataset data;
  data.task = radial::Task::Regression;
  data.inputs = radial::Matrix::from_shape({n, 1});
  data.values = radial::Vector::from_shape({n});
  data.feature_names = {"x"};
  data.target_name = "y";
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::normal_distribution<double> noise(0.0, 0.1);
  for (std::size_t i = 0; i < n; ++i) {
    data.inputs(i, 0) = u(rng);
    data.values(i) = std::sin(3 * data.inputs(i, 0)) + noise(rng);
  }
  const Pipeline p = parse(R"(seed = 5
[data]
train = "data/synth3_train.csv"  # not read: the rows are given
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
count = 12
[output]
plugin = "least-squares"
)");
  const auto result = radial::train(p, plugins(), std::move(data), std::nullopt, {});
  REQUIRE(result.report.selection);
  const radial::SelectionReport& s = *result.report.selection;
  // Each row kept with probability 2/3: 100000 +- 4.5 sd (sd 183).
  CHECK(s.sample_of == n);
  CHECK(std::abs(double(s.rows) - 100000.0) < 830);
  // Still a good fit: the training MSE near the noise's variance 0.01.
  CHECK(result.report.train.mse < 0.0105);
}

TEST_CASE("a search that chooses the largest or smallest value tried warns grid-edge") {
  const auto result = train(parse(base + "[search]\nfolds = 3\n\"centres.count\" = [1, 2]\n"
                                         "\"centres.init\" = [\"random\", \"kmeans++\"]\n"), 1);
  const auto& s = *result.report.search;
  // Two counts: whichever wins is an edge; init is not a number.
  REQUIRE(s.edges == std::vector<std::string>{"centres.count"});
  bool warned = false;
  for (const auto& w : result.report.warnings)
    warned = warned || (w.component == "search" && w.guard == "grid-edge" &&
                        w.message.find("centres.count") != std::string::npos);
  CHECK(warned);
  // A count inside its grid is no edge; 1 or 40 are.
  const auto inside = train(parse(base + "[search]\nfolds = 3\n\"centres.count\" = [1, 4, 40]\n"), 1);
  const auto& in = *inside.report.search;
  const std::int64_t count = std::get<std::int64_t>(in.candidates[in.best].values[0].second);
  CHECK(in.edges.empty() == (count == 4));
}
