// Least squares (radial/numerics/least_squares.hpp) against NumPy
// (tests/reference/least_squares_reference.py) and closed forms.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "radial/core/errors.hpp"
#include "radial/numerics/least_squares.hpp"
#include "reference_csv.hpp"

using radial::Matrix;
using radial::testing::learning_reference;
using radial::testing::max_abs_difference;
using radial::testing::read_reference_matrix;

namespace {

Matrix reference(const std::string& name) { return read_reference_matrix(learning_reference(name)); }

Matrix gram(const Matrix& a) {  // A^T A
  Matrix s = xt::zeros<double>({a.shape(1), a.shape(1)});
  for (std::size_t i = 0; i < a.shape(1); ++i)
    for (std::size_t j = 0; j < a.shape(1); ++j)
      for (std::size_t n = 0; n < a.shape(0); ++n) s(i, j) += a(n, i) * a(n, j);
  return s;
}

Matrix cross(const Matrix& a, const Matrix& b) {  // A^T B
  Matrix s = xt::zeros<double>({a.shape(1), b.shape(1)});
  for (std::size_t i = 0; i < a.shape(1); ++i)
    for (std::size_t j = 0; j < b.shape(1); ++j)
      for (std::size_t n = 0; n < a.shape(0); ++n) s(i, j) += a(n, i) * b(n, j);
  return s;
}

}  // namespace

TEST_CASE("SVD least squares equals numpy.linalg.lstsq", "[least-squares]") {
  SECTION("full rank") {
    const Matrix a = reference("ls_full_a.csv");
    const auto solution = radial::solve_least_squares(a, reference("ls_full_b.csv"));
    CHECK(solution.rank == 6);
    CHECK(solution.size == 6);
    CHECK(max_abs_difference(solution.x, reference("ls_full_x.csv")) < 1e-12);
    const Matrix sv = reference("ls_full_singular_values.csv");
    REQUIRE(solution.singular_values.size() == 6);
    for (std::size_t i = 0; i < 6; ++i)
      CHECK(solution.singular_values(i) == Approx(sv(0, i)).epsilon(1e-12));
    CHECK(solution.rcond == std::numeric_limits<double>::epsilon() * 40);
  }
  SECTION("rank deficient: the minimum-norm solution, rank reported") {
    const auto solution = radial::solve_least_squares(reference("ls_deficient_a.csv"),
                                                      reference("ls_deficient_b.csv"));
    CHECK(solution.rank == 4);
    CHECK(solution.size == 5);
    CHECK(max_abs_difference(solution.x, reference("ls_deficient_x.csv")) < 1e-10);
  }
  SECTION("underdetermined: an exact fit of minimum norm (closed form)") {
    // x1 + x2 = 2 has minimum-norm solution (1, 1).
    const auto solution = radial::solve_least_squares(Matrix{{1.0, 1.0}}, Matrix{{2.0}});
    CHECK(solution.rank == 1);
    CHECK(solution.x(0, 0) == Approx(1.0));
    CHECK(solution.x(1, 0) == Approx(1.0));
  }
  SECTION("shape errors and non-finite input") {
    CHECK_THROWS_AS(radial::solve_least_squares(Matrix{{1.0}, {2.0}}, Matrix{{1.0}}),
                    radial::ShapeError);
    CHECK_THROWS_AS(radial::solve_least_squares(
                        Matrix{{1.0}, {std::numeric_limits<double>::quiet_NaN()}},
                        Matrix{{1.0}, {2.0}}),
                    radial::NumericalError);
  }
}

TEST_CASE("symmetric PSD solve by eigendecomposition", "[least-squares]") {
  SECTION("ridge normal equations equal numpy.linalg.solve") {
    const Matrix a = reference("ls_full_a.csv");
    Matrix s = gram(a);
    for (std::size_t i = 0; i < 6; ++i) s(i, i) += 0.3;
    const auto solution = radial::solve_symmetric_psd(s, cross(a, reference("ls_full_b.csv")));
    CHECK(solution.rank == 6);
    CHECK(max_abs_difference(solution.x, reference("psd_ridge_x.csv")) < 1e-12);
    // Eigenvalues descending.
    for (std::size_t i = 1; i < 6; ++i)
      CHECK(solution.singular_values(i - 1) >= solution.singular_values(i));
  }
  SECTION("singular normal equations: the pseudo-inverse solution, rank 4 of 5") {
    const Matrix d = reference("ls_deficient_a.csv");
    const auto solution =
        radial::solve_symmetric_psd(gram(d), cross(d, reference("ls_deficient_b.csv")));
    CHECK(solution.rank == 4);
    CHECK(solution.size == 5);
    CHECK(max_abs_difference(solution.x, reference("psd_deficient_x.csv")) < 1e-9);
    CHECK(max_abs_difference(solution.x, reference("ls_deficient_x.csv")) < 1e-9);
  }
  SECTION("closed form: diag(4, 0) pseudo-inverted") {
    const auto solution = radial::solve_symmetric_psd(Matrix{{4.0, 0.0}, {0.0, 0.0}},
                                                      Matrix{{2.0}, {5.0}});
    CHECK(solution.rank == 1);
    CHECK(solution.x(0, 0) == Approx(0.5));
    CHECK(solution.x(1, 0) == 0.0);
    CHECK(solution.singular_values(0) == Approx(4.0));
  }
  SECTION("the zero matrix has rank 0 and solution 0") {
    const auto solution = radial::solve_symmetric_psd(Matrix{{0.0}}, Matrix{{1.0}});
    CHECK(solution.rank == 0);
    CHECK(solution.x(0, 0) == 0.0);
  }
  SECTION("non-square input") {
    CHECK_THROWS_AS(radial::solve_symmetric_psd(Matrix{{1.0, 2.0}}, Matrix{{1.0}}),
                    radial::ShapeError);
  }
}

TEST_CASE("Cholesky solve", "[least-squares]") {
  // [[4, 2], [2, 3]] x = [[2, 0], [1, 8]] by hand: det 8, inverse [[3, -2], [-2, 4]] / 8.
  Matrix x;
  REQUIRE(radial::solve_cholesky(Matrix{{4.0, 2.0}, {2.0, 3.0}}, Matrix{{2.0, 0.0}, {1.0, 8.0}}, x));
  CHECK(x(0, 0) == Approx((3.0 * 2 - 2.0 * 1) / 8));
  CHECK(x(1, 0) == Approx((-2.0 * 2 + 4.0 * 1) / 8));
  CHECK(x(0, 1) == Approx(-16.0 / 8));
  CHECK(x(1, 1) == Approx(32.0 / 8));

  const Matrix a = reference("ls_full_a.csv");
  Matrix s = gram(a);
  for (std::size_t i = 0; i < 6; ++i) s(i, i) += 0.3;
  Matrix ridge;
  REQUIRE(radial::solve_cholesky(s, cross(a, reference("ls_full_b.csv")), ridge));
  CHECK(max_abs_difference(ridge, reference("psd_ridge_x.csv")) < 1e-12);

  // Indefinite and singular matrices are refused and x is left untouched.
  Matrix untouched = {{7.0}};
  CHECK_FALSE(radial::solve_cholesky(Matrix{{1.0, 2.0}, {2.0, 1.0}}, Matrix{{1.0}, {1.0}}, untouched));
  CHECK_FALSE(radial::solve_cholesky(Matrix{{0.0, 0.0}, {0.0, 1.0}}, Matrix{{1.0}, {1.0}}, untouched));
  CHECK(untouched(0, 0) == 7.0);
}
