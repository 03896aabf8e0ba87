// The pipeline reader: values, defaults, paths, overrides, and every error's file:line:column,
// against a registry of fake components (their factories are never called).

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "radial/core/errors.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/testing/paths.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
using radial::ComponentInfo;
using radial::ParamSpec;
using radial::PipelineError;
using radial::Slot;
using radial::testing::test_data;

namespace {

template <class T>
radial::Factory<T> no_factory() {
  return [](const radial::Params&) { return std::unique_ptr<T>(); };
}

ComponentInfo info(Slot slot, const std::string& id, radial::ParamTable params) {
  ComponentInfo c;
  c.slot = slot;
  c.id = id;
  c.version = "1.0.0";
  c.summary = "fake " + id + " for the pipeline tests";
  c.params = std::move(params);
  return c;
}

void register_fakes(radial::Registrar& r) {
  using radial::Basis;
  r.add_basis(info(Slot::Basis, "gaussian",
                   {ParamSpec::real("width", 1.0, "kernel width sigma").above(0),
                    ParamSpec::choice("shape", "spherical", {"spherical", "diagonal", "full"},
                                      "covariance shape")}),
              no_factory<Basis>());
  r.add_basis(info(Slot::Basis, "thin-plate", {}), no_factory<Basis>());
  r.add_centre_learner(
      info(Slot::Centres, "kmeans",
           {ParamSpec::integer("count", 8, "number of centres M").at_least(1),
            ParamSpec::choice("init", "kmeans++", {"kmeans++", "random"}, "initialisation"),
            ParamSpec::integer("max_iterations", 100, "iteration limit").at_least(1)}),
      no_factory<radial::CentreLearner>());
  r.add_centre_learner(
      info(Slot::Centres, "subset",
           {ParamSpec::integer("count", 0, "number of centres M").at_least(1).make_required()}),
      no_factory<radial::CentreLearner>());
  r.add_centre_learner(
      info(Slot::Centres, "from-file",
           {ParamSpec::path("file", "", "centres to read").make_required(),
            ParamSpec::path("log", "from-file.log", "where to log"),
            ParamSpec::path("cache", "", "optional cache")}),
      no_factory<radial::CentreLearner>());
  r.add_output_layer(
      info(Slot::Output, "irls",
           {ParamSpec::choice("link", "softmax", {"identity", "logistic", "softmax"}, "link")}),
      no_factory<radial::OutputLayer>());
  r.add_output_layer(
      info(Slot::Output, "scg",
           {ParamSpec::integer("iterations", 100, "iteration limit").at_least(1)}),
      no_factory<radial::OutputLayer>());
  r.add_weight_penalty(
      info(Slot::WeightPenalty, "weight-decay",
           {ParamSpec::real("alpha", 0.01, "prior precision").at_least(0)}),
      no_factory<radial::WeightPenalty>());
  r.add_kernel_prior(
      info(Slot::KernelPrior, "bhattacharyya",
           {ParamSpec::real("alpha", 10.0, "prior strength").at_least(0)}),
      no_factory<radial::KernelPrior>());
}

const radial::Registry& registry() {
  static radial::Registry registry;
  static const bool loaded = (registry.add_builtin(register_fakes, "test_pipeline"), true);
  (void)loaded;
  return registry;
}

std::string pipeline_error(const std::filesystem::path& file,
                           const std::vector<std::string>& overrides = {}) {
  try {
    radial::read_pipeline(file, registry(), overrides);
  } catch (const PipelineError& error) {
    return error.what();
  }
  FAIL("no PipelineError was thrown for " << file);
  return {};
}

std::filesystem::path normal(const std::filesystem::path& path) {
  return path.lexically_normal();
}

}  // namespace

TEST_CASE("A full pipeline reads every key", "[pipeline]") {
  const auto file = test_data("pipeline-full.toml");
  const radial::Pipeline p = radial::read_pipeline(file, registry());
  CHECK(p.file == normal(file));
  CHECK(p.name == "two-class test");
  CHECK(p.seed == 3);
  CHECK(p.threads == 2);
  CHECK(p.data.train == normal(test_data("small-classes.csv")));
  REQUIRE(p.data.test);
  CHECK(*p.data.test == normal(test_data("small-test-classes.csv")));
  CHECK(p.data.target == "label");
  CHECK_FALSE(p.data.standardize);
  REQUIRE(p.data.task);
  CHECK(*p.data.task == radial::Task::Classification);

  CHECK(p.basis.plugin == "gaussian");
  CHECK(p.basis.params.real("width") == 2.0);  // integer 2 coerced to a real
  CHECK(p.basis.params.string("shape") == "spherical");  // default filled
  CHECK(p.basis.where.str() == file.string() + ":13:1");
  CHECK(p.centres.plugin == "kmeans");
  CHECK(p.centres.params.integer("count") == 4);
  CHECK(p.centres.params.string("init") == "random");
  CHECK(p.centres.params.integer("max_iterations") == 100);
  CHECK(p.centres.where.line == 17);
  CHECK(p.output.plugin == "irls");
  CHECK(p.output.params.string("link") == "softmax");
  REQUIRE(p.weight_penalty);
  CHECK(p.weight_penalty->plugin == "weight-decay");
  CHECK(p.weight_penalty->params.real("alpha") == 0.001);
  CHECK_FALSE(p.kernel_prior);
  CHECK(p.evaluate.folds == 5);
  CHECK(p.evaluate.committee == 3);
  CHECK_FALSE(p.evaluate.stratified);
  CHECK_THAT(p.text, StartsWith("# Every key of the pipeline format") &&
                         EndsWith("stratified = false\n"));
}

TEST_CASE("A minimal pipeline gets the documented defaults", "[pipeline]") {
  const auto file = test_data("pipeline-minimal.toml");
  const radial::Pipeline p = radial::read_pipeline(file, registry());
  CHECK(p.name == "pipeline-minimal");  // the file's stem
  CHECK(p.seed == 1);
  CHECK(p.threads == 0);
  CHECK(p.data.target.empty());
  CHECK(p.data.standardize);
  CHECK_FALSE(p.data.test);
  CHECK_FALSE(p.data.task);
  CHECK(p.centres.params.integer("count") == 8);
  CHECK(p.centres.params.string("init") == "kmeans++");
  CHECK(p.basis.params.values().empty());
  CHECK_FALSE(p.weight_penalty);
  CHECK_FALSE(p.kernel_prior);
  CHECK(p.evaluate.folds == 0);
  CHECK(p.evaluate.committee == 0);
  CHECK(p.evaluate.stratified);
}

TEST_CASE("Paths are made absolute from the pipeline's folder; no data is read", "[pipeline]") {
  // The train file exists but holds a non-numeric cell: validation must not read it.
  const auto file = test_data("pipeline-paths.toml");
  const radial::Pipeline p = radial::read_pipeline(file, registry());
  CHECK(p.data.train == normal(test_data("bad/non-numeric.csv")));
  CHECK(p.centres.params.string("file") == normal(test_data("centres/initial.csv")).string());
  CHECK(p.centres.params.string("log") == normal(test_data("from-file.log")).string());
  CHECK(p.centres.params.string("cache").empty());  // empty means "none", not the folder
  CHECK(p.output.params.integer("iterations") == 100);

  // A relative pipeline file name still gives absolute paths.
  const auto relative = std::filesystem::relative(file);
  const radial::Pipeline q = radial::read_pipeline(relative, registry());
  CHECK(q.data.train.is_absolute());
  CHECK(q.data.train == p.data.train);
}

TEST_CASE("Overrides are applied before validation and noted in the text", "[pipeline]") {
  const auto file = test_data("pipeline-minimal.toml");
  const std::vector<std::string> overrides = {
      "centres.count=12", "data.standardize=false", "seed=3",        "output.plugin=scg",
      "name=my run",      "centres.init=random",    "basis.plugin=\"gaussian\"",
      "basis.width=0.5",  "weight-penalty.plugin=weight-decay", "evaluate.folds=4"};
  const radial::Pipeline p = radial::read_pipeline(file, registry(), overrides);
  CHECK(p.centres.params.integer("count") == 12);
  CHECK_FALSE(p.data.standardize);
  CHECK(p.seed == 3);
  CHECK(p.output.plugin == "scg");
  CHECK(p.name == "my run");  // a bare word that is not TOML is a string
  CHECK(p.centres.params.string("init") == "random");
  CHECK(p.basis.plugin == "gaussian");
  CHECK(p.basis.params.real("width") == 0.5);
  REQUIRE(p.weight_penalty);  // the table was created by the override
  CHECK(p.weight_penalty->params.real("alpha") == 0.01);
  CHECK(p.evaluate.folds == 4);
  CHECK_THAT(p.text, StartsWith("[data]\ntrain = \"small-classes.csv\"") &&
                         Contains("\n# Overrides applied after the text above (radial --set):\n"
                                  "#   centres.count=12\n#   data.standardize=false\n"
                                  "#   seed=3\n#   output.plugin=scg\n") &&
                         EndsWith("#   evaluate.folds=4\n"));

  // The text itself is unchanged without overrides.
  CHECK(radial::read_pipeline(file, registry()).text.find("Overrides") == std::string::npos);
}

TEST_CASE("Override errors start with --set <text>", "[pipeline][errors]") {
  const auto file = test_data("pipeline-minimal.toml");
  struct Case {
    std::string override_text, phrase;
  };
  const std::vector<Case> cases = {
      {"centres.count", "expected slot.key=value or key=value"},
      {"=5", "'' is not key or slot.key"},
      {"a.b.c=1", "'a.b.c' is not key or slot.key"},
      {"centres.count=", "no value after '='"},
      {"centres.init=\"kmeans++", "'\"kmeans++' is not a valid TOML value"},
      {"centres.count=0", "centres plugin 'kmeans': count = 0. Violated constraint: count >= 1"},
      {"centres.cont=3", "unknown parameter 'cont' for centres plugin 'kmeans' (did you mean "
                         "'count'?)"},
      {"centers.count=3", "unknown table [centers] (did you mean 'centres'?)"},
      {"seed=abc", "seed must be an integer, found a string"},
      {"data.train=nothing.csv", "train file 'nothing.csv' not found"},
      {"output.plugin=sgc", "unknown output plugin 'sgc' (did you mean 'scg'?)"},
      {"name.first=x", "name must be a string, found a table"},  // [name] was created
  };
  for (const auto& c : cases) {
    INFO(c.override_text);
    CHECK_THAT(pipeline_error(file, {c.override_text}),
               StartsWith("--set " + c.override_text + ": " + c.phrase));
  }
  CHECK_THAT(pipeline_error(test_data("pipeline-full.toml"), {"name.first=x"}),
             StartsWith("--set name.first=x: 'name' is not a table in the pipeline"));
  // A required table created by an override is positioned at the override.
  CHECK_THAT(pipeline_error(file, {"weight-penalty.alpha=1"}),
             StartsWith("--set weight-penalty.alpha=1: [weight-penalty] needs plugin = \"<id>\""));
}

// The old table of both priors (radial/pipeline/legacy_prior_table.hpp) is the compatibility path
// that tests/naming/check_slot_names.py allows this file to name.
TEST_CASE("A pipeline names a weight penalty and a kernel prior, or either in [regularizer]",
          "[pipeline][priors]") {
  const std::string head = "[data]\ntrain = \"small-classes.csv\"\n[basis]\nplugin = \"gaussian\"\n"
                           "[centres]\nplugin = \"kmeans\"\n[output]\nplugin = \"irls\"\n";
  const auto file = test_data("priors.toml");
  const radial::Pipeline both = radial::parse_pipeline(
      head + "[weight-penalty]\nplugin = \"weight-decay\"\nalpha = 0.5\n"
             "[kernel-prior]\nplugin = \"bhattacharyya\"\nalpha = 5\n",
      file, registry());
  REQUIRE(both.weight_penalty);
  REQUIRE(both.kernel_prior);
  CHECK(both.weight_penalty->params.real("alpha") == 0.5);
  CHECK(both.kernel_prior->params.real("alpha") == 5.0);
  CHECK(both.legacy_prior() == nullptr);
  CHECK(both.warnings.empty());

  // [regularizer] goes where its plugin's slot says, and combines with the other kind; the
  // reader warns, naming the table to write instead.
  const radial::Pipeline legacy = radial::parse_pipeline(
      head + "[regularizer]\nplugin = \"bhattacharyya\"\nalpha = 7\n"
             "[weight-penalty]\nplugin = \"weight-decay\"\n",
      file, registry(), {"regularizer.alpha=8"});
  REQUIRE(legacy.kernel_prior);
  CHECK(legacy.kernel_prior->table == "regularizer");
  CHECK(legacy.kernel_prior->params.real("alpha") == 8.0);
  CHECK(legacy.legacy_prior() == &*legacy.kernel_prior);
  REQUIRE(legacy.warnings.size() == 1);
  CHECK(legacy.warnings[0].component == "pipeline");
  CHECK(legacy.warnings[0].guard == "deprecated-table");
  CHECK(legacy.warnings[0].message ==
        file.string() + ":9:1: [regularizer] is the old name of the prior tables; its plugin "
                        "'bhattacharyya' is read as [kernel-prior]");
  CHECK_THAT(legacy.warnings[0].setting, StartsWith("rename [regularizer] to [kernel-prior]"));
  REQUIRE(legacy.weight_penalty);
  CHECK(legacy.weight_penalty->params.real("alpha") == 0.01);
  // [search] reads its candidates again from the same tables: one warning each, not two.
  const radial::Pipeline searched = radial::parse_pipeline(
      head + "[regularizer]\nplugin = \"weight-decay\"\n[search]\n\"regularizer.alpha\" = [0.1, 1]\n",
      file, registry());
  CHECK(searched.warnings.size() == 1);
  REQUIRE(searched.search);
  REQUIRE(searched.search->candidates.size() == 2);
  for (const radial::Pipeline& candidate : searched.search->candidates) {
    CHECK(candidate.weight_penalty->params.real("alpha") ==
          (&candidate == &searched.search->candidates[0] ? 0.1 : 1.0));
    CHECK(candidate.warnings.size() == 1);
  }

  // Two priors of one kind are refused.
  CHECK_THROWS_WITH(
      radial::parse_pipeline(head + "[regularizer]\nplugin = \"weight-decay\"\n"
                                    "[weight-penalty]\nplugin = \"weight-decay\"\n",
                             file, registry()),
      Contains("already has [weight-penalty]"));
  // A kernel prior is not a weight penalty.
  CHECK_THROWS_WITH(
      radial::parse_pipeline(head + "[weight-penalty]\nplugin = \"bhattacharyya\"\n", file,
                             registry()),
      Contains("'bhattacharyya' is a kernel-prior plugin"));
}

TEST_CASE("Pipeline errors name file:line:column and what to change", "[pipeline][errors]") {
  struct Case {
    std::string file, position, phrase;
  };
  const std::vector<Case> cases = {
      {"pipeline-syntax.toml", ":3:11: ", "TOML syntax error"},
      {"pipeline-unknown-table.toml", ":13:2: ", "unknown table [centers] (did you mean 'centres'?)"},
      {"pipeline-unknown-key.toml", ":1:1: ", "unknown key 'sead' (did you mean 'seed'?)"},
      {"pipeline-unknown-plugin.toml", ":8:10: ",
       "unknown centres plugin 'kmean' (did you mean 'kmeans'?); the centres plugins are "
       "from-file, kmeans, subset"},
      {"pipeline-wrong-slot.toml", ":8:10: ",
       "unknown centres plugin 'gaussian' ('gaussian' is a basis plugin, not a centres plugin)"},
      {"pipeline-unknown-parameter.toml", ":9:1: ",
       "unknown parameter 'cont' for centres plugin 'kmeans' (did you mean 'count'?); its "
       "parameters are count, init, max_iterations"},
      {"pipeline-parameter-range.toml", ":9:9: ",
       "centres plugin 'kmeans': count = 0. Violated constraint: count >= 1"},
      {"pipeline-parameter-type.toml", ":9:9: ", "centres plugin 'kmeans': count = "},
      {"pipeline-parameter-choice.toml", ":9:8: ", "centres plugin 'kmeans': init = "},
      {"pipeline-parameter-array.toml", ":9:9: ",
       "centres plugin 'kmeans': count must be integer >= 1, found an array"},
      {"pipeline-missing-parameter.toml", ":7:1: ",
       "centres plugin 'subset' needs parameter 'count'"},
      {"pipeline-missing-plugin.toml", ":10:1: ",
       "[output] needs plugin = \"<id>\"; the output plugins are irls, scg"},
      {"pipeline-missing-table.toml", ":1:1: ", "missing table [output]"},
      {"pipeline-missing-train.toml", ":1:1: ", "[data] needs train = \"<file>\""},
      {"pipeline-missing-data-file.toml", ":2:1: ",
       "train file '../no-such-file.csv' not found"},
      {"pipeline-negative-seed.toml", ":1:8: ",
       "seed = -1. Violated constraint: seed is an integer >= 0"},
      {"pipeline-one-fold.toml", ":14:9: ",
       "folds = 1. Violated constraint: folds is 0 (no cross-validation) or >= 2"},
      {"pipeline-bad-task.toml", ":3:8: ",
       "task = \"clasification\". Violated constraint: task is one of classification, "
       "regression (did you mean 'classification'?)"},
      {"pipeline-unknown-data-key.toml", ":3:1: ",
       "unknown key 'standardise' in [data] (did you mean 'standardize'?)"},
      {"pipeline-standardize-type.toml", ":3:15: ",
       "standardize must be true or false, found a string"},
      {"pipeline-not-a-table.toml", ":1:9: ", "basis must be a table, found a string"},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const auto file = test_data("bad/" + c.file);
    CHECK_THAT(pipeline_error(file), StartsWith(file.string() + c.position + c.phrase));
  }
  // The type, range and choice problems carry the parameter table's own sentence.
  CHECK_THAT(pipeline_error(test_data("bad/pipeline-parameter-type.toml")),
             Contains("Violated constraint: count is an integer"));
  CHECK_THAT(pipeline_error(test_data("bad/pipeline-parameter-choice.toml")),
             Contains("init is one of kmeans++, random (did you mean \"kmeans++\"?)"));

  CHECK_THAT(pipeline_error(test_data("bad/no-such-pipeline.toml")),
             Contains("no such pipeline file"));
}

TEST_CASE("parse_pipeline reads text with the given file for messages and paths",
          "[pipeline]") {
  const auto file = test_data("inline.toml");  // need not exist
  const std::string text =
      "[data]\ntrain = \"small-classes.csv\"\n[basis]\nplugin = \"thin-plate\"\n"
      "[centres]\nplugin = \"subset\"\ncount = 3\n[output]\nplugin = \"irls\"\n";
  const radial::Pipeline p = radial::parse_pipeline(text, file, registry());
  CHECK(p.text == text);
  CHECK(p.centres.params.integer("count") == 3);
  CHECK(p.data.train == normal(test_data("small-classes.csv")));
  CHECK_THROWS_WITH(radial::parse_pipeline(text + "threads = \n", file, registry()),
                    StartsWith(file.string() + ":10:") && Contains(": TOML syntax error: "));
}

TEST_CASE("Every truncation of a good pipeline is read or refused with a PipelineError",
          "[pipeline][errors]") {
  const auto file = test_data("pipeline-full.toml");
  std::ifstream in(file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  std::size_t accepted = 0;
  for (std::size_t length = 0; length <= text.size(); ++length) {
    INFO("first " << length << " bytes of pipeline-full.toml");
    try {
      radial::parse_pipeline(text.substr(0, length), file, registry());
      ++accepted;
    } catch (const PipelineError& error) {
      CHECK_THAT(std::string(error.what()), StartsWith(file.string() + ":"));
    }
  }
  // Only prefixes that reach past [output]'s plugin line name every required table.
  CHECK(accepted > 0);
  CHECK(accepted < text.size() / 2);
}
