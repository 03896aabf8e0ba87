#pragma once
// A temporary folder holding an experiment: two small two-class data files (generated, so a
// test can change them), two pipelines, and the experiment file itself.
#include <stdlib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <radial/testing/paths.hpp>

#include "radial/experiment/experiment.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/registry.hpp"

namespace experiment_test {

inline const radial::Registry& plugins() { return radial::testing::shipped_registry(); }

// Two Gaussian-ish classes in 2-D from a fixed LCG: `rows` rows, label last.
inline std::string two_class_csv(std::size_t rows, std::uint64_t seed) {
  std::uint64_t state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  const auto uniform = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return double(state >> 11) / double(1ULL << 53);
  };
  std::string text = "x1,x2,label\n";
  char line[128];
  for (std::size_t i = 0; i < rows; ++i) {
    const int label = int(i % 2);
    const double x1 = label * 1.5 + (uniform() - 0.5) * 2.0;
    const double x2 = label * 1.0 + (uniform() - 0.5) * 2.0;
    std::snprintf(line, sizeof line, "%.6f,%.6f,%d\n", x1, x2, label);
    text += line;
  }
  return text;
}

const char* const kWeightDecay = R"(# thin-plate, k-means, IRLS with weight decay
[basis]
plugin = "thin-plate"

[centres]
plugin = "kmeans"
count = 4

[output]
plugin = "irls"

[weight-penalty]
plugin = "weight-decay"
alpha = 0.1
)";

const char* const kLeastSquares = R"([basis]
plugin = "thin-plate"

[centres]
plugin = "kmeans"
count = 4

[output]
plugin = "least-squares"
)";

// 3 datasets x (wd: 2 grid points, ls: 1) x 2 seeds = 18 runs.
const char* const kExperiment = R"(name = "demo"
seeds = [1, 2]

[[datasets]]
name = "pair"
train = "a.csv"
test = "a-test.csv"

[[datasets]]
name = "split"
file = "b.csv"
split = { train_rows = 40 }

[[datasets]]
name = "cv"
file = "b.csv"
split = { folds = 3 }
target = "label"
task = "classification"

[[pipelines]]
name = "wd"
file = "wd.toml"
set = { "centres.count" = 3 }

[[pipelines]]
file = "ls.toml"

[grid]
"weight-penalty.alpha" = [0.01, 1]

[table]
rows = ["dataset"]
columns = "pipeline"
value = "test.error_rate"
compare = ["wd", "ls"]
)";

class Folder {
 public:
  Folder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "radial-exp-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
    write("a.csv", two_class_csv(60, 1));
    write("a-test.csv", two_class_csv(30, 2));
    write("b.csv", two_class_csv(60, 3));
    write("wd.toml", kWeightDecay);
    write("ls.toml", kLeastSquares);
    write("exp.toml", kExperiment);
  }
  ~Folder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  Folder(const Folder&) = delete;
  Folder& operator=(const Folder&) = delete;

  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
  }
  radial::Experiment read(const std::string& name = "exp.toml") const {
    return radial::read_experiment(path_ / name, plugins());
  }

 private:
  std::filesystem::path path_;
};

}  // namespace experiment_test
