// The whole network's error and gradient (radial/refine/network_objective.hpp) against central
// finite differences for every basis, shape, width mode and output link; against NETLAB's
// rbferr and rbfgrad on its two parity networks; L-BFGS on it never above its start; and the
// same bits for any thread count.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <random>
#include <string>

#include "radial/testing/glm_cases.hpp"
#include "radial/core/errors.hpp"
#include "radial/core/params.hpp"
#include "radial/optim/lbfgs.hpp"
#include "radial/optim/minimisers.hpp"
#include "radial/refine/refine_network.hpp"
#include "radial/refine/network_objective.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/paths.hpp"
#include "radial/testing/registry.hpp"

using radial::Centres;
using radial::Link;
using radial::Matrix;
using radial::Shape;
using radial::Vector;
using radial::refine::NetworkObjective;
using radial::refine::NetworkOptions;
using radial::refine::WidthMode;

namespace {

const radial::Registry& plugins() { return radial::testing::shipped_registry(); }

std::shared_ptr<radial::Basis> prepared_basis(const std::string& id, const radial::Params& given,
                                              Centres& centres) {
  const auto& info = plugins().require(radial::Slot::Basis, id);
  std::map<std::string, radial::ParamValue> values;
  for (const auto& [key, value] : given.values()) values[key] = value;
  auto basis = plugins().make_basis(id, radial::validate_params(info.params, values, "test"));
  radial::FitContext ctx(1, 1);
  basis->prepare(centres, ctx);
  return basis;
}

radial::Params shapes_kept(bool density = false) {
  radial::Params p;
  p.set("width_rule", std::string("shapes"));
  p.set("width_scale", 1.0);
  if (density) p.set("density", true);
  return p;
}

struct Problem {
  Matrix x, targets;
  Centres centres;
  Matrix weights;
};

Problem random_problem(Shape shape, const Link& link, std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(0.5, 2.0);
  const std::size_t n = 37, d = 3, m = 4;
  const std::size_t k = link == Link::Logistic ? 1 : (link == Link::Softmax ? 3 : 2);
  Problem p;
  p.x = Matrix::from_shape({n, d});
  for (double& v : p.x) v = 1.5 * normal(rng) + 0.3;
  p.targets = xt::zeros<double>({n, k});
  for (std::size_t i = 0; i < n; ++i) {
    if (link == Link::Identity) {
      for (std::size_t c = 0; c < k; ++c) p.targets(i, c) = normal(rng);
    } else if (link == Link::Logistic) {
      p.targets(i, 0) = normal(rng) > 0 ? 1.0 : 0.0;
    } else {
      p.targets(i, std::size_t(rng() % k)) = 1.0;
    }
  }
  p.centres.means = Matrix::from_shape({m, d});
  for (double& v : p.centres.means) v = normal(rng);
  p.centres.shape = shape;
  if (shape == Shape::Spherical) {
    p.centres.variances = Vector::from_shape({m});
    for (double& v : p.centres.variances) v = 2.0 * uniform(rng);
  } else if (shape == Shape::Diagonal) {
    p.centres.diagonal = Matrix::from_shape({m, d});
    for (double& v : p.centres.diagonal) v = 2.0 * uniform(rng);
  } else if (shape == Shape::Full) {
    p.centres.covariances = xt::zeros<double>({m, d, d});
    for (std::size_t j = 0; j < m; ++j) {
      Matrix a = Matrix::from_shape({d, d});
      for (double& v : a) v = 0.6 * normal(rng);
      for (std::size_t r = 0; r < d; ++r)
        for (std::size_t c = 0; c < d; ++c) {
          double s = r == c ? 1.0 : 0.0;
          for (std::size_t q = 0; q < d; ++q) s += a(r, q) * a(c, q);
          p.centres.covariances(j, r, c) = s;
        }
    }
  }
  p.weights = Matrix::from_shape({m + 1, k});
  for (double& v : p.weights) v = normal(rng);
  return p;
}

// Largest |analytic - central difference| over the parameters, relative to max(1, |g|_inf).
double gradient_error(NetworkObjective& f, Vector theta) {
  Vector g;
  f.gradient(theta, g);
  double scale = 1, worst = 0;
  for (double v : g) scale = std::max(scale, std::fabs(v));
  for (std::size_t i = 0; i < theta.size(); ++i) {
    const double h = 1e-5 * std::max(1.0, std::fabs(theta(i)));
    Vector up = theta, down = theta;
    up(i) += h;
    down(i) -= h;
    const double fd = (f.value(up) - f.value(down)) / (2 * h);
    worst = std::max(worst, std::fabs(fd - g(i)));
  }
  return worst / scale;
}

struct Case {
  std::string basis;
  Shape shape;
  WidthMode widths;
  bool density = false;
};

std::shared_ptr<radial::WeightPenalty> weight_decay(double alpha) {
  const auto& info = plugins().require(radial::Slot::WeightPenalty, "weight-decay");
  return plugins().make_weight_penalty(
      "weight-decay", radial::validate_params(info.params, {{"alpha", alpha}}, "test"));
}

}  // namespace

TEST_CASE("Whole-network gradient = central differences: every basis, shape, width mode, link",
          "[refine]") {
  const std::vector<Case> cases = {
      {"gaussian", Shape::Spherical, WidthMode::None},
      {"gaussian", Shape::Spherical, WidthMode::Global},
      {"gaussian", Shape::Spherical, WidthMode::PerCentre},
      {"gaussian", Shape::Spherical, WidthMode::Diagonal},
      {"gaussian", Shape::Diagonal, WidthMode::PerCentre},
      {"gaussian", Shape::Diagonal, WidthMode::Diagonal},
      {"gaussian", Shape::Full, WidthMode::None},
      {"gaussian", Shape::Full, WidthMode::Global},
      {"gaussian", Shape::Full, WidthMode::PerCentre},
      {"gaussian", Shape::Diagonal, WidthMode::None, true},
      {"thin-plate", Shape::None, WidthMode::None},
      {"r4logr", Shape::None, WidthMode::None},
      {"cubic", Shape::None, WidthMode::None},
      {"multiquadric", Shape::None, WidthMode::None},
      {"inverse-multiquadric", Shape::None, WidthMode::None},
  };
  std::mt19937_64 rng(7);
  const auto penalty = weight_decay(0.05);
  for (const Case& c : cases)
    for (const Link& link : {Link::Identity, Link::Logistic, Link::Softmax})
      for (const bool penalised : {false, true}) {
        Problem p = random_problem(c.shape, link, rng);
        const bool shaped = c.basis == "gaussian";
        auto basis = prepared_basis(c.basis, shaped ? shapes_kept(c.density) : radial::Params(),
                                    p.centres);
        NetworkOptions options;
        options.widths = c.widths;
        options.block_rows = 8;  // several blocks, the last one short
        options.threads = 2;
        NetworkObjective f(p.x, p.targets, link, *basis, p.centres, p.weights,
                           penalised ? penalty.get() : nullptr, options);
        INFO(c.basis << " shape " << int(c.shape) << " widths " << to_string(c.widths)
                     << (c.density ? " density" : "") << " link " << to_string(link)
                     << (penalised ? " penalised" : ""));
        // Away from the start, so that no parameter sits at a special value.
        Vector theta = f.start();
        std::normal_distribution<double> normal;
        for (double& v : theta) v += 0.05 * normal(rng);
        CHECK(gradient_error(f, theta) < 1e-6);
      }
}

TEST_CASE("Whole-network training refuses widths a basis or a shape cannot take", "[refine]") {
  std::mt19937_64 rng(3);
  NetworkOptions options;
  {
    Problem p = random_problem(Shape::None, Link::Identity, rng);
    auto basis = prepared_basis("thin-plate", {}, p.centres);
    options.widths = WidthMode::PerCentre;
    CHECK_THROWS_AS(NetworkObjective(p.x, p.targets, Link::Identity, *basis, p.centres,
                                     p.weights, nullptr, options),
                    radial::InputError);
  }
  {
    Problem p = random_problem(Shape::Spherical, Link::Identity, rng);
    auto basis = prepared_basis("gaussian", shapes_kept(true), p.centres);
    options.widths = WidthMode::Global;  // a density's constant moves with its width
    CHECK_THROWS_AS(NetworkObjective(p.x, p.targets, Link::Identity, *basis, p.centres,
                                     p.weights, nullptr, options),
                    radial::InputError);
  }
  {
    Problem p = random_problem(Shape::Full, Link::Identity, rng);
    auto basis = prepared_basis("gaussian", shapes_kept(), p.centres);
    options.widths = WidthMode::Diagonal;
    CHECK_THROWS_AS(NetworkObjective(p.x, p.targets, Link::Identity, *basis, p.centres,
                                     p.weights, nullptr, options),
                    radial::InputError);
  }
}

namespace {

struct NetlabNetwork {
  radial::Dataset data;
  Matrix targets;
  Centres centres;
  Matrix weights;
  std::shared_ptr<radial::Basis> basis;
  std::vector<double> gradient;  // rbfgrad at the start, NETLAB's rbfpak order
  double start_error = 0, scg_error = 0;
};

NetlabNetwork netlab_network(bool gaussian) {
  const std::string folder = gaussian ? "gauss_s1_nh10_seed1" : "tps_nh10_seed1";
  const auto dir = radial::testing::test_data("netlab") / folder;
  const auto grad_dir = radial::testing::test_data("netlab") / "rbfgrad" / folder;
  NetlabNetwork n;
  n.data = glm_test::read_classes(glm_test::example_data("synth3_train.csv"), false);
  n.targets = glm_test::label_column(n.data);
  n.centres.means = glm_test::read_csv(dir / "centres.csv", false);
  const std::size_t m = n.centres.count();
  n.weights = glm_test::read_csv(dir / "weights_pinv.csv", false);
  if (gaussian) {
    const Matrix widths = glm_test::read_csv(dir / "widths.csv", false);
    n.centres.shape = Shape::Spherical;
    n.centres.variances = Vector::from_shape({m});
    for (std::size_t j = 0; j < m; ++j) n.centres.variances(j) = widths(j, 0);
    n.basis = prepared_basis("gaussian", shapes_kept(), n.centres);
  } else {
    // NETLAB's thin plate is r^2 log r^2, Radial's r^2 log r: the same network with the basis
    // weights doubled.
    for (std::size_t j = 0; j < m; ++j) n.weights(j, 0) *= 2;
    n.basis = prepared_basis("thin-plate", {}, n.centres);
  }
  const Matrix g = glm_test::read_csv(grad_dir / "gradient.csv", false);
  n.gradient.assign(g.begin(), g.end());
  std::ifstream in(grad_dir / "results.txt");
  std::string key;
  double value;
  while (in >> key) {
    if (key == "start_error" && in >> value) n.start_error = value;
    if (key == "scg" && in >> key && in >> value) n.scg_error = value;
  }
  return n;
}

}  // namespace

TEST_CASE("NETLAB rbferr and rbfgrad on the parity networks, to 1e-10", "[refine][netlab]") {
  for (const bool gaussian : {true, false}) {
    NetlabNetwork n = netlab_network(gaussian);
    INFO((gaussian ? "gaussian" : "thin-plate"));
    REQUIRE(n.start_error > 12);  // read from results.txt
    NetworkOptions options;
    options.widths = gaussian ? WidthMode::PerCentre : WidthMode::None;
    NetworkObjective f(n.data.inputs, n.targets, Link::Identity, *n.basis, n.centres, n.weights,
                       nullptr, options);
    Vector g;
    const double e = f.gradient(f.start(), g);
    CHECK(std::fabs(e - n.start_error) < 1e-10 * n.start_error);
    const std::size_t m = n.centres.count(), d = n.centres.dim();
    REQUIRE(n.gradient.size() == m * d + (gaussian ? m : 0) + m + 1);
    std::vector<double> ours;  // in rbfpak order
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t j = 0; j < m; ++j) ours.push_back(g(j * d + a));
    if (gaussian)  // d/dw_j of the variance = (d/dlog w_j) / w_j
      for (std::size_t j = 0; j < m; ++j)
        ours.push_back(g(m * d + j) / n.centres.variances(j));
    const std::size_t w0 = f.centre_parameters() + f.width_parameters();
    for (std::size_t j = 0; j < m; ++j) ours.push_back(g(w0 + j) * (gaussian ? 1.0 : 2.0));
    ours.push_back(g(w0 + m));
    for (std::size_t i = 0; i < ours.size(); ++i) {
      INFO("parameter " << i);
      CHECK(std::fabs(ours[i] - n.gradient[i]) < 1e-10 * std::max(1.0, std::fabs(n.gradient[i])));
    }
  }
}

TEST_CASE("L-BFGS, BFGS and SCG over the whole network never rise and pass NETLAB's SCG figure",
          "[refine][netlab]") {
  const std::vector<std::pair<const char*, radial::refine::Minimiser>> minimisers = {
      {"lbfgs", radial::refine::minimise_lbfgs},
      {"bfgs", radial::refine::minimise_bfgs},
      {"scg", radial::refine::minimise_scg}};
  for (const auto& [name, minimise] : minimisers)
  for (const bool gaussian : {true, false}) {
    NetlabNetwork n = netlab_network(gaussian);
    INFO(name << (gaussian ? " gaussian" : " thin-plate"));
    NetworkOptions options;
    options.widths = gaussian ? WidthMode::PerCentre : WidthMode::None;
    NetworkObjective f(n.data.inputs, n.targets, Link::Identity, *n.basis, n.centres, n.weights,
                       nullptr, options);
    radial::refine::LbfgsOptions lo;
    lo.iterations = 2000;
    lo.tolerance = 1e-10;
    const auto r =
        minimise([&](const Vector& x, Vector& g) { return f.gradient(x, g); }, f.start(), lo);
    REQUIRE(r.curve.size() == r.iterations + 1);
    CHECK(r.curve.front() == Approx(n.start_error).epsilon(1e-12));
    for (std::size_t i = 1; i < r.curve.size(); ++i) CHECK(r.curve[i] <= r.curve[i - 1]);
    // NETLAB's SCG over the same parameters ends at 9.118 (Gaussian) and 10.19 (thin plate)
    // after 2000 cycles (rbfgrad/README.md). The quasi-Newton methods pass it; SCG, the same
    // algorithm on log widths where NETLAB moves the variances, ends within 1% of it.
    CHECK(r.value <= (std::string(name) == "scg" ? 1.01 : 1.0) * n.scg_error);
    CHECK(r.value == Approx(f.value(r.x)).epsilon(1e-14));
  }
}

TEST_CASE("Whole-network error and gradient are the same bits on 1, 2 and 3 threads",
          "[refine]") {
  std::mt19937_64 rng(11);
  Problem p = random_problem(Shape::Diagonal, Link::Softmax, rng);
  auto basis = prepared_basis("gaussian", shapes_kept(), p.centres);
  std::vector<Vector> grads;
  std::vector<double> values;
  for (const int threads : {1, 2, 3}) {
    NetworkOptions options;
    options.widths = WidthMode::Diagonal;
    options.block_rows = 5;
    options.threads = threads;
    NetworkObjective f(p.x, p.targets, Link::Softmax, *basis, p.centres, p.weights, nullptr,
                       options);
    Vector g;
    values.push_back(f.gradient(f.start(), g));
    grads.push_back(g);
  }
  for (std::size_t i = 1; i < grads.size(); ++i) {
    CHECK(values[i] == values[0]);
    CHECK(bool(grads[i] == grads[0]));
  }
}
