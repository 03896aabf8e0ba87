// The parallel runner against the results store: results independent of jobs, failed runs
// stored with their message, nothing run twice.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "experiment_fixture.hpp"
#include "radial/exec/blas_threads.hpp"
#include "radial/experiment/results_store.hpp"

using experiment_test::Folder;
using experiment_test::plugins;

namespace {

// The report without what depends on the machine: wall and CPU times and the thread count.
nlohmann::json timeless(nlohmann::json value) {
  if (value.is_object()) {
    value.erase("seconds");
    value.erase("cpu_seconds");
    value.erase("threads");
    for (auto& [key, item] : value.items()) item = timeless(item);
  } else if (value.is_array()) {
    for (auto& item : value) item = timeless(item);
  }
  return value;
}

struct Stored {
  std::string key, dataset, pipeline, overrides, status, message;
  std::uint64_t seed;
  nlohmann::json report;
  bool operator==(const Stored& o) const {
    return std::tie(key, dataset, pipeline, overrides, status, message, seed, report) ==
           std::tie(o.key, o.dataset, o.pipeline, o.overrides, o.status, o.message, o.seed, o.report);
  }
};

std::vector<Stored> stored(const radial::ResultsStore& store) {
  std::vector<Stored> out;
  for (const auto& r : store.runs()) {
    out.push_back({r.key, r.dataset, r.pipeline, r.overrides, r.status, r.message, r.seed,
                   r.report.empty() ? nlohmann::json() : timeless(nlohmann::json::parse(r.report))});
  }
  return out;
}

}  // namespace

TEST_CASE("one job and two jobs store the same results") {
  Folder folder;
  const radial::Experiment e = folder.read();
  const auto runs = radial::plan_runs(e, plugins());
  radial::ResultsStore one(folder / "one.sqlite"), two(folder / "two.sqlite");
  radial::ExperimentOptions options;
  options.jobs = 1;
  std::size_t calls = 0, last_done = 0;
  options.progress = [&](const radial::ExperimentProgress& p) {
    ++calls;
    CHECK(p.done == last_done + 1);
    CHECK(p.total == 18);
    REQUIRE(p.finished != nullptr);
    REQUIRE(p.record != nullptr);
    CHECK(p.record->key == p.finished->key);
    last_done = p.done;
  };
  const auto a = radial::run_experiment(e, runs, one, plugins(), options);
  CHECK(calls == 18);
  options.jobs = 2;
  options.progress = nullptr;
  const auto b = radial::run_experiment(e, runs, two, plugins(), options);
  CHECK(a.planned == 18);
  CHECK(a.ran == 18);
  CHECK(a.failed == 0);
  CHECK(b.ran == 18);
  const auto x = stored(one), y = stored(two);
  REQUIRE(x.size() == 18);
  CHECK(x == y);

  for (const auto& r : x) {
    INFO(r.dataset << " " << r.pipeline << " " << r.message);
    CHECK(r.status == "ok");
    if (r.dataset == "split") {
      CHECK(r.report["data"]["train_rows"] == 40);  // train_rows of 60, the rest tested
      CHECK(r.report["data"]["test_rows"] == 20);
    }
    if (r.dataset == "cv") {
      CHECK(r.report["cv"]["folds"] == 3);  // the whole file cross-validated
      CHECK(r.report["data"]["test_rows"] == 0);
    }
    if (r.dataset == "pair") CHECK(r.report["data"]["test_rows"] == 30);
  }
  // Seeds draw different splits (the test error of one seed is not that of the other).
  CHECK(x[6].report["test"] != x[7].report["test"]);
}

TEST_CASE("a run that cannot work is stored as failed; the others go on; nothing runs twice") {
  Folder folder;
  folder.write("fail.toml", "seeds = [1, 2]\n"
                            "[[datasets]]\nname = \"ok\"\ntrain = \"a.csv\"\n"
                            "[[datasets]]\nname = \"too-big\"\nfile = \"b.csv\"\n"
                            "split = { train_rows = 60 }\n"
                            "[[datasets]]\nname = \"text\"\ntrain = \"text.csv\"\n"
                            "[[pipelines]]\nfile = \"ls.toml\"\n");
  folder.write("text.csv", "x1,label\n1,0\nseven,1\n");
  const radial::Experiment e = folder.read("fail.toml");
  const auto runs = radial::plan_runs(e, plugins());
  radial::ResultsStore store(folder / "fail.sqlite");
  radial::ExperimentOptions options;
  options.jobs = 2;
  const auto summary = radial::run_experiment(e, runs, store, plugins(), options);
  CHECK(summary.planned == 6);
  CHECK(summary.ran == 6);
  CHECK(summary.failed == 4);
  for (const auto& r : store.runs("fail")) {
    if (r.dataset == "ok") {
      CHECK(r.status == "ok");
      CHECK(!r.report.empty());
    } else if (r.dataset == "text") {
      CHECK(r.status == "failed");
      CHECK(r.message.find((folder / "text.csv").string() + ":3:1") != std::string::npos);
    } else {
      CHECK(r.status == "failed");
      CHECK(r.report.empty());
      CHECK(r.message == (folder / "fail.toml").string() +
                             ":5:1: split train_rows = 60 but " + (folder / "b.csv").string() +
                             " has 60 rows; train_rows must be below the number of rows so "
                             "that test rows remain");
    }
  }
  const auto again = radial::run_experiment(e, runs, store, plugins(), options);
  CHECK(again.ran == 0);
  CHECK(again.stored_before == 6);
  CHECK(store.runs().size() == 6);
}

TEST_CASE("a changed data file reruns only its runs") {
  Folder folder;
  folder.write("two.toml", "[[datasets]]\nname = \"a\"\ntrain = \"a.csv\"\n"
                           "[[datasets]]\nname = \"b\"\ntrain = \"b.csv\"\n"
                           "[[pipelines]]\nfile = \"ls.toml\"\n");
  radial::ResultsStore store(folder / "two.sqlite");
  const auto first = radial::run_experiment(folder.read("two.toml"),
                                            radial::plan_runs(folder.read("two.toml"), plugins()),
                                            store, plugins());
  CHECK(first.ran == 2);
  folder.write("b.csv", experiment_test::two_class_csv(50, 9));
  const radial::Experiment e = folder.read("two.toml");
  const auto second = radial::run_experiment(e, radial::plan_runs(e, plugins()), store, plugins());
  CHECK(second.stored_before == 1);
  CHECK(second.ran == 1);
  const auto runs = store.runs();
  REQUIRE(runs.size() == 2);  // the old row of b replaced
  CHECK(nlohmann::json::parse(runs[1].report)["data"]["train_rows"] == 50);
}

TEST_CASE("results do not depend on the process's BLAS thread count") {
  // IRLS on 100 iris rows with 8 Gaussians: OpenBLAS with 2 threads sums its products in
  // another order than with 1 (a last-bit difference), and concurrent runs would otherwise
  // set and restore that process-wide count under each other.
  Folder folder;
  folder.write("irls.toml", "[basis]\nplugin = \"gaussian\"\n[centres]\nplugin = \"kmeans\"\n"
                            "count = 8\n[output]\nplugin = \"irls\"\n[weight-penalty]\n"
                            "plugin = \"weight-decay\"\nalpha = 0.001\n");
  folder.write("iris.toml", "seeds = [1, 2, 3]\n[[datasets]]\nname = \"iris\"\nfile = \"" +
                                (radial::testing::source_dir() / "docs/examples/data/iris.csv").string() +
                                "\"\nsplit = { train_rows = 100 }\n"
                                "[[pipelines]]\nfile = \"irls.toml\"\n");
  const radial::Experiment e = folder.read("iris.toml");
  const auto runs = radial::plan_runs(e, plugins());
  const int saved = radial::blas_threads();
  radial::ResultsStore one(folder / "one.sqlite"), two(folder / "two.sqlite");
  radial::ExperimentOptions options;
  radial::set_blas_threads(2);
  options.jobs = 1;
  radial::run_experiment(e, runs, one, plugins(), options);
  CHECK(radial::blas_threads() == 2);  // restored after the experiment
  radial::set_blas_threads(1);
  options.jobs = 2;
  radial::run_experiment(e, runs, two, plugins(), options);
  radial::set_blas_threads(saved);
  const auto x = stored(one), y = stored(two);
  REQUIRE(x.size() == 3);
  CHECK(x == y);
}
