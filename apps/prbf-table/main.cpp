// prbf-table: reproduces table 4 of Constantinopoulos, Titsias & Likas (2001), "A Bayesian
// regularization method for the probabilistic RBF network": 5-fold cross-validated error of
// the PRBF network on the Ionosphere data for M = 4..12 kernels, without a prior and with the
// Bhattacharyya prior at alpha = 5..20 in units of N/(KM).
//
// Every network is trained by the real plugins (centres `prbf`, regularizer `bhattacharyya`)
// loaded from the plugin folder. Classification is p(C_k|x) proportional to
// P(C_k) sum_j pi_jk p(x|j):
//   --path pipeline   the framework trainer with basis `gaussian` (density = true) and output
//                     `bayes`, from a pipeline built for every cell (its own stratified folds)
//   --path direct     the same posterior computed here from the fitted centres with
//                     GaussianLogDensity and log-sum-exp
// As in the paper, every alpha of one M and fold starts from the same initial state (the
// centre learner's seed depends on the fold and M only).

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "radial/data_reader.hpp"
#include "radial/dataset.hpp"
#include "radial/errors.hpp"
#include "radial/fit_context.hpp"
#include "radial/numerics/gaussian.hpp"
#include "radial/pipeline.hpp"
#include "radial/registry.hpp"
#include "radial/standardiser.hpp"
#include "radial/trainer.hpp"

namespace {

// Table 4 of the paper (percent error), for comparison in the output.
const std::vector<std::size_t> kPaperCounts = {4, 6, 8, 10, 12};
const std::vector<double> kPaperAlphas = {0, 5, 10, 15, 20};
const double kPaperTable[5][5] = {{24.49, 17.37, 12.83, 11.69, 9.42},
                                  {19.11, 12.26, 10.25, 9.40, 9.41},
                                  {14.52, 10.26, 10.80, 9.11, 9.70},
                                  {14.80, 12.83, 10.82, 9.40, 9.70},
                                  {14.80, 12.83, 10.25, 8.83, 9.11}};

struct Settings {
  std::filesystem::path data;
  std::string covariance = "diagonal";
  std::string init = "kmeans";
  std::string path = "auto";
  std::vector<std::size_t> counts = kPaperCounts;
  std::vector<double> alphas = kPaperAlphas;
  std::size_t repeats = 5;
  std::size_t folds = 5;
  std::size_t iterations = 100;
  double variance_floor = 1e-6;
  std::uint64_t seed = 1;
};

struct Cell {
  std::vector<double> errors;  // one cross-validated error rate per repeat
  std::size_t fits = 0;        // centre fits behind the cell
  std::size_t clamp_fits = 0;  // fits in which negative-mixing-clamp fired
  std::size_t floor_fits = 0;  // fits in which variance-floor fired
};

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / double(v.size());
}

double sd(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / double(v.size() - 1));
}

std::string alpha_text(double alpha) {
  std::ostringstream out;
  out << alpha;
  return out.str();
}

radial::Params validated(const radial::Registry& registry, radial::Slot slot,
                         const std::string& id,
                         const std::map<std::string, radial::ParamValue>& given) {
  return radial::validate_params(registry.require(slot, id).params, given,
                                 std::string(radial::to_string(slot)) + " " + id);
}

// The Bayes posterior of the PRBF, arg max over classes, counted against the labels.
std::size_t misclassified(const radial::Centres& centres, const radial::Dataset& test) {
  const radial::GaussianLogDensity density(centres);
  radial::Matrix log_p;
  density.compute(test.inputs, log_p);  // rows x M, log p(x|j)
  const std::size_t m = centres.count(), k = centres.mixing.shape(1);
  std::size_t wrong = 0;
  for (std::size_t n = 0; n < test.rows(); ++n) {
    std::size_t best = 0;
    double best_value = -std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < k; ++c) {
      // log P(C_k) + log sum_j pi_jk p(x|j), by log-sum-exp
      double top = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < m; ++j)
        if (centres.mixing(j, c) > 0) top = std::max(top, std::log(centres.mixing(j, c)) + log_p(n, j));
      double sum = 0;
      for (std::size_t j = 0; j < m; ++j)
        if (centres.mixing(j, c) > 0) sum += std::exp(std::log(centres.mixing(j, c)) + log_p(n, j) - top);
      const double value = centres.class_priors(c) > 0
                               ? std::log(centres.class_priors(c)) + top + std::log(sum)
                               : -std::numeric_limits<double>::infinity();
      if (value > best_value) {
        best_value = value;
        best = c;
      }
    }
    if (std::int64_t(best) != test.classes(n)) ++wrong;
  }
  return wrong;
}

radial::Dataset standardised(const radial::Dataset& data, const radial::Standardiser& s) {
  radial::Dataset out = data;
  s.apply(out.inputs);
  return out;
}

// Direct path: folds, standardisation and posteriors here; centres from the plugins.
void run_direct(const Settings& settings, const radial::Registry& registry,
                const radial::Dataset& data, std::map<std::pair<std::size_t, double>, Cell>& cells) {
  for (std::size_t r = 0; r < settings.repeats; ++r) {
    const std::uint64_t repeat_seed = radial::derive_seed(settings.seed, 7000 + r);
    const auto fold_of = radial::assign_folds(data, settings.folds, true, repeat_seed);
    std::map<std::pair<std::size_t, double>, std::size_t> wrong;
    for (std::size_t f = 0; f < settings.folds; ++f) {
      std::vector<std::size_t> in, out;
      for (std::size_t n = 0; n < data.rows(); ++n) (fold_of[n] == f ? out : in).push_back(n);
      const radial::Dataset train_raw = radial::select_rows(data, in);
      radial::Standardiser standardiser;
      standardiser.fit(train_raw.inputs);
      const radial::Dataset train = standardised(train_raw, standardiser);
      const radial::Dataset test = standardised(radial::select_rows(data, out), standardiser);
      for (std::size_t m : settings.counts) {
        const auto learner = registry.make_centre_learner(
            "prbf", validated(registry, radial::Slot::Centres, "prbf",
                              {{"count", std::int64_t(m)},
                               {"covariance", settings.covariance},
                               {"init", settings.init},
                               {"iterations", std::int64_t(settings.iterations)},
                               {"tolerance", 0.0},
                               {"variance_floor", settings.variance_floor}}));
        const std::uint64_t fit_seed = radial::derive_seed(repeat_seed, 100 * f + m);
        for (double alpha : settings.alphas) {
          std::shared_ptr<radial::Regularizer> prior;
          if (alpha > 0)
            prior = registry.make_regularizer(
                "bhattacharyya",
                validated(registry, radial::Slot::Regularizer, "bhattacharyya",
                          {{"alpha", alpha}, {"alpha_units", std::string("N/KM")}}));
          radial::FitContext ctx(fit_seed);  // the same initial state for every alpha
          const radial::Centres centres = learner->fit(train, prior.get(), ctx);
          wrong[{m, alpha}] += misclassified(centres, test);
          Cell& cell = cells[{m, alpha}];
          const auto fired = [&](const char* guard) {
            for (const radial::Warning& w : ctx.report.warnings)
              if (w.guard == guard && w.message.rfind("gmm initialisation", 0) != 0) return true;
            return false;
          };
          ++cell.fits;
          cell.clamp_fits += fired("negative-mixing-clamp") ? 1 : 0;
          cell.floor_fits += fired("variance-floor") ? 1 : 0;
        }
      }
    }
    for (const auto& [key, count] : wrong)
      cells[key].errors.push_back(double(count) / double(data.rows()));
    std::fprintf(stderr, "repeat %zu/%zu done\n", r + 1, settings.repeats);
  }
}

// Pipeline path: the framework trainer, one pipeline per cell.
void run_pipeline(const Settings& settings, const radial::Registry& registry,
                  std::map<std::pair<std::size_t, double>, Cell>& cells) {
  for (std::size_t r = 0; r < settings.repeats; ++r) {
    for (std::size_t m : settings.counts)
      for (double alpha : settings.alphas) {
        std::ostringstream text;
        text << "name = \"prbf-table M=" << m << " alpha=" << alpha << "\"\n"
             << "seed = " << settings.seed + r << "\nthreads = 1\n"
             << "[data]\ntrain = \"" << settings.data.string() << "\"\nstandardize = true\n"
             << "[basis]\nplugin = \"gaussian\"\ndensity = true\n"
             << "[centres]\nplugin = \"prbf\"\ncount = " << m << "\ncovariance = \""
             << settings.covariance << "\"\ninit = \"" << settings.init
             << "\"\niterations = " << settings.iterations
             << "\ntolerance = 0.0\nvariance_floor = " << settings.variance_floor << "\n"
             << "[output]\nplugin = \"bayes\"\n";
        if (alpha > 0)
          text << "[regularizer]\nplugin = \"bhattacharyya\"\nalpha = " << alpha
               << "\nalpha_units = \"N/KM\"\n";
        text << "[evaluate]\nfolds = " << settings.folds << "\n";
        const radial::Pipeline pipeline = radial::parse_pipeline(
            text.str(), std::filesystem::current_path() / "prbf-table.toml", registry);
        const radial::TrainingResult result = radial::train(pipeline, registry);
        Cell& cell = cells[{m, alpha}];
        cell.errors.push_back(result.report.cv->error_rate);
        // prbf names each guard at most once per fit; the trainer fits every fold and then
        // all rows once more.
        cell.fits += settings.folds + 1;
        for (const radial::Warning& w : result.report.warnings) {
          if (w.message.rfind("gmm initialisation", 0) == 0) continue;  // init = gmm's own run
          if (w.guard == "negative-mixing-clamp") ++cell.clamp_fits;
          if (w.guard == "variance-floor") ++cell.floor_fits;
        }
      }
    std::fprintf(stderr, "repeat %zu/%zu done\n", r + 1, settings.repeats);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  settings.data = std::filesystem::path(RADIAL_SOURCE_DIR) / "docs" / "examples" / "data" /
                  "ionosphere.csv";
  CLI::App app{"Reproduce table 4 of Constantinopoulos, Titsias & Likas (2001): PRBF with the "
               "Bhattacharyya prior on the Ionosphere data, 5-fold cross-validation"};
  std::string data_text = settings.data.string();
  app.add_option("--data", data_text, "CSV data file (last column the class)");
  app.add_option("--covariance", settings.covariance, "kernel covariances")
      ->check(CLI::IsMember({"diagonal", "full"}));
  app.add_option("--init", settings.init, "prbf initialisation")
      ->check(CLI::IsMember({"kmeans", "gmm"}));
  app.add_option("--path", settings.path,
                 "pipeline: framework trainer with the bayes output; direct: posteriors "
                 "computed here; auto: pipeline when the bayes plugin is installed")
      ->check(CLI::IsMember({"auto", "pipeline", "direct"}));
  app.add_option("--counts", settings.counts, "numbers of kernels M");
  app.add_option("--alphas", settings.alphas, "alpha values in units of N/(KM); 0 = plain PRBF");
  app.add_option("--repeats", settings.repeats, "independent repetitions of the 5-fold CV")
      ->check(CLI::PositiveNumber);
  app.add_option("--folds", settings.folds, "cross-validation folds")->check(CLI::Range(2, 100));
  app.add_option("--iterations", settings.iterations, "EM iterations (the paper: 100)");
  app.add_option("--variance-floor", settings.variance_floor, "prbf variance_floor");
  app.add_option("--seed", settings.seed, "seed");
  CLI11_PARSE(app, argc, argv);
  settings.data = std::filesystem::absolute(data_text);

  try {
    radial::Registry registry;
    registry.load_default();
    registry.require(radial::Slot::Centres, "prbf");
    registry.require(radial::Slot::Regularizer, "bhattacharyya");
    const bool have_bayes = registry.find(radial::Slot::Output, "bayes") != nullptr &&
                            registry.find(radial::Slot::Basis, "gaussian") != nullptr;
    std::string path = settings.path;
    if (path == "auto") path = have_bayes ? "pipeline" : "direct";
    if (path == "pipeline" && !have_bayes)
      throw radial::InputError("--path pipeline needs the plugins basis 'gaussian' and output "
                               "'bayes'; none was found in the plugin folder (use --path direct)");

    const radial::Dataset data = radial::read_csv(settings.data);
    if (data.task != radial::Task::Classification)
      throw radial::InputError(settings.data.string() + ": the last column must be a class");
    const auto started = std::chrono::steady_clock::now();
    std::map<std::pair<std::size_t, double>, Cell> cells;
    if (path == "pipeline") run_pipeline(settings, registry, cells);
    else run_direct(settings, registry, data, cells);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    std::printf("Generalization error (%%) on %s: %zu rows, %zu features, %zu classes\n",
                settings.data.filename().string().c_str(), data.rows(), data.features(),
                data.num_classes);
    std::printf("PRBF, %s covariances, init %s, %zu EM iterations, %zu-fold CV x %zu repeats "
                "(mean; sd over repeats), path %s, %.1f s\n\n",
                settings.covariance.c_str(), settings.init.c_str(), settings.iterations,
                settings.folds, settings.repeats, path.c_str(), seconds);
    std::printf("%-12s", "Algorithm");
    for (std::size_t m : settings.counts) std::printf("  %13zu", m);
    std::printf("\n");
    for (double alpha : settings.alphas) {
      std::printf("%-12s", alpha == 0 ? "PRBF" : ("alpha = " + alpha_text(alpha)).c_str());
      for (std::size_t m : settings.counts) {
        const Cell& cell = cells[{m, alpha}];
        std::printf("  %6.2f (%4.2f)", 100 * mean(cell.errors), 100 * sd(cell.errors));
      }
      std::printf("\n");
    }
    std::printf("\nPaper, table 4:\n%-12s", "Algorithm");
    for (std::size_t m : kPaperCounts) std::printf("  %6zu", m);
    std::printf("\n");
    for (std::size_t a = 0; a < kPaperAlphas.size(); ++a) {
      std::printf("%-12s", a == 0 ? "PRBF" : ("alpha = " + alpha_text(kPaperAlphas[a])).c_str());
      for (std::size_t c = 0; c < kPaperCounts.size(); ++c) std::printf("  %6.2f", kPaperTable[a][c]);
      std::printf("\n");
    }
    std::printf("\nFits in which a guard fired: negative-mixing-clamp / variance-floor "
                "(of %zu fits per cell)\n", cells.empty() ? std::size_t(0) : cells.begin()->second.fits);
    for (double alpha : settings.alphas) {
      std::printf("%-12s", alpha == 0 ? "PRBF" : ("alpha = " + alpha_text(alpha)).c_str());
      for (std::size_t m : settings.counts) {
        const Cell& cell = cells[{m, alpha}];
        std::printf("  %6zu / %4zu", cell.clamp_fits, cell.floor_fits);
      }
      std::printf("\n");
    }
    return 0;
  } catch (const radial::InputError& e) {
    std::fprintf(stderr, "prbf-table: %s\n", e.what());
    return 2;
  } catch (const radial::Error& e) {
    std::fprintf(stderr, "prbf-table: %s\n", e.what());
    return 1;
  }
}
