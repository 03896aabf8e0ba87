// GaussianLogDensity against scipy.stats.multivariate_normal (tests/reference/
// reference_gaussian.json, written by reference_gaussian.py there) and against the closed form
// with brute-force determinants and inverses.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include <radial/core/errors.hpp>
#include <radial/numerics/gaussian.hpp>
#include <radial/testing/paths.hpp>

#include "brute_force.hpp"

using namespace radial;

namespace {

nlohmann::json reference() {
  std::ifstream in(testing::source_dir() / "tests" / "reference" / "reference_gaussian.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

Matrix matrix_of(const nlohmann::json& rows) {
  Matrix m = Matrix::from_shape({rows.size(), rows.at(0).size()});
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows.at(i).size(); ++j) m(i, j) = rows.at(i).at(j).get<double>();
  return m;
}

void require_matches(const GaussianLogDensity& g, const Matrix& points, const nlohmann::json& want) {
  Matrix out;
  g.compute(points, out);
  REQUIRE(out.shape(0) == points.shape(0));
  REQUIRE(out.shape(1) == 3);
  for (std::size_t i = 0; i < out.shape(0); ++i)
    for (std::size_t j = 0; j < out.shape(1); ++j) {
      INFO("point " << i << " centre " << j);
      // scipy works through an eigendecomposition; agreement to 1e-12 relative.
      REQUIRE(out(i, j) == Approx(want.at(i).at(j).get<double>()).epsilon(1e-12).margin(1e-12));
    }
}

}  // namespace

TEST_CASE("Gaussian log-densities match scipy for every shape", "[gaussian]") {
  const nlohmann::json ref = reference();
  const Matrix points = matrix_of(ref["points"]);
  Centres c;
  c.means = matrix_of(ref["means"]);

  SECTION("spherical") {
    c.shape = Shape::Spherical;
    c.variances = Vector::from_shape({3});
    for (std::size_t j = 0; j < 3; ++j) c.variances(j) = ref["spherical_variances"][j].get<double>();
    require_matches(GaussianLogDensity(c), points, ref["logpdf_spherical"]);
  }
  SECTION("diagonal") {
    c.shape = Shape::Diagonal;
    c.diagonal = matrix_of(ref["diagonal_variances"]);
    require_matches(GaussianLogDensity(c), points, ref["logpdf_diagonal"]);
  }
  SECTION("full") {
    c.shape = Shape::Full;
    c.covariances = Tensor3::from_shape({3, 3, 3});
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t b = 0; b < 3; ++b)
          c.covariances(j, a, b) = ref["full_covariances"][j][a][b].get<double>();
    require_matches(GaussianLogDensity(c), points, ref["logpdf_full"]);
  }
}

TEST_CASE("Gaussian log-densities match the closed form on random problems", "[gaussian]") {
  std::mt19937_64 rng(99);
  for (Shape shape : {Shape::Spherical, Shape::Diagonal, Shape::Full}) {
    const std::size_t d = 5, m = 9;
    const Centres c = test::random_centres(m, d, shape, rng);
    const Matrix x = test::random_matrix(21, d, rng);
    const Matrix r2 = test::brute_squared_distances(x, c, true);
    Matrix out;
    GaussianLogDensity(c).compute(x, out);
    for (std::size_t i = 0; i < 21; ++i)
      for (std::size_t j = 0; j < m; ++j) {
        // log N = -0.5 (r^2 + d log 2 pi + log |S|)
        const double want = -0.5 * (r2(i, j) + d * std::log(2 * M_PI) + test::brute_log_det(c, j));
        INFO("shape " << to_string(shape) << " row " << i << " centre " << j);
        REQUIRE(out(i, j) == Approx(want).epsilon(1e-10).margin(1e-10));
      }
  }
}

TEST_CASE("Gaussian log-densities need shaped centres", "[gaussian]") {
  Centres c;
  c.means = Matrix({{0.0, 1.0}});
  REQUIRE_THROWS_AS(GaussianLogDensity(c), ShapeError);
}
