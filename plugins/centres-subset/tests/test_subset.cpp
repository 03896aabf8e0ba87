// subset: random distinct training rows, or all of them (the full RBF network), loaded as the
// host loads it. Exact interpolation of the full network is checked with the gaussian and
// thin-plate bases and an SVD solve of the design matrix.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include <radial/network/design_matrix.hpp>
#include <radial/core/errors.hpp>
#include <radial/numerics/least_squares.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/paths.hpp>
#include <radial/testing/registry.hpp>

namespace {

const radial::Registry& registry() {
  return radial::testing::plugin_registry({"centres-subset", "basis-gaussian", "basis-thin-plate"});
}

std::shared_ptr<radial::CentreLearner> make_subset(std::map<std::string, radial::ParamValue> given) {
  const auto& info = registry().require(radial::Slot::Centres, "subset");
  return registry().make_centre_learner("subset",
                                        radial::validate_params(info.params, given, "plugin subset"));
}

// y = sin(x1) + x2^2 / 4 on 40 distinct random points of [-2, 2]^2 (regression).
radial::Dataset smooth_regression() {
  radial::Dataset data;
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  data.inputs = xt::empty<double>({std::size_t(40), std::size_t(2)});
  data.values = xt::empty<double>({std::size_t(40)});
  for (std::size_t i = 0; i < 40; ++i) {
    data.inputs(i, 0) = u(rng);
    data.inputs(i, 1) = u(rng);
    data.values(i) = std::sin(data.inputs(i, 0)) + data.inputs(i, 1) * data.inputs(i, 1) / 4;
  }
  data.task = radial::Task::Regression;
  return data;
}

std::vector<double> row(const radial::Matrix& m, std::size_t i) {
  return std::vector<double>(m.data() + i * m.shape(1), m.data() + (i + 1) * m.shape(1));
}

}  // namespace

TEST_CASE("subset draws distinct training rows from the context's generator", "[subset]") {
  const auto data = smooth_regression();
  std::set<std::vector<double>> rows;
  for (std::size_t i = 0; i < data.rows(); ++i) rows.insert(row(data.inputs, i));

  auto learner = make_subset({{"count", std::int64_t(12)}});
  radial::FitContext ctx(5);
  const auto centres = learner->fit(data, nullptr, ctx);
  REQUIRE(centres.count() == 12);
  CHECK(centres.dim() == 2);
  CHECK(centres.shape == radial::Shape::None);
  std::set<std::vector<double>> chosen;
  for (std::size_t j = 0; j < 12; ++j) {
    CHECK(rows.count(row(centres.means, j)) == 1);  // a training row
    chosen.insert(row(centres.means, j));
  }
  CHECK(chosen.size() == 12);  // without replacement
  CHECK(ctx.report.warnings.empty());

  radial::FitContext same(5), other(6);
  const auto again = learner->fit(data, nullptr, same);
  const bool same_seed_same_centres = again.means == centres.means;
  CHECK(same_seed_same_centres);  // the seed decides
  const auto different = learner->fit(data, nullptr, other);
  const bool other_seed_same_centres = different.means == centres.means;
  CHECK_FALSE(other_seed_same_centres);
}

TEST_CASE("subset refuses more centres than rows, naming the setting", "[subset]") {
  const auto data = smooth_regression();
  auto learner = make_subset({{"count", std::int64_t(41)}});
  radial::FitContext ctx(1);
  CHECK_THROWS_AS(learner->fit(data, nullptr, ctx), radial::InputError);
  CHECK_THROWS_WITH(learner->fit(data, nullptr, ctx),
                    Catch::Contains("count = 41") && Catch::Contains("only 40 rows") &&
                        Catch::Contains("centres.count <= 40"));
  // `all` ignores count.
  CHECK(make_subset({{"count", std::int64_t(41)}, {"all", true}})->fit(data, nullptr, ctx).count() == 40);
  CHECK_THROWS_AS(make_subset({{"count", std::int64_t(0)}}), radial::ParameterError);
}

TEST_CASE("subset all: the full RBF network interpolates the training targets exactly",
          "[subset][interpolation]") {
  const auto data = smooth_regression();
  auto learner = make_subset({{"all", true}});
  radial::FitContext ctx(1);
  auto centres = learner->fit(data, nullptr, ctx);
  const bool every_row_in_order = centres.means == data.inputs;
  REQUIRE(every_row_in_order);  // mu_m = x_m

  for (const std::string basis_id : {"gaussian", "thin-plate"}) {
    INFO(basis_id);
    const auto& info = registry().require(radial::Slot::Basis, basis_id);
    // NETLAB's default Gaussian width (the largest distance between centres) makes the 40 x 40
    // Gaussian matrix numerically singular; sigma = 0.5 keeps it well conditioned.
    std::map<std::string, radial::ParamValue> given;
    if (basis_id == "gaussian") given["width"] = 0.5;
    const auto basis = registry().make_basis(
        basis_id, radial::validate_params(info.params, given, "plugin " + basis_id));
    radial::Centres prepared = centres;
    basis->prepare(prepared, ctx);
    const radial::DesignMatrix design(data.inputs, prepared, *basis);
    const radial::Matrix phi = design.materialise();  // N x (N+1) with the bias column
    radial::Matrix t = xt::empty<double>({data.rows(), std::size_t(1)});
    for (std::size_t i = 0; i < data.rows(); ++i) t(i, 0) = data.values(i);
    const auto solution = radial::solve_least_squares(phi, t);
    // N equations, N+1 unknowns of full row rank: the residual vanishes (paper 001,
    // "Interpolation": g_RBF(x_n) = y_n, E_in = 0).
    CHECK(solution.rank == data.rows());
    double sse = 0;
    for (std::size_t i = 0; i < data.rows(); ++i) {
      double y = 0;
      for (std::size_t j = 0; j < phi.shape(1); ++j) y += phi(i, j) * solution.x(j, 0);
      sse += (y - t(i, 0)) * (y - t(i, 0));
    }
    CHECK(sse < 1e-12);
  }
}

TEST_CASE("subset warns when duplicate rows give identical centres", "[subset]") {
  auto data = smooth_regression();
  for (std::size_t k = 0; k < 2; ++k) data.inputs(7, k) = data.inputs(3, k);
  auto learner = make_subset({{"all", true}});
  radial::FitContext ctx(1);
  learner->fit(data, nullptr, ctx);
  REQUIRE(ctx.report.warnings.size() == 1);
  CHECK(ctx.report.warnings[0].guard == "duplicate-centres");
  CHECK_THAT(ctx.report.warnings[0].message, Catch::Contains("1 of the 40 centres"));
}

TEST_CASE("subset passes the plugin conformance kit", "[subset][conformance]") {
  radial::Registry fresh;
  fresh.load_file(radial::testing::plugin_dir() / "libradial-centres-subset.so");
  radial::conformance::check_plugin(fresh, "subset");
}
