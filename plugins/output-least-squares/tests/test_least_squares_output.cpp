// least-squares output layer, loaded as the host loads it, against NETLAB's pinv optimum
// (tests/data, copied from the NETLAB parity runs) and NumPy (tests/reference/reference_ridge.py);
// the cg solver against the direct ones (svd, refined normal equations) on small problems.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>

#include <radial/data/data_reader.hpp>
#include <radial/network/design_matrix.hpp>
#include <radial/core/errors.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/paths.hpp>
#include <radial/testing/registry.hpp>
#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

using radial::Matrix;

namespace {

std::filesystem::path here() {
  return radial::testing::source_dir() / "plugins" / "output-least-squares" / "tests";
}

std::filesystem::path reference_dir() {
  return radial::testing::source_dir() / "tests" / "reference";
}

Matrix read_numbers(const std::filesystem::path& file, bool header = false) {
  std::ifstream in(file);
  REQUIRE(in.good());
  std::vector<std::vector<double>> rows;
  std::string line;
  if (header) std::getline(in, line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<double> row;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  Matrix out = xt::empty<double>({rows.size(), rows.at(0).size()});
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j) out(i, j) = rows[i].at(j);
  return out;
}

const radial::Registry& registry() {
  return radial::testing::plugin_registry(
      {"output-least-squares", "basis-gaussian", "basis-thin-plate", "weight-penalty-weight-decay"});
}

radial::Params params_for(radial::Slot slot, const std::string& id,
                          std::map<std::string, radial::ParamValue> given = {}) {
  return radial::validate_params(registry().require(slot, id).params, given, "plugin " + id);
}

std::shared_ptr<radial::OutputLayer> least_squares(const std::string& solver) {
  return registry().make_output_layer(
      "least-squares",
      params_for(radial::Slot::Output, "least-squares", {{"solver", solver}}));
}

radial::Dataset synth3() {
  return radial::read_csv(radial::testing::source_dir() / "docs" / "examples" / "data" /
                          "synth3_train.csv");
}

radial::Centres netlab_centres(bool gaussian_widths) {
  radial::Centres c;
  c.means = read_numbers(here() / "data" / "netlab_centres.csv");
  if (gaussian_widths) {
    c.shape = radial::Shape::Spherical;
    c.variances = xt::flatten(read_numbers(here() / "data" / "netlab_gauss_widths.csv"));
  }
  return c;
}

// Everything one fit needs, alive together.
struct Problem {
  radial::Dataset data;
  radial::Centres centres;
  std::shared_ptr<radial::Basis> basis;
  std::unique_ptr<radial::DesignMatrix> design;
  radial::FitContext ctx{1};

  Problem(radial::Dataset d, radial::Centres c, const std::string& basis_id,
          std::map<std::string, radial::ParamValue> basis_params = {},
          std::size_t block_rows = 1024, std::size_t cache_bytes = std::size_t(256) << 20)
      : data(std::move(d)), centres(std::move(c)) {
    // The centres' own (NETLAB) widths, unless the test names a width.
    if (basis_id == "gaussian" && !basis_params.count("width"))
      basis_params.emplace("width_rule", std::string("shapes"));
    basis = registry().make_basis(basis_id, params_for(radial::Slot::Basis, basis_id, basis_params));
    basis->prepare(centres, ctx);
    design = std::make_unique<radial::DesignMatrix>(data.inputs, centres, *basis, false,
                                                    cache_bytes, block_rows);
  }

  radial::OutputWeights fit(radial::OutputLayer& layer, const radial::WeightPenalty* penalty = nullptr) {
    const radial::TrainingProblem problem{*design, data, centres, *basis};
    return layer.fit(problem, penalty, ctx);
  }
};

const radial::Warning* find_warning(const radial::FitContext& ctx, const std::string& guard) {
  for (const auto& w : ctx.report.warnings)
    if (w.guard == guard) return &w;
  return nullptr;
}

constexpr double netlab_gauss_half_sse = 12.398455024396405;  // results.csv, pinv
constexpr double netlab_tps_half_sse = 12.153698278621304;

}  // namespace

TEST_CASE("least-squares reaches NETLAB's pinv optimum (Gaussian basis)", "[least-squares][netlab]") {
  const Matrix netlab_w = read_numbers(here() / "data" / "netlab_gauss_weights_pinv.csv");
  for (const std::string solver : {"svd", "normal-equations", "auto"}) {
    INFO(solver);
    Problem problem(synth3(), netlab_centres(true), "gaussian");
    auto layer = least_squares(solver);
    const auto out = problem.fit(*layer);
    const auto& report = problem.ctx.report;
    REQUIRE(out.weights.shape(0) == 11);
    REQUIRE(out.weights.shape(1) == 2);
    CHECK(out.link == radial::Link::Identity);
    // 1-of-2 targets: both columns carry NETLAB's residuals, so 0.5 SSE doubles.
    CHECK(report.final_error == Approx(2 * netlab_gauss_half_sse).epsilon(1e-9));
    CHECK(report.figures.at("rank") == 11.0);
    CHECK(report.figures.at("svd") == (solver == "normal-equations" ? 0.0 : 1.0));
    CHECK(report.warnings.empty());
    // Column 1 is NETLAB's single 0/1 output; column 0 = bias unit minus column 1.
    for (std::size_t i = 0; i < 11; ++i) {
      CHECK(out.weights(i, 1) == Approx(netlab_w(i, 0)).margin(1e-7));
      CHECK(out.weights(i, 0) == Approx((i == 10 ? 1.0 : 0.0) - netlab_w(i, 0)).margin(1e-7));
    }
  }
}

TEST_CASE("least-squares reaches NETLAB's pinv optimum (thin-plate basis)", "[least-squares][netlab]") {
  // Radial's thin-plate is r^2 log r, NETLAB's r^2 log r^2 = 2 r^2 log r: the same optimum,
  // with our basis weights twice NETLAB's and the same bias.
  const Matrix netlab_w = read_numbers(here() / "data" / "netlab_tps_weights_pinv.csv");
  for (const std::string solver : {"svd", "normal-equations"}) {
    INFO(solver);
    Problem problem(synth3(), netlab_centres(false), "thin-plate");
    auto layer = least_squares(solver);
    const auto out = problem.fit(*layer);
    CHECK(problem.ctx.report.final_error == Approx(2 * netlab_tps_half_sse).epsilon(1e-9));
    for (std::size_t i = 0; i < 11; ++i)
      CHECK(out.weights(i, 1) == Approx((i == 10 ? 1.0 : 2.0) * netlab_w(i, 0)).margin(1e-6));
  }
}

TEST_CASE("least-squares with weight decay is the ridge solution", "[least-squares][ridge]") {
  const Matrix expected = read_numbers(reference_dir() / "reference_ridge_weights.csv");
  const Matrix figures = read_numbers(reference_dir() / "reference_ridge.csv", true);
  const double alpha = figures(0, 0);
  const auto decay = registry().make_weight_penalty(
      "weight-decay", params_for(radial::Slot::WeightPenalty, "weight-decay", {{"alpha", alpha}}));
  for (const std::string solver : {"svd", "normal-equations"}) {
    INFO(solver);
    Problem problem(synth3(), netlab_centres(true), "gaussian");
    auto layer = least_squares(solver);
    const auto out = problem.fit(*layer, decay.get());
    const auto& report = problem.ctx.report;
    for (std::size_t i = 0; i < 11; ++i)
      for (std::size_t c = 0; c < 2; ++c)
        CHECK(out.weights(i, c) == Approx(expected(i, c)).margin(1e-9));
    CHECK(report.final_error == Approx(figures(0, 2) + figures(0, 3)).epsilon(1e-10));
    CHECK(report.figures.at("penalty") == Approx(figures(0, 3)).epsilon(1e-9));
    CHECK(report.final_error > figures(0, 1));  // the penalty costs training error
  }
}

// The problem of the ill-conditioned ridge cases at Gaussian width `sigma`.
Problem problem_for_condition(double sigma) {
  return Problem(synth3(), netlab_centres(false), "gaussian", {{"width", sigma}}, 64);
}

// Phi^T Phi of a problem's design, in long double.
std::vector<std::vector<long double>> ridge_system(const Problem& problem) {
  const Matrix phi = problem.design->materialise();
  const std::size_t n = phi.shape(0), p = phi.shape(1);
  std::vector<std::vector<long double>> a(p, std::vector<long double>(p, 0.0L));
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < p; ++i)
      for (std::size_t j = 0; j < p; ++j) a[i][j] += (long double)phi(r, i) * phi(r, j);
  return a;
}

// ||A||_1 ||A^-1||_1 of A = Phi^T Phi + alpha diag(1, ..., 1, 0) (weight decay leaves the bias,
// the last weight, unpenalised), A^-1 by Gauss-Jordan elimination in long double.
double one_norm_condition(std::vector<std::vector<long double>> a, double alpha) {
  const std::size_t p = a.size();
  for (std::size_t i = 0; i + 1 < p; ++i) a[i][i] += alpha;
  const auto one_norm = [p](const std::vector<std::vector<long double>>& m) {
    long double best = 0;
    for (std::size_t j = 0; j < p; ++j) {
      long double column = 0;
      for (std::size_t i = 0; i < p; ++i) column += std::fabs(m[i][j]);
      best = std::max(best, column);
    }
    return best;
  };
  const long double norm = one_norm(a);
  std::vector<std::vector<long double>> inv(p, std::vector<long double>(p, 0.0L));
  for (std::size_t i = 0; i < p; ++i) inv[i][i] = 1;
  for (std::size_t c = 0; c < p; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < p; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[pivot][c])) pivot = r;
    std::swap(a[c], a[pivot]);
    std::swap(inv[c], inv[pivot]);
    const long double d = a[c][c];
    for (std::size_t j = 0; j < p; ++j) {
      a[c][j] /= d;
      inv[c][j] /= d;
    }
    for (std::size_t r = 0; r < p; ++r) {
      if (r == c) continue;
      const long double f = a[r][c];
      for (std::size_t j = 0; j < p; ++j) {
        a[r][j] -= f * a[c][j];
        inv[r][j] -= f * inv[c][j];
      }
    }
  }
  return double(norm * one_norm(inv));
}

TEST_CASE("least-squares refines the normal equations to the SVD's accuracy",
          "[least-squares][ridge]") {
  // NumPy's lstsq of [Phi; sqrt(alpha) D] (reference_ridge.py) on a wide Gaussian width: row 0
  // has cond(Phi^T Phi + alpha D) = 2e11, where the plain normal equations lose about 5 digits;
  // row 1 has 2e13, still refined (below 1 / epsilon cond(Phi) is below epsilon^(-1/2), where
  // the refinement reaches the SVD's accuracy); row 2 has 1e17, beyond it, where auto takes the
  // SVD.
  const Matrix cases = read_numbers(reference_dir() / "reference_ridge_ill.csv", true);
  REQUIRE(cases.shape(0) == 3);
  const auto error_against = [&](std::size_t row, const Matrix& w) {
    double largest = 0, error = 0;
    for (std::size_t i = 0; i < 11; ++i)
      for (std::size_t c = 0; c < 2; ++c) {
        const double expected = cases(row, 3 + 2 * i + c);
        largest = std::max(largest, std::abs(expected));
        error = std::max(error, std::abs(w(i, c) - expected));
      }
    return error / largest;
  };
  for (std::size_t row = 0; row < 3; ++row) {
    INFO("sigma " << cases(row, 0) << ", alpha " << cases(row, 1));
    const auto decay = registry().make_weight_penalty(
        "weight-decay",
        params_for(radial::Slot::WeightPenalty, "weight-decay", {{"alpha", cases(row, 1)}}));
    std::map<std::string, double> errors;
    std::map<std::string, radial::FitReport> reports;
    for (const std::string solver : {"auto", "normal-equations", "refined-normal-equations"}) {
      // 64-row blocks on two threads: the refinement's passes are ordered reductions.
      Problem problem(synth3(), netlab_centres(false), "gaussian", {{"width", cases(row, 0)}}, 64);
      problem.design->set_threads(2);
      problem.ctx = radial::FitContext(0, 2);
      auto layer = least_squares(solver);
      errors[solver] = error_against(row, problem.fit(*layer, decay.get()).weights);
      reports[solver] = problem.ctx.report;
    }
    INFO("auto " << errors["auto"] << ", normal-equations " << errors["normal-equations"]);
    CHECK(errors["normal-equations"] > 1e-8);  // the case needs the refinement
    // The SVD itself agrees with NumPy's to about epsilon cond(Phi)^2 ||r|| / ||W||.
    CHECK(errors["auto"] < (row == 0 ? 1e-10 : row == 1 ? 1e-9 : 1e-8));
    CHECK(errors["refined-normal-equations"] == errors["auto"]);
    const radial::FitReport& chosen = reports["auto"];
    if (row < 2) {
      CHECK(chosen.figures.at("svd") == 0.0);
      CHECK(chosen.figures.at("refinements") >= 1.0);
      CHECK_THAT(chosen.message,
                 Catch::Matchers::Contains("refined normal equations"));
    }
    if (row == 0) {
      // Of Phi: the square root of the system's 1-norm condition as LAPACK dpocon estimates it
      // from the Cholesky factor, a lower bound on the exact one, here within a factor 3.
      const double system = one_norm_condition(ridge_system(problem_for_condition(cases(row, 0))),
                                               cases(row, 1));
      const double estimate = chosen.figures.at("condition") * chosen.figures.at("condition");
      CHECK(estimate <= system * (1 + 1e-6));
      CHECK(estimate >= system / 3);
      // The 2-norm condition (NumPy) is within a factor p of the 1-norm one.
      CHECK(system >= cases(row, 2) / 11);
      CHECK(system <= cases(row, 2) * 11);
    } else if (row == 2) {
      CHECK(chosen.figures.at("svd") == 1.0);
      CHECK(chosen.figures.at("refinements") == 0.0);
    }
  }
}

TEST_CASE("least-squares accumulates the normal equations over blocks", "[least-squares]") {
  // 16-row blocks and no cache: 16 blocks computed on every pass.
  Problem blocked(synth3(), netlab_centres(true), "gaussian", {}, 16, 0);
  REQUIRE(blocked.design->block_count() == 16);
  auto normal = least_squares("normal-equations");
  const auto a = blocked.fit(*normal);
  Problem whole(synth3(), netlab_centres(true), "gaussian");
  auto svd = least_squares("svd");
  const auto b = whole.fit(*svd);
  for (std::size_t i = 0; i < 11; ++i)
    for (std::size_t c = 0; c < 2; ++c) CHECK(a.weights(i, c) == Approx(b.weights(i, c)).margin(1e-7));
  CHECK(blocked.ctx.report.final_error == Approx(whole.ctx.report.final_error).epsilon(1e-10));
}

TEST_CASE("least-squares reports a rank-deficient design and still finds the optimum",
          "[least-squares][rank]") {
  // Centre 0 twice: identical columns, rank 11 of 12, the same column space as the 10 NETLAB
  // centres and therefore the same minimum.
  radial::Centres c = netlab_centres(true);
  radial::Centres doubled;
  doubled.means = xt::concatenate(xt::xtuple(c.means, xt::view(c.means, xt::range(0, 1), xt::all())));
  doubled.shape = radial::Shape::Spherical;
  doubled.variances = xt::concatenate(xt::xtuple(c.variances, xt::view(c.variances, xt::range(0, 1))));
  for (const std::string solver : {"svd", "normal-equations"}) {
    INFO(solver);
    Problem problem(synth3(), doubled, "gaussian");
    auto layer = least_squares(solver);
    problem.fit(*layer);
    const auto& report = problem.ctx.report;
    CHECK(report.figures.at("rank") == 11.0);
    CHECK(report.final_error == Approx(2 * netlab_gauss_half_sse).epsilon(1e-8));
    const auto* w = find_warning(problem.ctx, "rank-deficient");
    REQUIRE(w != nullptr);
    CHECK_THAT(w->message, Catch::Contains("rank 11 of 12"));
    CHECK_THAT(w->setting, Catch::Contains("[weight-penalty]"));

    // Weight decay makes the system full rank: no warning.
    const auto decay = registry().make_weight_penalty(
        "weight-decay", params_for(radial::Slot::WeightPenalty, "weight-decay", {{"alpha", 0.01}}));
    Problem ridge(synth3(), doubled, "gaussian");
    ridge.fit(*layer, decay.get());
    CHECK(ridge.ctx.report.figures.at("rank") == 12.0);
    CHECK(find_warning(ridge.ctx, "rank-deficient") == nullptr);
  }
}

TEST_CASE("least-squares interpolates a regression exactly with every point a centre",
          "[least-squares][interpolation]") {
  radial::Dataset data;
  data.task = radial::Task::Regression;
  data.inputs = xt::empty<double>({std::size_t(30), std::size_t(1)});
  data.values = xt::empty<double>({std::size_t(30)});
  for (std::size_t i = 0; i < 30; ++i) {
    data.inputs(i, 0) = 0.2 * double(i);
    data.values(i) = std::sin(data.inputs(i, 0));
  }
  radial::Centres c;
  c.means = data.inputs;
  for (const std::string solver : {"svd", "normal-equations"}) {
    INFO(solver);
    Problem problem(data, c, "gaussian", {{"width", 0.3}});
    auto layer = least_squares(solver);
    const auto out = problem.fit(*layer);
    REQUIRE(out.weights.shape(1) == 1);
    // N equations, N + 1 unknowns (the bias is redundant): rank N, training error 0 (paper
    // 001, "Interpolation").
    CHECK(problem.ctx.report.figures.at("rank") == 30.0);
    CHECK(problem.ctx.report.final_error < (solver == "svd" ? 1e-20 : 1e-10));
    const auto* w = find_warning(problem.ctx, "rank-deficient");
    REQUIRE(w != nullptr);
    CHECK_THAT(w->message, Catch::Contains("rank 30 of 31") &&
                               Catch::Contains("more weights than the 30 training rows"));
  }
}

TEST_CASE("least-squares parameters", "[least-squares]") {
  const auto& info = registry().require(radial::Slot::Output, "least-squares");
  CHECK(std::get<std::string>(radial::find_param(info.params, "solver")->default_value) == "auto");
  CHECK_THROWS_AS(params_for(radial::Slot::Output, "least-squares", {{"solver", std::string("qr")}}),
                  radial::ParameterError);
}

TEST_CASE("least-squares refuses rcond >= 1, which would zero every weight", "[least-squares]") {
  const auto make = [](double rcond) {
    return registry().make_output_layer(
        "least-squares", params_for(radial::Slot::Output, "least-squares", {{"rcond", rcond}}));
  };
  CHECK_NOTHROW(make(-1.0));
  CHECK_NOTHROW(make(0.999));
  for (double rcond : {1.0, 2.5}) {
    INFO("rcond = " << rcond);
    CHECK_THROWS_AS(make(rcond), radial::ParameterError);
    CHECK_THROWS_WITH(make(rcond), Catch::Contains("rcond") && Catch::Contains("rcond < 1"));
  }
}

namespace {

std::shared_ptr<radial::OutputLayer> least_squares_with(
    std::map<std::string, radial::ParamValue> given) {
  return registry().make_output_layer(
      "least-squares", params_for(radial::Slot::Output, "least-squares", std::move(given)));
}

// cg to the rounding floor: the residual of the normal equations at 1e-13 of the right-hand
// side's, so that the weights differ from the direct solvers' by cond(A) x 1e-13 at most.
std::shared_ptr<radial::OutputLayer> tight_cg() {
  return least_squares_with({{"solver", std::string("cg")},
                             {"tolerance", 1e-13},
                             {"max_iterations", std::int64_t(5000)}});
}

std::shared_ptr<radial::WeightPenalty> weight_decay(double alpha, bool include_bias) {
  return registry().make_weight_penalty(
      "weight-decay", params_for(radial::Slot::WeightPenalty, "weight-decay",
                                 {{"alpha", alpha}, {"include_bias", include_bias}}));
}

radial::Dataset example(const std::string& file, radial::Task task) {
  radial::DataOptions options;
  options.task = task;
  return radial::read_csv(radial::testing::source_dir() / "docs" / "examples" / "data" / file,
                          options);
}

// Every `step`-th row of the data as a centre (no shape: the basis's width parameter).
radial::Centres every_nth_row(const radial::Dataset& data, std::size_t step) {
  radial::Centres c;
  const std::size_t m = (data.rows() + step - 1) / step;
  c.means = xt::empty<double>({m, data.features()});
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t a = 0; a < data.features(); ++a) c.means(j, a) = data.inputs(j * step, a);
  return c;
}

// H = alpha K_MM for a Gaussian of `width` at `centres` of `data` (symmetrised; the bias row and
// column 0), the rkhs penalty's Hessian. Problem's prepare gives the centres their widths.
Matrix rkhs_hessian(const radial::Dataset& data, const radial::Centres& centres, double width,
                    double alpha) {
  Problem at_centres(radial::Dataset(data), centres, "gaussian", {{"width", width}});
  const Matrix kernel =
      radial::DesignMatrix(centres.means, at_centres.centres, *at_centres.basis, false)
          .materialise();
  const std::size_t m = centres.count(), p = m + 1;
  Matrix h = xt::zeros<double>({p, p});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < m; ++j) h(i, j) = alpha * 0.5 * (kernel(i, j) + kernel(j, i));
  return h;
}

// max |a - b| / max |b|.
double relative_difference(const Matrix& a, const Matrix& b) {
  REQUIRE(a.shape(0) == b.shape(0));
  REQUIRE(a.shape(1) == b.shape(1));
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a.data()[i] - b.data()[i]));
    scale = std::max(scale, std::abs(b.data()[i]));
  }
  return diff / scale;
}

// The small problems the cg path is checked on against the direct solvers.
struct SmallProblem {
  std::string name;
  radial::Dataset data;
  radial::Centres centres;
  std::string basis;
  std::map<std::string, radial::ParamValue> basis_params;
};

std::vector<SmallProblem> small_problems() {
  const radial::Dataset iris = example("iris.csv", radial::Task::Classification);
  const radial::Dataset sine = example("sine.train.csv", radial::Task::Regression);
  return {
      // 1-of-3 class targets, 15 centres (every 10th row), a unit width
      {"iris, 1-of-3", iris, every_nth_row(iris, 10), "gaussian", {{"width", 1.0}}},
      // regression, 10 centres of one input on [0, 1]
      {"sine, regression", sine, every_nth_row(sine, 10), "gaussian", {{"width", 0.2}}},
      // 1-of-2 class targets, NETLAB's centres and widths
      {"synth3, NETLAB centres", synth3(), netlab_centres(true), "gaussian", {}},
  };
}

}  // namespace

TEST_CASE("least-squares cg equals the direct solvers under every penalty",
          "[least-squares][cg]") {
  // (alpha, include_bias); alpha 0: no penalty (H = 0, the preconditioner's jitter alone).
  const std::vector<std::pair<double, bool>> penalties = {
      {0.0, false}, {1e-3, false}, {1e-1, false}, {10.0, false}, {1e-3, true}, {1.0, true}};
  for (const SmallProblem& sp : small_problems())
    for (const auto& [alpha, include_bias] : penalties) {
      INFO(sp.name << ", weight decay " << alpha << (include_bias ? " with the bias" : ""));
      const auto decay = alpha > 0 ? weight_decay(alpha, include_bias) : nullptr;
      std::map<std::string, radial::OutputWeights> weights;
      std::map<std::string, radial::FitReport> reports;
      for (const std::string solver : {"cg", "refined-normal-equations", "svd"}) {
        Problem problem(sp.data, sp.centres, sp.basis, sp.basis_params);
        auto layer = solver == "cg" ? tight_cg() : least_squares(solver);
        weights[solver] = problem.fit(*layer, decay.get());
        reports[solver] = problem.ctx.report;
        // The training rows' outputs, kept for the trainer's metrics: Phi W.
        const Matrix phi = problem.design->materialise();
        const Matrix& w = weights[solver].weights;
        Matrix expected = xt::zeros<double>({phi.shape(0), w.shape(1)});
        for (std::size_t n = 0; n < phi.shape(0); ++n)
          for (std::size_t c = 0; c < w.shape(1); ++c)
            for (std::size_t i = 0; i < phi.shape(1); ++i) expected(n, c) += phi(n, i) * w(i, c);
        INFO(solver);
        CHECK(relative_difference(weights[solver].training_outputs, expected) <= 1e-12);
      }
      const radial::FitReport& cg = reports["cg"];
      INFO("cg: " << cg.message << "; svd: " << reports["svd"].message);
      CHECK(weights["cg"].link == radial::Link::Identity);
      CHECK(relative_difference(weights["cg"].weights, weights["svd"].weights) <= 1e-8);
      CHECK(relative_difference(weights["cg"].weights,
                                weights["refined-normal-equations"].weights) <= 1e-8);
      CHECK(cg.final_error == Approx(reports["svd"].final_error).epsilon(1e-10));
      CHECK(cg.termination == radial::Termination::Converged);
      CHECK(cg.warnings.empty());
      CHECK(cg.figures.at("solver_cg") == 1.0);
      CHECK(cg.figures.at("cg_iterations") == double(cg.iterations));
      CHECK(cg.iterations >= 1);
      CHECK(cg.figures.at("parameters") == double(sp.centres.count() + 1));
      REQUIRE(cg.series.count("cg_residual") == 1);
      const auto& residuals = cg.series.at("cg_residual");
      CHECK(residuals.size() == cg.iterations + 1);
      CHECK(residuals.front() == 1.0);
      CHECK(residuals.back() <= 1e-13);
    }
}

namespace {

// A penalty with a dense Hessian and a gradient at 0, the same quadratic in every column w of W:
//   penalty(W) = sum_c g^T w_c + 1/2 w_c^T H w_c.
// add_gradient runs row by row, reading every weight of a column for each entry it writes (as a
// plain implementation would).
class DenseQuadraticPenalty final : public radial::WeightPenalty {
 public:
  DenseQuadraticPenalty(Matrix h, Matrix g) : h_(std::move(h)), g_(std::move(g)) {}
  double penalty(const Matrix& w) const override {
    double sum = 0;
    for (std::size_t c = 0; c < w.shape(1); ++c)
      for (std::size_t i = 0; i < w.shape(0); ++i) {
        sum += g_(i, 0) * w(i, c);
        for (std::size_t j = 0; j < w.shape(0); ++j) sum += 0.5 * w(i, c) * h_(i, j) * w(j, c);
      }
    return sum;
  }
  void add_gradient(const Matrix& w, Matrix& gradient) const override {
    for (std::size_t i = 0; i < w.shape(0); ++i)
      for (std::size_t c = 0; c < w.shape(1); ++c) {
        double s = g_(i, 0);
        for (std::size_t j = 0; j < w.shape(0); ++j) s += h_(i, j) * w(j, c);
        gradient(i, c) += s;
      }
  }
  void add_hessian(const Matrix& w, Matrix& hessian) const override {
    const std::size_t k = w.shape(1);  // row-major flattening p = i K + c
    for (std::size_t i = 0; i < w.shape(0); ++i)
      for (std::size_t j = 0; j < w.shape(0); ++j)
        for (std::size_t c = 0; c < k; ++c) hessian(i * k + c, j * k + c) += h_(i, j);
  }

 private:
  Matrix h_, g_;
};

}  // namespace

TEST_CASE("least-squares cg equals the direct solvers under a dense quadratic penalty",
          "[least-squares][cg]") {
  // H = 0.05 (A A^T + I) for a fixed A with entries in [-1, 1], g = 0.1 (1, -1, 1, ...): a
  // penalty that couples the weights and pulls them off zero.
  for (const SmallProblem& sp : small_problems()) {
    INFO(sp.name);
    const std::size_t p = sp.centres.count() + 1;
    Matrix a = xt::empty<double>({p, p});
    for (std::size_t i = 0; i < p; ++i)
      for (std::size_t j = 0; j < p; ++j) a(i, j) = std::sin(double(7 * i + 3 * j + 1));
    Matrix h = xt::zeros<double>({p, p}), g = xt::empty<double>({p, std::size_t(1)});
    for (std::size_t i = 0; i < p; ++i) {
      g(i, 0) = i % 2 ? -0.1 : 0.1;
      for (std::size_t j = 0; j < p; ++j) {
        for (std::size_t l = 0; l < p; ++l) h(i, j) += a(i, l) * a(j, l);
        h(i, j) = 0.05 * (h(i, j) + (i == j ? 1.0 : 0.0));
      }
    }
    const DenseQuadraticPenalty penalty(h, g);
    Problem cg(sp.data, sp.centres, sp.basis, sp.basis_params);
    auto layer = tight_cg();
    const auto w = cg.fit(*layer, &penalty);
    Problem svd(sp.data, sp.centres, sp.basis, sp.basis_params);
    auto direct = least_squares("svd");
    const auto want = svd.fit(*direct, &penalty);
    INFO("cg: " << cg.ctx.report.message);
    CHECK(cg.ctx.report.termination == radial::Termination::Converged);
    CHECK(relative_difference(w.weights, want.weights) <= 1e-8);
    CHECK(cg.ctx.report.final_error == Approx(svd.ctx.report.final_error).epsilon(1e-10));
  }
}

TEST_CASE("least-squares factors an RKHS-penalised system whitened by the penalty",
          "[least-squares][rkhs]") {
  // H = alpha K_MM (the Gaussian basis at the centres, the bias unpenalised) on a wide width:
  // A = Phi^T Phi + H is too ill-conditioned for its own Cholesky factor, S^{-1} A S^{-T}
  // (S S^T = H + jitter) is not. The refined solve must then fit what the SVD of
  // [Phi; sqrt(alpha) K^{1/2}] fits: the same error and the same outputs on the training rows
  // (the weights may differ along directions neither Phi nor K_MM sees).
  const radial::Dataset iris = example("iris.csv", radial::Task::Classification);
  const radial::Centres centres = every_nth_row(iris, 5);  // 30 centres
  for (const double width : {14.0, 16.0}) {
    INFO("width " << width << ", alpha 0.1");
    const Matrix h = rkhs_hessian(iris, centres, width, 0.1);
    const std::size_t p = h.shape(0);
    const DenseQuadraticPenalty rkhs(h, xt::zeros<double>({p, std::size_t(1)}));
    std::map<std::string, Matrix> outputs;
    std::map<std::string, radial::FitReport> reports;
    for (const std::string solver : {"auto", "svd"}) {
      Problem problem(iris, centres, "gaussian", {{"width", width}});
      const radial::OutputWeights w = problem.fit(*least_squares(solver), &rkhs);
      const Matrix phi = problem.design->materialise();
      outputs[solver] = xt::linalg::dot(phi, w.weights);
      reports[solver] = problem.ctx.report;
    }
    const radial::FitReport& chosen = reports["auto"];
    INFO(chosen.message);
    CHECK_THAT(chosen.message, Catch::Matchers::Contains("whitened by the penalty"));
    CHECK(chosen.figures.at("svd") == 0.0);
    CHECK(chosen.final_error == Approx(reports["svd"].final_error).epsilon(1e-10));
    CHECK(relative_difference(outputs["auto"], outputs["svd"]) <= 1e-9);
  }
}

TEST_CASE("least-squares solves the selection's jittered penalty where even the whitened "
          "factor fails", "[least-squares][rkhs]") {
  // A width so wide that K_MM is singular to rounding, alpha 0.1: neither A nor the whitened
  // S^{-1} A S^{-T} has a Cholesky factor, but with 1e-8 of H's largest entry on the penalised
  // diagonal (the selection's metric) the whitened penalty is at least I / 2. Auto must then
  // fit what the SVD of [Phi; L^T] fits under that jittered penalty.
  const radial::Dataset iris = example("iris.csv", radial::Task::Classification);
  const radial::Centres centres = every_nth_row(iris, 5);  // 30 centres
  for (const double width : {32.0, 48.0, 64.0}) {
    INFO("width " << width << ", alpha 0.1");
    const Matrix h = rkhs_hessian(iris, centres, width, 0.1);
    const std::size_t p = h.shape(0), m = p - 1;
    double largest = 0;
    for (const double v : h) largest = std::max(largest, std::abs(v));
    Matrix jittered = h;
    for (std::size_t i = 0; i < m; ++i) jittered(i, i) += 1e-8 * largest;
    const Matrix zero = xt::zeros<double>({p, std::size_t(1)});
    const DenseQuadraticPenalty rkhs(h, zero), rkhs_jittered(jittered, zero);
    Problem automatic(iris, centres, "gaussian", {{"width", width}});
    const radial::OutputWeights w = automatic.fit(*least_squares("auto"), &rkhs);
    Problem by_svd(iris, centres, "gaussian", {{"width", width}});
    const radial::OutputWeights want = by_svd.fit(*least_squares("svd"), &rkhs_jittered);
    const Matrix phi = automatic.design->materialise();
    INFO(automatic.ctx.report.message);
    CHECK_THAT(automatic.ctx.report.message, Catch::Matchers::Contains("plus 1e-8"));
    CHECK(automatic.ctx.report.figures.at("metric_jitter") == 1e-8);
    CHECK(automatic.ctx.report.figures.at("svd") == 0.0);
    CHECK(relative_difference(xt::linalg::dot(phi, w.weights),
                              xt::linalg::dot(phi, want.weights)) <= 1e-9);
  }
}

TEST_CASE("least-squares takes the SVD, not truncated normal equations, where even the "
          "whitened refined solve fails", "[least-squares][rkhs]") {
  // waveform's 5,000 rows and every 5th as a centre (1,000: N (M + 1) above svd_limit), a
  // Gaussian so wide that K_MM is of low rank to rounding, H = 1e-5 K_MM: neither A nor
  // S^{-1} A S^{-T} has a Cholesky factor. The normal equations' eigenvalues are Phi's squared,
  // so they drop most directions (rank 110 of 401 on letter at width scale 128, test error
  // 0.2245 against 0.1263); auto must fit what the SVD of [Phi; L^T] fits.
  const radial::Dataset waveform = example("waveform.csv", radial::Task::Classification);
  const radial::Centres centres = every_nth_row(waveform, 5);
  const double width = 30.0;
  const Matrix h = rkhs_hessian(waveform, centres, width, 1e-5);
  const std::size_t p = h.shape(0);
  REQUIRE(waveform.rows() * p > (std::size_t(1) << 22));  // LeastSquaresOutput::svd_limit
  const DenseQuadraticPenalty rkhs(h, xt::zeros<double>({p, std::size_t(1)}));
  std::map<std::string, Matrix> outputs;
  std::map<std::string, radial::FitReport> reports;
  for (const std::string solver : {"auto", "svd", "normal-equations"}) {
    Problem problem(waveform, centres, "gaussian", {{"width", width}});
    const radial::OutputWeights w = problem.fit(*least_squares(solver), &rkhs);
    outputs[solver] = xt::linalg::dot(problem.design->materialise(), w.weights);
    reports[solver] = problem.ctx.report;
  }
  INFO("auto: " << reports["auto"].message);
  INFO("normal equations: " << reports["normal-equations"].message);
  // What makes the case: the normal equations truncate it.
  CHECK(reports["normal-equations"].figures.at("rank") < double(p) / 2);
  CHECK(reports["auto"].figures.at("svd") == 1.0);
  CHECK(reports["auto"].figures.at("rank") == reports["svd"].figures.at("rank"));
  CHECK(reports["auto"].final_error == Approx(reports["svd"].final_error).epsilon(1e-12));
  CHECK(relative_difference(outputs["auto"], outputs["svd"]) <= 1e-12);
  CHECK(reports["auto"].final_error <
        0.9 * reports["normal-equations"].final_error);
}

TEST_CASE("least-squares cg gives the same bits on 1 and 2 threads", "[least-squares][cg]") {
  // 5,000 rows: the cg path's blocks (1024 rows here, at most the design's) are shared out.
  const radial::Dataset waveform = example("waveform.csv", radial::Task::Classification);
  const radial::Centres centres = every_nth_row(waveform, 100);
  const auto decay = weight_decay(0.01, false);
  std::vector<radial::OutputWeights> weights;
  std::vector<radial::FitReport> reports;
  for (const int threads : {1, 2}) {
    for (const std::size_t block_rows : {std::size_t(256), std::size_t(1024)}) {
      Problem problem(waveform, centres, "gaussian", {{"width", 4.0}}, block_rows);
      problem.design->set_threads(threads);
      problem.ctx = radial::FitContext(0, threads);
      auto layer = least_squares_with({{"solver", std::string("cg")}, {"tolerance", 1e-10}});
      weights.push_back(problem.fit(*layer, decay.get()));
      reports.push_back(problem.ctx.report);
    }
  }
  // Runs 0, 1 on one thread and 2, 3 on two; 0 and 2 with 256-row blocks, 1 and 3 with 1024.
  for (std::size_t run : {2, 3}) {
    INFO("two threads, run " << run);
    const std::size_t same = run - 2;
    CHECK(reports[run].termination == radial::Termination::Converged);
    CHECK(reports[run].iterations == reports[same].iterations);
    CHECK(reports[run].series.at("cg_residual") == reports[same].series.at("cg_residual"));
    CHECK(reports[run].final_error == reports[same].final_error);
    REQUIRE(weights[run].weights.size() == weights[same].weights.size());
    CHECK(std::equal(weights[run].weights.begin(), weights[run].weights.end(),
                     weights[same].weights.begin()));
  }
  WARN("waveform, 50 centres, tolerance 1e-10: " << reports[0].iterations << " cg iterations");
}

TEST_CASE("least-squares cg with a class absent from the rows gives its column W = 0",
          "[least-squares][cg]") {
  // Iris without class 2: its 1-of-3 target column is zero, so is its right-hand side.
  const radial::Dataset iris = example("iris.csv", radial::Task::Classification);
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < iris.rows(); ++i)
    if (iris.classes(i) != 2) index.push_back(i);
  const radial::Dataset two = radial::select_rows(iris, index);
  REQUIRE(two.num_classes == 3);
  const radial::Centres centres = every_nth_row(two, 10);
  const auto decay = weight_decay(0.01, false);
  Problem cg(two, centres, "gaussian", {{"width", 1.0}});
  auto layer = tight_cg();
  const auto w = cg.fit(*layer, decay.get());
  REQUIRE(w.weights.shape(1) == 3);
  CHECK(cg.ctx.report.termination == radial::Termination::Converged);
  for (std::size_t i = 0; i < w.weights.shape(0); ++i) {
    INFO("row " << i);
    CHECK(w.weights(i, 2) == 0.0);
  }
  Problem direct(two, centres, "gaussian", {{"width", 1.0}});
  auto refined = least_squares("refined-normal-equations");
  CHECK(relative_difference(w.weights, direct.fit(*refined, decay.get()).weights) <= 1e-8);
}

TEST_CASE("least-squares cg reports an iteration cap as not converged", "[least-squares][cg]") {
  const auto decay = weight_decay(1e-3, false);
  Problem problem(example("iris.csv", radial::Task::Classification),
                  every_nth_row(example("iris.csv", radial::Task::Classification), 10),
                  "gaussian", {{"width", 1.0}});
  auto layer = least_squares_with({{"solver", std::string("cg")},
                                   {"tolerance", 1e-12},
                                   {"max_iterations", std::int64_t(1)}});
  const auto out = problem.fit(*layer, decay.get());
  const auto& report = problem.ctx.report;
  CHECK(out.weights.shape(0) == 16);
  CHECK(report.iterations == 1);
  CHECK(report.termination == radial::Termination::IterationCap);
  CHECK(std::string(radial::to_string(report.termination)) == "iteration-cap");
  CHECK_FALSE(report.converged());
  CHECK(report.series.at("cg_residual").size() == 2);
  const auto* w = find_warning(problem.ctx, "not-converged");
  REQUIRE(w != nullptr);
  CHECK_THAT(w->message, Catch::Contains("after 1 iterations"));
  CHECK_THAT(w->setting, Catch::Contains("max_iterations"));
}

TEST_CASE("least-squares cg parameters", "[least-squares][cg]") {
  const auto& info = registry().require(radial::Slot::Output, "least-squares");
  CHECK(std::get<double>(radial::find_param(info.params, "tolerance")->default_value) == 1e-3);
  CHECK(std::get<std::int64_t>(radial::find_param(info.params, "max_iterations")->default_value) ==
        300);
  for (const double tolerance : {0.0, 1.0, -1e-3}) {
    INFO("tolerance " << tolerance);
    CHECK_THROWS_AS(least_squares_with({{"tolerance", tolerance}}), radial::ParameterError);
  }
  CHECK_THROWS_AS(least_squares_with({{"max_iterations", std::int64_t(0)}}),
                  radial::ParameterError);
  CHECK_NOTHROW(
      least_squares_with({{"solver", std::string("cg")}, {"max_iterations", std::int64_t(1)}}));
}

TEST_CASE("least-squares sizes the cg path by its preconditioner, not the direct blocks",
          "[least-squares][cg]") {
  // HIGGS-like: N = 10^7 rows, M = 2 x 10^4 centres, one output. The direct solvers hold
  // 4 (M + 1)^2 doubles (12.8 GB); cg one (M + 1)^2 factor and three N x K columns.
  const std::size_t n = 10000000, m = 20000, k = 1;
  const double p = double(m) + 1;
  const auto cg = least_squares_with({{"solver", std::string("cg")}});
  const auto direct = least_squares_with({{"solver", std::string("normal-equations")}});
  const double cg_bytes = cg->working_memory(n, m, k).bytes;
  CHECK(direct->working_memory(n, m, k).bytes == Approx(8.0 * (4 * p * p + double(n))));
  // Phi (1.6 TB) is not cached, so the factor, the columns and 32 MB of blocks.
  CHECK(cg_bytes == Approx(8.0 * (p * p + 3.0 * double(n)) + 8.0 * (4 << 20)));
  CHECK(cg_bytes < 0.3 * direct->working_memory(n, m, k).bytes);
  // Auto takes cg when the direct blocks exceed any machine's memory (10^6 centres: 32 TB).
  const auto automatic = least_squares_with({});
  CHECK(automatic->working_memory(1000, 1000000, 1).bytes ==
        cg->working_memory(1000, 1000000, 1).bytes);
  // A small problem keeps the direct estimate under auto.
  CHECK(automatic->working_memory(1000, 100, 3).bytes ==
        direct->working_memory(1000, 100, 3).bytes);
}

TEST_CASE("least-squares passes the plugin conformance kit", "[least-squares][conformance]") {
  radial::Registry fresh;
  fresh.load_file(radial::testing::plugin_dir() / "libradial-output-least-squares.so");
  radial::conformance::check_plugin(fresh, "least-squares");
}
