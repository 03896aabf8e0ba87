// Whole pipelines trained with threads = 1 and threads = 2 give bit-identical models: the real
// plugins, loaded from the build's plugin folder, on data large enough for several row blocks.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <xtensor/xmath.hpp>

#include "radial/network/basis.hpp"
#include "radial/core/centres.hpp"
#include "radial/network/design_matrix.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/core/params.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/paths.hpp"
#include "radial/testing/registry.hpp"
#include "radial/training/trainer.hpp"

namespace fs = std::filesystem;

namespace {

// 6000 rows (6 blocks of 1024) of three 3-D Gaussian classes, written once as CSV.
fs::path training_csv() {
  const fs::path file = fs::temp_directory_path() / "radial-test-parallel-6000.csv";
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g;
  std::ofstream out(file);
  out.precision(17);
  out << "a,b,c,class\n";
  for (int i = 0; i < 6000; ++i) {
    const int k = i % 3;
    out << g(rng) + 2.0 * k << ',' << g(rng) - 1.5 * k << ',' << g(rng) * (1 + k) << ',' << k
        << '\n';
  }
  return file;
}

bool same_bits(const radial::Matrix& a, const radial::Matrix& b) {
  // Empty arrays (a Bayes model has no weights) have no data pointer to compare.
  return a.shape() == b.shape() &&
         (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

radial::TrainingResult train_with(const std::string& text, const radial::Registry& registry,
                                  int threads) {
  const radial::Pipeline p =
      radial::parse_pipeline(text, fs::temp_directory_path() / "parallel.toml", registry);
  radial::TrainOptions options;
  options.threads = threads;
  return radial::train(p, registry, options);
}

}  // namespace

TEST_CASE("pipelines train to bit-identical models with 1 and 2 threads", "[parallel]") {
  const radial::Registry& registry = radial::testing::shipped_registry();
  const fs::path data = training_csv();
  const std::string head = "name = \"threads\"\nseed = 3\n[data]\ntrain = \"" + data.string() +
                           "\"\nstandardize = true\n";
  const char* stages[] = {
      "[basis]\nplugin = \"gaussian\"\n[centres]\nplugin = \"kmeans\"\ncount = 24\n"
      "[output]\nplugin = \"irls\"\nlink = \"softmax\"\n"
      "[weight-penalty]\nplugin = \"weight-decay\"\nalpha = 0.01\n",
      "[basis]\nplugin = \"thin-plate\"\n[centres]\nplugin = \"kmeans\"\ncount = 16\n"
      "[output]\nplugin = \"least-squares\"\n",
      "[basis]\nplugin = \"thin-plate\"\n[centres]\nplugin = \"kmeans\"\ncount = 16\n"
      "[output]\nplugin = \"least-squares\"\nsolver = \"normal-equations\"\n",
      "[basis]\nplugin = \"gaussian\"\ndensity = true\n[centres]\nplugin = \"gmm\"\n"
      "mode = \"per-class\"\ncount = 2\ncovariance = \"diagonal\"\n[output]\nplugin = \"bayes\"\n",
      "[basis]\nplugin = \"gaussian\"\ndensity = true\n[centres]\nplugin = \"dem\"\ncount = 2\n"
      "iterations = 5\n[output]\nplugin = \"bayes\"\n",
      "[basis]\nplugin = \"gaussian\"\ndensity = true\n[centres]\nplugin = \"dem\"\ncount = 2\n"
      "iterations = 5\nkdtree = true\nthreshold = 4.0\n[output]\nplugin = \"bayes\"\n",
  };
  for (const char* stage : stages) {
    const std::string text = head + stage;
    INFO(text);
    const auto one = train_with(text, registry, 1);
    const auto two = train_with(text, registry, 2);
    CHECK(one.report.threads == 1);
    CHECK(two.report.threads == 2);
    CHECK(same_bits(one.model.centres.means, two.model.centres.means));
    CHECK(same_bits(one.model.weights, two.model.weights));
    if (one.model.centres.has_mixing()) {
      CHECK(same_bits(one.model.centres.diagonal, two.model.centres.diagonal));
      CHECK(same_bits(one.model.centres.mixing, two.model.centres.mixing));
    }
    // The models are fitted, not trivial: far better than the 2/3 error of guessing.
    CHECK(one.report.train.error_rate.value_or(1.0) < 0.3);
  }
  fs::remove(data);
}

TEST_CASE("design matrix passes visit the same blocks in order for any thread count",
          "[parallel]") {
  const radial::Registry& registry = radial::testing::shipped_registry();
  std::mt19937_64 rng(9);
  std::normal_distribution<double> g;
  radial::Matrix x = xt::empty<double>({5000, 3});
  for (auto& v : x) v = g(rng);
  radial::Centres centres;
  centres.means = xt::empty<double>({20, 3});
  for (auto& v : centres.means) v = g(rng);
  for (const char* id : {"thin-plate", "gaussian"}) {
    auto basis = registry.make_basis(id, radial::validate_params(
                                             registry.require(radial::Slot::Basis, id).params,
                                             {}, "test"));
    radial::FitContext ctx(1, 1);
    basis->prepare(centres, ctx);
    auto pass = [&](int threads) {
      radial::DesignMatrix design(x, centres, *basis, false, 0, 700);
      design.set_threads(threads);
      CHECK(design.threads() == threads);
      radial::Matrix out = xt::empty<double>({x.shape(0), design.cols()});
      std::size_t expected_first = 0;
      design.for_each_block([&](std::size_t first, const radial::Matrix& block) {
        CHECK(first == expected_first);
        expected_first += block.shape(0);
        std::copy_n(block.data(), block.size(), out.data() + first * design.cols());
      });
      CHECK(expected_first == x.shape(0));
      return out;
    };
    const radial::Matrix one = pass(1);
    // Independent check of a few entries: the whole matrix computed as one block.
    radial::DesignMatrix whole(x, centres, *basis, false, 0, x.shape(0));
    const radial::Matrix direct = whole.materialise();
    CHECK(xt::allclose(one, direct, 1e-12, 1e-12));
    for (int threads : {2, 3}) {
      INFO(id << " threads = " << threads);
      CHECK(same_bits(one, pass(threads)));
    }
  }
}
