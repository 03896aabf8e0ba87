// Links, 1-of-K coding, row selection, centre checks and the BLAS thread setting.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include <radial/core/centres.hpp>
#include <radial/core/dataset.hpp>
#include <radial/core/errors.hpp>
#include <radial/network/link.hpp>
#include <radial/exec/blas_threads.hpp>

using namespace radial;

TEST_CASE("link names round-trip", "[link]") {
  for (Link link : {Link::Identity, Link::Logistic, Link::Softmax, Link::Bayes})
    REQUIRE(link_from_string(to_string(link)) == link);
  REQUIRE(std::string(to_string(Link::Softmax)) == "softmax");
  REQUIRE(std::string(to_string(Link::Bayes)) == "bayes");
  REQUIRE_FALSE(link_from_string("sigmoid").has_value());
  REQUIRE_FALSE(link_from_string("Softmax").has_value());
}

TEST_CASE("links map activations to outputs stably", "[link]") {
  Matrix a = {{0.0}, {800.0}, {-800.0}, {2.0}, {-3.0}};
  const Matrix original = a;
  apply_link(Link::Identity, a);
  REQUIRE((a == original));
  apply_link(Link::Logistic, a);
  REQUIRE(a(0, 0) == 0.5);
  REQUIRE(a(1, 0) == 1.0);
  REQUIRE(a(2, 0) == 0.0);
  REQUIRE(a(3, 0) == Approx(1.0 / (1.0 + std::exp(-2.0))).epsilon(1e-15));
  REQUIRE(a(4, 0) == Approx(1.0 / (1.0 + std::exp(3.0))).epsilon(1e-15));

  Matrix s = {{1000.0, 1000.0 + std::log(2.0), 1000.0 + std::log(5.0)}, {0.0, 0.0, 0.0}};
  apply_link(Link::Softmax, s);
  REQUIRE(s(0, 0) == Approx(0.125).epsilon(1e-13));
  REQUIRE(s(0, 1) == Approx(0.25).epsilon(1e-13));
  REQUIRE(s(0, 2) == Approx(0.625).epsilon(1e-13));
  REQUIRE(s(1, 1) == Approx(1.0 / 3.0).epsilon(1e-15));

  // bayes is a prediction rule on log phi, not a function of the activations alone
  // (tests/prediction-rules checks it).
  Matrix b = {{0.0, 0.0}};
  REQUIRE_THROWS_AS(apply_link(Link::Bayes, b), Error);
}

TEST_CASE("one_of_k codes classes and rejects bad labels", "[dataset]") {
  const Labels classes = {2, 0, 1, 2};
  const Matrix t = one_of_k(classes, 3);
  const Matrix want = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  REQUIRE((t == want));
  REQUIRE_THROWS_WITH(one_of_k(Labels{0, 3}, 3), Catch::Contains("row 1"));
  REQUIRE_THROWS_AS(one_of_k(Labels{-1}, 2), ShapeError);
}

TEST_CASE("select_rows keeps inputs, targets and metadata of the chosen rows", "[dataset]") {
  Dataset d;
  d.inputs = {{1, 2}, {3, 4}, {5, 6}};
  d.classes = {0, 1, 1};
  d.num_classes = 2;
  d.class_values = {-1.0, 1.0};
  d.feature_names = {"a", "b"};
  d.target_name = "class";
  d.source = "toy.csv";
  const Dataset s = select_rows(d, {2, 0, 2});
  const Matrix want = {{5, 6}, {1, 2}, {5, 6}};
  REQUIRE((s.inputs == want));
  REQUIRE((s.classes == Labels{1, 0, 1}));
  REQUIRE(s.num_classes == 2);
  REQUIRE(s.feature_names == d.feature_names);
  REQUIRE(s.class_values == d.class_values);
  REQUIRE(s.source == "toy.csv");
  REQUIRE_THROWS_WITH(select_rows(d, {0, 3}), Catch::Contains("row 3") && Catch::Contains("toy.csv"));

  Dataset r;
  r.task = Task::Regression;
  r.inputs = {{1.0}, {2.0}};
  r.values = {10.0, 20.0};
  const Dataset rs = select_rows(r, {1});
  REQUIRE(rs.task == Task::Regression);
  REQUIRE((rs.values == Vector{20.0}));
  REQUIRE(rs.classes.size() == 0);
}

TEST_CASE("centre checks name the first inconsistency", "[centres]") {
  REQUIRE(std::string(to_string(Shape::Diagonal)) == "diagonal");
  Centres c;
  c.means = {{0.0, 0.0}, {1.0, 1.0}};
  REQUIRE_NOTHROW(c.check());
  c.shape = Shape::Spherical;
  c.variances = {1.0};
  REQUIRE_THROWS_WITH(c.check(), Catch::Contains("2 variances"));
  c.variances = {1.0, -2.0};
  REQUIRE_THROWS_WITH(c.check(), Catch::Contains("centre 1"));
  c.variances = {1.0, 2.0};
  c.mixing = {{0.5, 0.2}, {0.5, 0.7}};
  REQUIRE_THROWS_WITH(c.check(), Catch::Contains("class 1") && Catch::Contains("0.9"));
  c.mixing = {{0.5, 0.3}, {0.5, 0.7}};
  REQUIRE_NOTHROW(c.check());
  c.class_priors = {0.5, 0.6};
  REQUIRE_THROWS_WITH(c.check(), Catch::Contains("priors sum"));
  c.class_priors = {0.4, 0.6};
  c.owner = {0, 2};
  REQUIRE_THROWS_WITH(c.check(), Catch::Contains("owner class 2"));
  c.owner = {0, -1};
  REQUIRE_NOTHROW(c.check());
  c.shape = Shape::Full;
  c.covariances = Tensor3::from_shape({2, 2, 2});
  c.covariances.fill(0.0);
  c.covariances(0, 0, 0) = c.covariances(0, 1, 1) = c.covariances(1, 0, 0) = c.covariances(1, 1, 1) = 1.0;
  c.covariances(1, 0, 1) = 0.5;
  REQUIRE_THROWS_WITH(c.check(), Catch::Contains("not symmetric"));
  c.covariances(1, 1, 0) = 0.5;
  REQUIRE_NOTHROW(c.check());
}

TEST_CASE("the BLAS thread setting is read back", "[blas]") {
  const int before = blas_threads();
  set_blas_threads(1);
  REQUIRE(blas_threads() == 1);
  set_blas_threads(0);  // below 1 means 1
  REQUIRE(blas_threads() == 1);
  set_blas_threads(before);
}
