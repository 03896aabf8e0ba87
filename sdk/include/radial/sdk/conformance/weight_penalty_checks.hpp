#pragma once
// The conformance checks of a WeightPenalty plugin (radial/sdk/conformance.hpp).

#include "radial/sdk/conformance/fixtures.hpp"

namespace radial::conformance {
namespace detail {

// add_gradient and add_hessian add to what they are given (here ones) instead of overwriting.
inline void check_weight_penalty_adds(WeightPenalty& reg, const Matrix& w, Runner& runner) {
  const std::size_t rows = w.shape(0), cols = w.shape(1), p_count = rows * cols;
  runner.run("weight-penalty/adds", [&] {
    Matrix g = Matrix::from_shape({rows, cols});
    g.fill(0.0);
    reg.add_gradient(w, g);
    Matrix from_ones = Matrix::from_shape({rows, cols});
    from_ones.fill(1.0);
    reg.add_gradient(w, from_ones);
    Matrix h0 = Matrix::from_shape({p_count, p_count}), h1 = h0;
    h0.fill(0.0);
    h1.fill(1.0);
    reg.add_hessian(w, h0);
    reg.add_hessian(w, h1);
    for (std::size_t p = 0; p < g.size(); ++p) {
      if (!(std::fabs(from_ones.data()[p] - 1.0 - g.data()[p]) <=
            1e-12 * (1 + std::fabs(g.data()[p])))) {
        runner.fail("weight-penalty/adds", "add_gradient overwrote the gradient instead of adding");
        return;
      }
    }
    for (std::size_t p = 0; p < h0.size(); ++p) {
      if (!(std::fabs(h1.data()[p] - 1.0 - h0.data()[p]) <=
            1e-12 * (1 + std::fabs(h0.data()[p])))) {
        runner.fail("weight-penalty/adds", "add_hessian overwrote the Hessian instead of adding");
        return;
      }
    }
  });
}

// A gradient or Hessian of the wrong shape for the weights is refused with a Radial error.
inline void check_weight_penalty_shapes(WeightPenalty& reg, const Matrix& w, Runner& runner) {
  const std::size_t rows = w.shape(0), cols = w.shape(1), p_count = rows * cols;
  runner.run("weight-penalty/bad-shapes-refused", [&] {
    std::string what;
    Matrix small_gradient = Matrix::from_shape({rows - 1, cols});
    small_gradient.fill(0.0);
    Outcome outcome = outcome_of([&] { reg.add_gradient(w, small_gradient); }, &what);
    if (outcome != Outcome::RadialError) {
      runner.fail(
          "weight-penalty/bad-shapes-refused",
          "add_gradient with a 3 x 2 gradient for 4 x 2 weights " +
              std::string(outcome == Outcome::Returned ? "was accepted"
                                                       : "threw a non-Radial exception: " + what) +
              "; throw radial::ShapeError");
    }
    Matrix small_hessian = Matrix::from_shape({p_count - 1, p_count - 1});
    small_hessian.fill(0.0);
    outcome = outcome_of([&] { reg.add_hessian(w, small_hessian); }, &what);
    if (outcome != Outcome::RadialError) {
      runner.fail(
          "weight-penalty/bad-shapes-refused",
          "add_hessian with a 7 x 7 Hessian for 4 x 2 weights " +
              std::string(outcome == Outcome::Returned ? "was accepted"
                                                       : "threw a non-Radial exception: " + what) +
              "; throw radial::ShapeError");
    }
  });
}

inline void check_weight_penalty(const Registry& registry, const ComponentInfo& info,
                                 const Params& params, const Options& options, Runner& runner) {
  // W: (M+1) x K = 4 x 2, away from zero so that |w|-like penalties are differentiable there.
  const std::size_t rows = 4, cols = 2, p_count = rows * cols;
  Matrix w = Matrix::from_shape({rows, cols});
  {
    std::mt19937_64 rng(options.seed);
    std::uniform_real_distribution<double> magnitude(0.3, 1.5);
    std::bernoulli_distribution sign(0.5);
    for (double& value : w) value = (sign(rng) ? 1.0 : -1.0) * magnitude(rng);
  }

  // The network the weights belong to, for penalties that depend on it (prepare()): M = 3
  // centres in the plane under the kit's unit Gaussian basis.
  Centres centres;
  centres.means = Matrix{{0.0, 0.0}, {1.0, 0.5}, {-0.5, 1.5}};
  const UnitGaussian basis;
  const auto make = [&] {
    std::shared_ptr<WeightPenalty> made = registry.make_weight_penalty(info.id, params);
    made->prepare(centres, basis);
    return made;
  };

  std::shared_ptr<WeightPenalty> reg;
  bool ready = false;
  runner.run("weight-penalty/make", [&] {
    reg = make();
    ready = true;
  });
  if (!ready) return;

  const auto gradient_at = [&](const Matrix& at) {
    Matrix g = Matrix::from_shape({rows, cols});
    g.fill(0.0);
    reg->add_gradient(at, g);
    return g;
  };
  const auto report_mismatch = [&](const char* check, const char* what, std::size_t index,
                                   double analytic, double numeric) {
    std::ostringstream out;
    out.precision(10);
    out << what << " at flat index " << index << ": analytic " << analytic
        << ", central finite difference " << numeric;
    runner.fail(check, out.str());
  };
  const auto close = [&](double analytic, double numeric) {
    return std::fabs(analytic - numeric) <= options.derivative_tolerance * (1 + std::fabs(numeric));
  };

  runner.run("weight-penalty/determinism", [&] {
    const double a = reg->penalty(w);
    const double b = make()->penalty(w);
    if (!std::isfinite(a)) runner.fail("weight-penalty/determinism", "penalty is not finite");
    if (!(a == b))
      runner.fail("weight-penalty/determinism", "two instances give different penalties");
  });

  runner.run("weight-penalty/gradient", [&] {
    const Matrix g = gradient_at(w);
    for (std::size_t p = 0; p < p_count; ++p) {
      const double h = 1e-6 * std::max(1.0, std::fabs(w.data()[p]));
      Matrix plus = w, minus = w;
      plus.data()[p] += h;
      minus.data()[p] -= h;
      const double numeric = (reg->penalty(plus) - reg->penalty(minus)) / (2 * h);
      if (!close(g.data()[p], numeric)) {
        report_mismatch("weight-penalty/gradient", "d penalty / dW", p, g.data()[p], numeric);
        return;
      }
    }
  });

  runner.run("weight-penalty/hessian", [&] {
    Matrix hessian = Matrix::from_shape({p_count, p_count});
    hessian.fill(0.0);
    reg->add_hessian(w, hessian);
    for (std::size_t q = 0; q < p_count; ++q) {
      const double h = 1e-5 * std::max(1.0, std::fabs(w.data()[q]));
      Matrix plus = w, minus = w;
      plus.data()[q] += h;
      minus.data()[q] -= h;
      const Matrix gp = gradient_at(plus), gm = gradient_at(minus);
      for (std::size_t p = 0; p < p_count; ++p) {
        const double numeric = (gp.data()[p] - gm.data()[p]) / (2 * h);
        if (!close(hessian(p, q), numeric)) {
          report_mismatch("weight-penalty/hessian", "d2 penalty / dW_p dW_q (p*P+q)",
                          p * p_count + q, hessian(p, q), numeric);
          return;
        }
      }
    }
  });

  runner.run("weight-penalty/hessian-product", [&] {
    // add_hessian_product(W, V) adds H V, H from add_hessian: V random, the product from ones.
    Matrix hessian = Matrix::from_shape({p_count, p_count});
    hessian.fill(0.0);
    reg->add_hessian(w, hessian);
    Matrix v = Matrix::from_shape({rows, cols});
    std::mt19937_64 rng(options.seed + 1);
    std::normal_distribution<double> normal;
    for (double& value : v) value = normal(rng);
    Matrix product = Matrix::from_shape({rows, cols});
    product.fill(1.0);
    reg->add_hessian_product(w, v, product);
    for (std::size_t p = 0; p < p_count; ++p) {
      double expected = 1.0;
      for (std::size_t q = 0; q < p_count; ++q) expected += hessian(p, q) * v.data()[q];
      if (!(std::fabs(product.data()[p] - expected) <= 1e-10 * (1 + std::fabs(expected)))) {
        report_mismatch("weight-penalty/hessian-product", "1 + (H V)_p", p, product.data()[p],
                        expected);
        return;
      }
    }
  });

  check_weight_penalty_adds(*reg, w, runner);
  check_weight_penalty_shapes(*reg, w, runner);
}

}  // namespace detail
}  // namespace radial::conformance
