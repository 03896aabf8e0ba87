// The closed-form LOO and GCV of ridge least squares (radial/network/ridge_loo.hpp) against
// NumPy's explicit refits without each row (tests/reference/ridge_loo.py), against a direct
// leave-one-out refit here, and for any thread count.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <radial/network/basis.hpp>
#include <radial/network/design_matrix.hpp>
#include <radial/core/errors.hpp>
#include <radial/numerics/least_squares.hpp>
#include <radial/network/ridge_loo.hpp>
#include <radial/testing/paths.hpp>

using namespace radial;

namespace {

// exp(-r^2 / 2) of Euclidean distances, as the reference script's design.
class UnitGaussian final : public EuclideanBasis {
 public:
  void map(Matrix& r2) const override {
    for (double& v : r2) v = std::exp(-0.5 * v);
  }
};

Matrix matrix(const nlohmann::json& rows) {
  Matrix m = Matrix::from_shape({rows.size(), rows[0].size()});
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[0].size(); ++j) m(i, j) = rows[i][j].get<double>();
  return m;
}

struct Reference {
  nlohmann::json j;
  Matrix x, targets;
  Centres centres;
  std::vector<double> lambdas;
  Reference() {
    std::ifstream in(testing::source_dir() / "tests" / "reference" / "ridge_loo.json");
    j = nlohmann::json::parse(in);
    x = matrix(j["x"]);
    targets = matrix(j["targets"]);
    centres.means = matrix(j["centres"]);
    lambdas = j["lambdas"].get<std::vector<double>>();
  }
};

// Ridge with an unpenalised bias on the rows of `phi` (N x (M + 1), bias last) but `skip`;
// the penalty lambda w^T S w (S = `metric`, M x M) or lambda ||w||^2.
Matrix ridge(const Matrix& phi, const Matrix& t, double lambda, std::size_t skip,
             const Matrix* metric = nullptr) {
  const std::size_t n = phi.shape(0), p = phi.shape(1), k = t.shape(1);
  Matrix gram = xt::zeros<double>({p, p}), cross = xt::zeros<double>({p, k});
  for (std::size_t r = 0; r < n; ++r) {
    if (r == skip) continue;
    for (std::size_t i = 0; i < p; ++i) {
      for (std::size_t j = 0; j < p; ++j) gram(i, j) += phi(r, i) * phi(r, j);
      for (std::size_t c = 0; c < k; ++c) cross(i, c) += phi(r, i) * t(r, c);
    }
  }
  for (std::size_t i = 0; i + 1 < p; ++i)
    for (std::size_t j = 0; j + 1 < p; ++j)
      gram(i, j) += lambda * (metric ? (*metric)(i, j) : double(i == j));
  Matrix w;
  REQUIRE(solve_cholesky(gram, cross, w));
  return w;
}

// The mean squared leave-one-out residual by a ridge refit without each row in turn.
double direct_loo(const Matrix& phi, const Matrix& t, double lambda) {
  const std::size_t n = phi.shape(0), k = t.shape(1);
  double direct = 0;
  for (std::size_t row = 0; row < n; ++row) {
    const Matrix w = ridge(phi, t, lambda, row);
    for (std::size_t c = 0; c < k; ++c) {
      double fit = 0;
      for (std::size_t i = 0; i < phi.shape(1); ++i) fit += phi(row, i) * w(i, c);
      direct += (t(row, c) - fit) * (t(row, c) - fit);
    }
  }
  return direct / double(n);
}

// The reference's design matrix and its rows, for the tests that refit by hand.
struct Materialised {
  const Reference ref;
  const UnitGaussian basis{};
  const DesignMatrix design{ref.x, ref.centres, basis};
  const Matrix phi = design.materialise();
};

}  // namespace

TEST_CASE("ridge LOO and GCV equal NumPy's explicit refits", "[ridge-loo]") {
  const Reference ref;
  const UnitGaussian basis;
  const DesignMatrix design(ref.x, ref.centres, basis, false, std::size_t(256) << 20, 7);
  const RidgePath path = ridge_loo_path(design, ref.targets, ref.lambdas, false);
  REQUIRE(path.rows == ref.x.shape(0));
  for (std::size_t l = 0; l < ref.lambdas.size(); ++l) {
    INFO("lambda " << ref.lambdas[l]);
    REQUIRE(path.lambdas[l] == ref.lambdas[l]);
    REQUIRE(path.loo[l] == Approx(ref.j["loo"][l].get<double>()).epsilon(1e-8));
    REQUIRE(path.gcv[l] == Approx(ref.j["gcv"][l].get<double>()).epsilon(1e-8));
    REQUIRE(path.dof[l] == Approx(ref.j["dof"][l].get<double>()).epsilon(1e-8));
  }
}

TEST_CASE_METHOD(Materialised,
                 "ridge LOO equals a direct leave-one-out refit, block size and threads aside",
                 "[ridge-loo]") {
  const double lambda = 0.05;
  const double direct = direct_loo(phi, ref.targets, lambda);
  const RidgePath one = ridge_loo_path(design, ref.targets, {lambda}, false);
  REQUIRE(one.loo[0] == Approx(direct).epsilon(1e-9));

  DesignMatrix blocked(ref.x, ref.centres, basis, false, 0, 3);  // no cache, 3-row blocks
  blocked.set_threads(2);
  const RidgePath two = ridge_loo_path(blocked, ref.targets, {lambda}, false);
  REQUIRE(two.loo[0] == Approx(one.loo[0]).epsilon(1e-12));
}

TEST_CASE_METHOD(Materialised, "a relative grid scales with the centred Gram's mean eigenvalue",
                 "[ridge-loo]") {
  const std::vector<double> factors = default_lambda_factors();
  REQUIRE(factors.size() == 20);
  REQUIRE(factors.front() == Approx(1e-9));
  REQUIRE(factors.back() == Approx(10.0));
  const RidgePath path = ridge_loo_path(design, ref.targets, factors, true);
  // The mean eigenvalue is trace A / M, the centred columns' sum of squares over M.
  const std::size_t n = phi.shape(0), m = phi.shape(1) - 1;
  double trace = 0;
  for (std::size_t j = 0; j < m; ++j) {
    double mean_j = 0;
    for (std::size_t r = 0; r < n; ++r) mean_j += phi(r, j) / double(n);
    for (std::size_t r = 0; r < n; ++r) trace += (phi(r, j) - mean_j) * (phi(r, j) - mean_j);
  }
  const double mean = trace / double(m);
  for (std::size_t l = 0; l < factors.size(); ++l)
    REQUIRE(path.lambdas[l] == Approx(factors[l] * mean).epsilon(1e-12));
  // The LOO error is finite on the whole path and GCV >= the plain residual mean.
  for (double v : path.loo) REQUIRE(std::isfinite(v));
}

TEST_CASE_METHOD(Materialised,
                 "ridge LOO error rate counts the rows a refit without them misclassifies",
                 "[ridge-loo]") {
  const std::size_t n = phi.shape(0);
  // Three classes from the inputs, 1-of-K.
  Matrix t = xt::zeros<double>({n, std::size_t(3)});
  for (std::size_t r = 0; r < n; ++r)
    t(r, ref.x(r, 0) + 0.3 * ref.x(r, 1) > 0.5 ? 0 : ref.x(r, 1) > 0 ? 1 : 2) = 1.0;
  for (const double lambda : {1e-4, 0.05, 2.0}) {
    std::size_t wrong = 0;
    for (std::size_t row = 0; row < n; ++row) {
      const Matrix w = ridge(phi, t, lambda, row);
      std::size_t best = 0, truth = 0;
      double best_value = -1e300;
      for (std::size_t c = 0; c < 3; ++c) {
        double y = 0;
        for (std::size_t i = 0; i < phi.shape(1); ++i) y += phi(row, i) * w(i, c);
        if (y > best_value) best_value = y, best = c;
        if (t(row, c) == 1.0) truth = c;
      }
      wrong += best != truth;
    }
    const RidgePath path = ridge_loo_path(design, t, {lambda}, false, true);
    INFO("lambda " << lambda);
    REQUIRE(path.loo_error.size() == 1);
    CHECK(path.loo_error[0] == double(wrong) / double(n));
  }
  // Without one_of_k the error rate is not computed.
  CHECK(ridge_loo_path(design, t, {0.05}, false).loo_error.empty());
}

TEST_CASE_METHOD(Materialised,
                 "under a metric (the RKHS norm's K_MM) the LOO equals a direct refit",
                 "[ridge-loo]") {
  const std::size_t n = phi.shape(0), m = phi.shape(1) - 1, k = ref.targets.shape(1);
  // S = K_MM of the basis at the centres, plus a small ridge (a Gram of centres is only
  // positive semi-definite in exact arithmetic).
  const DesignMatrix at_centres(ref.centres.means, ref.centres, basis);
  const Matrix kmm = at_centres.materialise();
  Matrix metric = Matrix::from_shape({m, m});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < m; ++j) metric(i, j) = kmm(i, j) + (i == j ? 1e-3 : 0.0);
  for (const double lambda : {0.01, 0.3}) {
    double direct = 0, sse = 0;
    const Matrix all = ridge(phi, ref.targets, lambda, n, &metric);
    for (std::size_t row = 0; row < n; ++row) {
      const Matrix w = ridge(phi, ref.targets, lambda, row, &metric);
      for (std::size_t c = 0; c < k; ++c) {
        double fit = 0, fit_all = 0;
        for (std::size_t i = 0; i <= m; ++i) {
          fit += phi(row, i) * w(i, c);
          fit_all += phi(row, i) * all(i, c);
        }
        direct += (ref.targets(row, c) - fit) * (ref.targets(row, c) - fit);
        sse += (ref.targets(row, c) - fit_all) * (ref.targets(row, c) - fit_all);
      }
    }
    direct /= double(n);
    const RidgePath path = ridge_loo_path(design, ref.targets, {lambda}, false, false, &metric);
    INFO("lambda " << lambda);
    REQUIRE(path.loo[0] == Approx(direct).epsilon(1e-8));
    const double left = double(n) - path.dof[0];
    REQUIRE(path.gcv[0] == Approx(double(n) * sse / (left * left)).epsilon(1e-8));
    // The identity metric is the plain ridge.
    Matrix identity = xt::zeros<double>({m, m});
    for (std::size_t i = 0; i < m; ++i) identity(i, i) = 1;
    const RidgePath plain = ridge_loo_path(design, ref.targets, {lambda}, false);
    const RidgePath same = ridge_loo_path(design, ref.targets, {lambda}, false, false, &identity);
    REQUIRE(same.loo[0] == Approx(plain.loo[0]).epsilon(1e-12));
  }
  Matrix singular = xt::zeros<double>({m, m});
  REQUIRE_THROWS_AS(ridge_loo_path(design, ref.targets, {0.1}, false, false, &singular),
                    NumericalError);
}

TEST_CASE_METHOD(Materialised,
                 "scored rows: the LOO summed over them, each left out of the fit on every row",
                 "[ridge-loo]") {
  const std::size_t n = phi.shape(0);
  // Every third row scored; 1-of-K targets from the inputs for the error rate too.
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < n; r += 3) rows.push_back(r);
  Matrix t = xt::zeros<double>({n, std::size_t(3)});
  for (std::size_t r = 0; r < n; ++r)
    t(r, ref.x(r, 0) + 0.3 * ref.x(r, 1) > 0.5 ? 0 : ref.x(r, 1) > 0 ? 1 : 2) = 1.0;
  Matrix x_scored = Matrix::from_shape({rows.size(), ref.x.shape(1)});
  Matrix t_scored = Matrix::from_shape({rows.size(), t.shape(1)});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j = 0; j < ref.x.shape(1); ++j) x_scored(i, j) = ref.x(rows[i], j);
    for (std::size_t c = 0; c < t.shape(1); ++c) t_scored(i, c) = t(rows[i], c);
  }
  const DesignMatrix scored(x_scored, ref.centres, basis);
  for (const double lambda : {1e-3, 0.05, 1.0}) {
    double direct = 0, sse = 0;
    std::size_t wrong = 0;
    const Matrix all = ridge(phi, t, lambda, n);
    for (const std::size_t row : rows) {
      const Matrix w = ridge(phi, t, lambda, row);  // without the row, on all the others
      std::size_t best = 0, truth = 0;
      double best_value = -1e300;
      for (std::size_t c = 0; c < t.shape(1); ++c) {
        double fit = 0, fit_all = 0;
        for (std::size_t i = 0; i < phi.shape(1); ++i) {
          fit += phi(row, i) * w(i, c);
          fit_all += phi(row, i) * all(i, c);
        }
        direct += (t(row, c) - fit) * (t(row, c) - fit);
        sse += (t(row, c) - fit_all) * (t(row, c) - fit_all);
        if (fit > best_value) best_value = fit, best = c;
        if (t(row, c) == 1.0) truth = c;
      }
      wrong += best != truth;
    }
    const double m = double(rows.size());
    const RidgePath path =
        ridge_loo_path(design, t, {lambda}, false, true, nullptr, &scored, &t_scored);
    INFO("lambda " << lambda);
    CHECK(path.rows == n);
    CHECK(path.scored_rows == rows.size());
    CHECK(path.loo[0] == Approx(direct / m).epsilon(1e-9));
    CHECK(path.loo_error[0] == double(wrong) / m);
    // GCV from the scored rows' squared error per row, times all the rows.
    const double left = double(n) - path.dof[0];
    CHECK(path.gcv[0] == Approx(double(n) * (sse / m * double(n)) / (left * left)).epsilon(1e-9));
    // The path's dof is the fit on all the rows: as without scored rows.
    const RidgePath whole = ridge_loo_path(design, t, {lambda}, false, true);
    CHECK(path.dof[0] == whole.dof[0]);
  }
  // Scored rows whose columns or targets do not match the design are refused.
  const Matrix short_targets = xt::zeros<double>({rows.size() - 1, std::size_t(3)});
  CHECK_THROWS_AS(
      ridge_loo_path(design, t, {0.1}, false, true, nullptr, &scored, &short_targets),
      ShapeError);
}

TEST_CASE("a zero penalty on a singular Gram leaves the other penalties' LOO exact",
          "[ridge-loo]") {
  // The first centre twice: the centred Gram has a zero eigenvalue, so T + 0 I has no LDL^T
  // factorisation with positive pivots (the path then diagonalises the Gram instead) or one
  // with a pivot at rounding level; either way the penalty 0.05 gives a direct refit's LOO.
  const Reference ref;
  const UnitGaussian basis;
  Centres twice;
  const std::size_t m = ref.centres.means.shape(0), d = ref.centres.means.shape(1);
  twice.means = Matrix::from_shape({m + 1, d});
  for (std::size_t i = 0; i <= m; ++i)
    for (std::size_t j = 0; j < d; ++j) twice.means(i, j) = ref.centres.means(i == m ? 0 : i, j);
  const DesignMatrix design(ref.x, twice, basis);
  const Matrix phi = design.materialise();
  const double lambda = 0.05;
  const double direct = direct_loo(phi, ref.targets, lambda);
  const RidgePath path = ridge_loo_path(design, ref.targets, {0.0, lambda}, false);
  CHECK_FALSE(std::isnan(path.loo[0]));
  CHECK(path.loo[1] == Approx(direct).epsilon(1e-8));
  CHECK(path.dof[1] < double(m + 1));  // trace H below the columns: the duplicate counts once
}
