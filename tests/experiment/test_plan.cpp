// The run planner: order, and keys that follow exactly what determines each run.
#include <set>

#include <catch2/catch.hpp>

#include "experiment_fixture.hpp"

using experiment_test::Folder;
using experiment_test::plugins;

namespace {

std::vector<std::string> keys(const std::vector<radial::PlannedRun>& runs) {
  std::vector<std::string> out;
  for (const auto& run : runs) out.push_back(run.key);
  return out;
}

std::vector<radial::PlannedRun> plan(const Folder& folder) {
  return radial::plan_runs(folder.read(), plugins());
}

// `file` written as `text` with `from` made `to` gives new keys to exactly the runs of
// `pipeline` (the keys of `before` are those of the unchanged folder).
void check_edit_rekeys(const Folder& folder, const std::vector<radial::PlannedRun>& before,
                       const std::string& file, std::string text, const std::string& from,
                       const std::string& to, const std::string& pipeline) {
  text.replace(text.find(from), from.size(), to);
  folder.write(file, text);
  const auto after = plan(folder);
  for (std::size_t i = 0; i < before.size(); ++i) {
    CHECK((before[i].key != after[i].key) == (before[i].pipeline_name == pipeline));
  }
}

}  // namespace

TEST_CASE("runs come in dataset, pipeline, grid point, seed order") {
  Folder folder;
  const auto runs = plan(folder);
  // 3 datasets x (wd at 2 values of alpha + ls, which has no weight penalty) x 2 seeds.
  REQUIRE(runs.size() == 18);
  std::vector<std::string> seen;
  for (const auto& run : runs) {
    seen.push_back(run.dataset_name + "/" + run.pipeline_name + "/" +
                   (run.overrides.empty() ? "-" : run.overrides[0].second) + "/" +
                   std::to_string(run.seed));
  }
  const std::vector<std::string> expected = {
      "pair/wd/0.01/1", "pair/wd/0.01/2", "pair/wd/1/1", "pair/wd/1/2", "pair/ls/-/1", "pair/ls/-/2",
      "split/wd/0.01/1", "split/wd/0.01/2", "split/wd/1/1", "split/wd/1/2", "split/ls/-/1", "split/ls/-/2",
      "cv/wd/0.01/1", "cv/wd/0.01/2", "cv/wd/1/1", "cv/wd/1/2", "cv/ls/-/1", "cv/ls/-/2"};
  CHECK(seen == expected);

  const radial::RunRecord record = runs[2].record();
  CHECK(record.experiment == "demo");
  CHECK(record.dataset == "pair");
  CHECK(record.pipeline == "wd");
  CHECK(record.overrides == "{\"weight-penalty.alpha\":1}");
  CHECK(record.seed == 1);
  CHECK(record.key == runs[2].key);
  CHECK(record.status.empty());
  CHECK(runs[4].record().overrides == "{}");

  // The set and the grid point reach the resolved pipeline; folds split => evaluate.folds.
  CHECK(runs[2].resolved.centres.params.integer("count") == 3);
  CHECK(runs[2].resolved.weight_penalty->params.real("alpha") == 1.0);
  CHECK(runs[0].resolved.data.train == folder / "a.csv");
  CHECK(runs[12].resolved.evaluate.folds == 3);
  CHECK(runs[6].resolved.evaluate.folds == 0);
}

TEST_CASE("keys are hex SHA-1, distinct, and the same on every call") {
  Folder folder;
  const auto a = keys(plan(folder));
  const auto b = keys(plan(folder));
  CHECK(a == b);
  std::set<std::string> distinct(a.begin(), a.end());
  CHECK(distinct.size() == a.size());
  for (const auto& key : a) {
    CHECK(key.size() == 40);
    CHECK(key.find_first_not_of("0123456789abcdef") == std::string::npos);
  }
}

TEST_CASE("a changed data file changes exactly the keys of the runs that read it") {
  Folder folder;
  const auto before = plan(folder);
  folder.write("b.csv", experiment_test::two_class_csv(60, 4));  // same name, other contents
  const auto after = plan(folder);
  REQUIRE(before.size() == after.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    const bool reads_b = before[i].dataset_name != "pair";
    CHECK((before[i].key != after[i].key) == reads_b);
  }
}

TEST_CASE("a pipeline's comments do not change keys; its values do, for its runs only") {
  Folder folder;
  const auto before = plan(folder);
  folder.write("ls.toml", "# a new comment, and the layout changed\n" +
                              std::string(experiment_test::kLeastSquares) + "\n\n");
  CHECK(keys(plan(folder)) == keys(before));

  check_edit_rekeys(folder, before, "ls.toml", experiment_test::kLeastSquares, "count = 4",
                    "count = 5", "ls");
}

TEST_CASE("a value set by the experiment changes the keys like one in the file") {
  Folder folder;
  const auto before = plan(folder);
  check_edit_rekeys(folder, before, "exp.toml", experiment_test::kExperiment,
                    "\"centres.count\" = 3", "\"centres.count\" = 2", "wd");
}

TEST_CASE("grid keys name the prior tables, and the old table of both still takes its keys") {
  Folder folder;
  // old.toml is wd.toml with its prior in the table of before the split.
  std::string old = experiment_test::kWeightDecay;
  old.replace(old.find("[weight-penalty]"), 16, std::string("[") + radial::kLegacyPriorTable + "]");
  folder.write("old.toml", old);
  folder.write("grid.toml", "name = \"priors\"\nseeds = [1]\n[[datasets]]\ntrain = \"a.csv\"\n"
                            "[[pipelines]]\nfile = \"old.toml\"\n[[pipelines]]\nfile = \"wd.toml\"\n"
                            "[grid]\n\"weight-penalty.alpha\" = [0.5, 2]\n\"" +
                                std::string(radial::kLegacyPriorTable) + ".alpha\" = [3]\n");
  const auto runs = radial::plan_runs(folder.read("grid.toml"), plugins());
  // old.toml names weight-decay in the old table: only its key applies; wd.toml names it in
  // [weight-penalty]: only weight-penalty.alpha applies.
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].pipeline_name == "old");
  CHECK(runs[0].resolved.weight_penalty->params.real("alpha") == 3.0);
  CHECK(runs[0].resolved.legacy_prior() == &*runs[0].resolved.weight_penalty);
  CHECK(runs[1].resolved.weight_penalty->params.real("alpha") == 0.5);
  CHECK(runs[2].resolved.weight_penalty->params.real("alpha") == 2.0);
  CHECK(runs[2].resolved.legacy_prior() == nullptr);
  CHECK(runs[1].key != runs[2].key);
}

TEST_CASE("a grid sweeps the refine stage's keys of the pipelines that have one") {
  Folder folder;
  const std::string refined = std::string(experiment_test::kLeastSquares) +
                              "[refine]\nplugin = \"lbfgs\"\niterations = 5\n";
  folder.write("refined.toml", refined);
  folder.write("grid.toml", "name = \"refine\"\nseeds = [1]\n[[datasets]]\ntrain = \"a.csv\"\n"
                            "[[pipelines]]\nfile = \"refined.toml\"\n[[pipelines]]\nfile = \"ls.toml\"\n"
                            "[grid]\n\"refine.iterations\" = [3, 9]\n");
  const auto runs = radial::plan_runs(folder.read("grid.toml"), plugins());
  // ls.toml has no [refine]: the key does not apply to it.
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].resolved.refine->params.integer("iterations") == 3);
  CHECK(runs[1].resolved.refine->params.integer("iterations") == 9);
  CHECK_FALSE(runs[2].resolved.refine);
  CHECK(runs[0].key != runs[1].key);
}
