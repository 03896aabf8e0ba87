// The experiment file reader: fields, and every error at its file:line:column.
#include <catch2/catch.hpp>

#include "experiment_fixture.hpp"
#include "radial/core/errors.hpp"

using experiment_test::Folder;

namespace {

std::string error_of(const Folder& folder, const std::string& text) {
  folder.write("bad.toml", text);
  try {
    folder.read("bad.toml");
  } catch (const radial::PipelineError& error) {
    return error.what();
  }
  return "no error";
}

// Where `bad.toml` line:column is, as messages write it.
std::string at(const Folder& folder, int line, int column) {
  return (folder / "bad.toml").string() + ":" + std::to_string(line) + ":" +
         std::to_string(column) + ": ";
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// The error of `text` starts at bad.toml line:column with `phrase`.
bool error_starts(const Folder& folder, const std::string& text, int line, int column,
                  const std::string& phrase) {
  return starts_with(error_of(folder, text), at(folder, line, column) + phrase);
}

const std::string kPipeline = "\n[[pipelines]]\nfile = \"wd.toml\"\n";

}  // namespace

TEST_CASE("a good experiment file is read with every field") {
  Folder folder;
  const radial::Experiment e = folder.read();
  CHECK(e.file == folder / "exp.toml");
  CHECK(e.name == "demo");
  CHECK(e.seeds == std::vector<std::uint64_t>{1, 2});
  REQUIRE(e.datasets.size() == 3);
  CHECK(e.datasets[0].name == "pair");
  CHECK(e.datasets[0].train == folder / "a.csv");
  CHECK(e.datasets[0].test == folder / "a-test.csv");
  CHECK(e.datasets[0].split_train_rows == 0);
  CHECK(e.datasets[0].split_folds == 0);
  CHECK(e.datasets[0].where.line == 4);
  CHECK(e.datasets[1].train == folder / "b.csv");
  CHECK(!e.datasets[1].test);
  CHECK(e.datasets[1].split_train_rows == 40);
  CHECK(e.datasets[2].split_folds == 3);
  CHECK(e.datasets[2].target == std::optional<std::string>("label"));
  CHECK(e.datasets[2].task == radial::Task::Classification);
  REQUIRE(e.pipelines.size() == 2);
  CHECK(e.pipelines[0].name == "wd");
  CHECK(e.pipelines[0].file == folder / "wd.toml");
  CHECK(e.pipelines[0].set == std::vector<std::string>{"centres.count=3"});
  CHECK(e.pipelines[1].name == "ls");  // the file's stem
  CHECK(e.pipelines[1].set.empty());
  REQUIRE(e.grid.size() == 1);
  CHECK(e.grid[0].key == "weight-penalty.alpha");
  CHECK(e.grid[0].values == std::vector<std::string>{"0.01", "1"});
  CHECK(e.grid[0].where.line == 30);
  CHECK(e.table.rows == std::vector<std::string>{"dataset"});
  CHECK(e.table.columns == std::vector<std::string>{"pipeline"});
  CHECK(e.table.value == "test.error_rate");
  CHECK(e.table.compare == std::vector<std::string>{"wd", "ls"});
}

TEST_CASE("defaults: name from the file, seed 1, a single seed, dotted keys in set and grid") {
  Folder folder;
  folder.write("mini.toml", "seeds = 7\n[[datasets]]\ntrain = \"a.csv\"\n"
                            "[[pipelines]]\nfile = \"wd.toml\"\n"
                            "set = { centres.count = 2, output.link = \"softmax\" }\n"
                            "[grid]\nweight-penalty.alpha = [0.5, 2.0]\n");
  const radial::Experiment e = folder.read("mini.toml");
  CHECK(e.name == "mini");
  CHECK(e.seeds == std::vector<std::uint64_t>{7});
  CHECK(e.datasets[0].name == "a");
  CHECK(e.pipelines[0].set == std::vector<std::string>{"centres.count=2", "output.link=\"softmax\""});
  REQUIRE(e.grid.size() == 1);
  CHECK(e.grid[0].key == "weight-penalty.alpha");
  CHECK(e.grid[0].values == std::vector<std::string>{"0.5", "2.0"});
  CHECK(e.table.rows == std::vector<std::string>{"dataset"});
}

TEST_CASE("an unknown key gets its position and a did-you-mean") {
  Folder folder;
  const std::string message =
      error_of(folder, "[[datasets]]\nname = \"a\"\ntrian = \"a.csv\"\n" + kPipeline);
  CHECK(message == at(folder, 3, 1) +
                       "unknown key 'trian' in [[datasets]] (did you mean 'train'?); "
                       "[[datasets]] takes name, train, test, file, split, target, task");
  CHECK(error_starts(folder, "seed = [1]\n[[datasets]]\ntrain = \"a.csv\"\n" + kPipeline, 1, 1,
                     "unknown key 'seed' (did you mean 'seeds'?)"));
  CHECK(error_starts(folder, "[[datasets]]\ntrain = \"a.csv\"\n[[pipelines]]\nfiel = \"wd.toml\"\n", 4, 1,
                     "unknown key 'fiel' in [[pipelines]] (did you mean 'file'?)"));
}

TEST_CASE("a missing data or pipeline file is reported at its key") {
  Folder folder;
  const std::string message =
      error_of(folder, "[[datasets]]\ntrain = \"a.csv\"\n  test = \"gone.csv\"\n" + kPipeline);
  CHECK(starts_with(message, at(folder, 3, 3) + "test file 'gone.csv' not found (looked for " +
                                 (folder / "gone.csv").string() + ")"));
  CHECK(error_starts(folder, "[[datasets]]\nfile = \"gone.csv\"\nsplit = { folds = 2 }\n" + kPipeline, 2, 1,
                     "data file 'gone.csv' not found"));
  CHECK(error_starts(folder, "[[datasets]]\ntrain = \".\"\n" + kPipeline, 2, 1, "train file '.' is a folder"));
  CHECK(error_starts(folder, "[[datasets]]\ntrain = \"a.csv\"\n[[pipelines]]\nfile = \"x.toml\"\n", 4, 1,
                     "pipeline file 'x.toml' not found"));
}

TEST_CASE("bad splits are reported where they are written") {
  Folder folder;
  CHECK(error_of(folder, "[[datasets]]\nfile = \"b.csv\"\nsplit = { folds = 1 }\n" + kPipeline) ==
        at(folder, 3, 19) + "folds = 1. Violated constraint: folds is an integer >= 2");
  CHECK(error_starts(folder, "[[datasets]]\nfile = \"b.csv\"\nsplit = { train_row = 3 }\n" + kPipeline, 3, 11,
                     "unknown key 'train_row' in split (did you mean 'train_rows'?)"));
  CHECK(error_starts(folder, "[[datasets]]\nfile = \"b.csv\"\nsplit = { train_rows = 3, folds = 2 }\n" + kPipeline, 3, 9,
                     "split has both train_rows and folds"));
  CHECK(error_starts(folder, "[[datasets]]\nfile = \"b.csv\"\n" + kPipeline, 2, 1, "file needs split = "));
  CHECK(error_starts(folder, "[[datasets]]\ntrain = \"a.csv\"\nsplit = { folds = 2 }\n" + kPipeline, 3, 9,
                     "split goes with file"));
}

TEST_CASE("duplicate dataset and pipeline names are refused at the second") {
  Folder folder;
  CHECK(error_of(folder, "[[datasets]]\nname = \"d\"\ntrain = \"a.csv\"\n[[datasets]]\nname = \"d\"\n"
                         "train = \"b.csv\"\n" + kPipeline) ==
        at(folder, 5, 8) + "dataset name 'd' is used twice (also at " + at(folder, 1, 1).substr(0, at(folder, 1, 1).size() - 2) +
            "); give each dataset its own name");
  CHECK(error_starts(folder, "[[datasets]]\ntrain = \"a.csv\"\n[[pipelines]]\nfile = \"wd.toml\"\n[[pipelines]]\nfile = \"wd.toml\"\n", 5, 1,
                     "pipeline name 'wd' is used twice"));
}

TEST_CASE("seeds must be integers >= 0, each once") {
  Folder folder;
  const std::string rest = "[[datasets]]\ntrain = \"a.csv\"\n" + kPipeline;
  CHECK(error_starts(folder, "seeds = [1, -2]\n" + rest, 1, 13, "seed = -2."));
  CHECK(error_starts(folder, "seeds = [1, 1]\n" + rest, 1, 13, "seed 1 appears twice"));
  CHECK(error_starts(folder, "seeds = []\n" + rest, 1, 9, "seeds must be a non-empty array"));
  CHECK(error_starts(folder, "seeds = [1.5]\n" + rest, 1, 10, "seed must be an integer"));
}

TEST_CASE("a pipeline override with a bad value is reported at the override") {
  Folder folder;
  const std::string message = error_of(
      folder, "[[datasets]]\ntrain = \"a.csv\"\n[[pipelines]]\nname = \"p\"\nfile = \"wd.toml\"\n"
              "set = { \"centres.count\" = 0 }\n");
  CHECK(starts_with(message, at(folder, 6, 27) +
                                 "set centres.count = 0 of pipeline 'p': centres plugin 'kmeans': "
                                 "count = 0. Violated constraint: count >= 1"));
  // A grid value out of range: at the value, naming the pipeline.
  const std::string grid = error_of(
      folder, "[[datasets]]\ntrain = \"a.csv\"\n" + kPipeline + "[grid]\n\"weight-penalty.alpha\" = [1, -1]\n");
  INFO(grid);
  CHECK(starts_with(grid, at(folder, 7, 30) +
                              "grid weight-penalty.alpha = -1 for pipeline 'wd': weight-penalty plugin "
                              "'weight-decay': alpha = -1"));
  // A mistake inside the pipeline file itself: at the entry, then the pipeline file's position.
  folder.write("broken.toml", "unknown = 1\n" + std::string(experiment_test::kWeightDecay));
  const std::string inside = error_of(
      folder, "[[datasets]]\nname = \"d\"\ntrain = \"a.csv\"\n[[pipelines]]\nfile = \"broken.toml\"\n");
  CHECK(starts_with(inside, at(folder, 4, 1) + "pipeline 'broken' with dataset 'd': " +
                                (folder / "broken.toml").string() + ":1:1: unknown key 'unknown'"));
}

TEST_CASE("a grid key that applies to no pipeline is refused at the key") {
  Folder folder;
  const std::string rest = "[[datasets]]\ntrain = \"a.csv\"\n[[pipelines]]\nfile = \"ls.toml\"\n";
  CHECK(error_of(folder, rest + "[grid]\n\"weight-penalty.alpha\" = [1]\n") ==
        at(folder, 6, 1) + "grid key 'weight-penalty.alpha' applies to no pipeline: no pipeline has "
                           "a [weight-penalty] plugin");
  CHECK(error_starts(folder, rest + "[grid]\n\"centres.cont\" = [1, 2]\n", 6, 1,
                     "grid key 'centres.cont' applies to no pipeline: no centres plugin of the pipelines (kmeans) declares 'cont' (did you mean 'count'?)"));
  CHECK(error_starts(folder, rest + "[grid]\nseed = [1, 2]\n", 6, 1, "grid key 'seed' is not slot.parameter"));
}

TEST_CASE("table: dimensions and compared pipelines must exist") {
  Folder folder;
  const std::string rest = "[[datasets]]\ntrain = \"a.csv\"\n[[pipelines]]\nname = \"A\"\nfile = \"ls.toml\"\n"
                           "[[pipelines]]\nname = \"B\"\nfile = \"wd.toml\"\n";
  CHECK(error_of(folder, rest + "[table]\ncompare = [\"A\", \"C\"]\n") ==
        at(folder, 10, 17) + "compare names pipeline 'C', which is not in this experiment; the "
                             "pipelines are A, B");
  CHECK(error_starts(folder, rest + "[table]\nrows = \"datset\"\n", 10, 8,
                     "unknown dimension 'datset' in rows (did you mean 'dataset'?)"));
  CHECK(error_starts(folder, rest + "[table]\nvalues = \"x\"\n", 10, 1,
                     "unknown key 'values' in [table] (did you mean 'value'?)"));
}
