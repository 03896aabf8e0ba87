// Linear outputs by Newton steps on the normal equations (normal_equations.hpp).
#include "normal_equations.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <radial/network/design_matrix.hpp>
#include <radial/core/errors.hpp>
#include <radial/network/gram_products.hpp>
#include <radial/network/weight_penalty.hpp>

namespace normal_equations_plugin {

namespace {

// Solves A x = b in place of b for a symmetric positive definite A (n x n, row-major; its lower
// triangle is overwritten by the Cholesky factor). False when A is not positive definite.
bool cholesky_solve(std::vector<double>& a, std::vector<double>& b, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    double diag = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) diag -= a[j * n + k] * a[j * n + k];
    if (!(diag > 0)) return false;
    a[j * n + j] = std::sqrt(diag);
    for (std::size_t i = j + 1; i < n; ++i) {
      double v = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) v -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = v / a[j * n + j];
    }
  }
  for (std::size_t i = 0; i < n; ++i) {  // L y = b
    for (std::size_t k = 0; k < i; ++k) b[i] -= a[i * n + k] * b[k];
    b[i] /= a[i * n + i];
  }
  for (std::size_t i = n; i-- > 0;) {  // L^T x = y
    for (std::size_t k = i + 1; k < n; ++k) b[i] -= a[k * n + i] * b[k];
    b[i] /= a[i * n + i];
  }
  return true;
}

}  // namespace

radial::OptionTable<NormalEquationsOptions> normal_equations_table() {
  radial::OptionTable<NormalEquationsOptions> t;
  t.bind("iterations", &NormalEquationsOptions::iterations,
         "cap on Newton steps (one suffices without a penalty or with a quadratic one)")
      .at_least(1);
  t.bind("tolerance", &NormalEquationsOptions::tolerance,
         "stop when no weight moves by more than this")
      .above(0.0);
  return t;
}

radial::OutputWeights NormalEquations::fit(const radial::TrainingProblem& problem,
                                           const radial::WeightPenalty* penalty,
                                           radial::FitContext& ctx) {
  if (problem.design.rows() != problem.data.rows())
    throw radial::ShapeError("normal-equations: a design of " +
                             std::to_string(problem.design.rows()) + " rows for targets of " +
                             std::to_string(problem.data.rows()) + " rows");
  const radial::Matrix t = radial::targets_for(radial::Link::Identity, problem.data);
  const std::size_t c = problem.design.cols(), k = t.shape(1), p = c * k;
  // G = Phi^T Phi (c x c) and B = Phi^T T (c x k), block by block, then over the ranks: the
  // framework's pass (radial/network/gram_products.hpp), the same bits on any thread count.
  const radial::GramProducts sums =
      radial::gram_products(problem.design, t, [](std::size_t, const radial::Matrix&) {});
  const radial::Matrix& gram = sums.gram;
  const radial::Matrix& cross = sums.cross;

  radial::Matrix w = xt::zeros<double>({c, k});
  std::size_t step = 0;
  for (; step < options_.iterations; ++step) {
    // g = G W - B + penalty gradient; H = G per output + penalty Hessian (flattening i k + o).
    radial::Matrix g = xt::zeros<double>({c, k});
    for (std::size_t i = 0; i < c; ++i)
      for (std::size_t o = 0; o < k; ++o) {
        double v = -cross(i, o);
        for (std::size_t j = 0; j < c; ++j) v += gram(i, j) * w(j, o);
        g(i, o) = v;
      }
    radial::Matrix h = xt::zeros<double>({p, p});
    for (std::size_t i = 0; i < c; ++i)
      for (std::size_t j = 0; j < c; ++j)
        for (std::size_t o = 0; o < k; ++o) h(i * k + o, j * k + o) = gram(i, j);
    if (penalty) {
      penalty->add_gradient(w, g);
      penalty->add_hessian(w, h);
    }
    std::vector<double> a(h.begin(), h.end()), delta(g.begin(), g.end());
    if (!cholesky_solve(a, delta, p))
      throw radial::NumericalError(
          "normal-equations: Phi^T Phi (with the penalty's Hessian) is not positive definite: "
          "the design has rank below its " + std::to_string(c) +
          " columns; add a [weight-penalty] or use fewer centres");
    double largest = 0;
    for (std::size_t q = 0; q < p; ++q) {
      w.data()[q] -= delta[q];
      largest = std::max(largest, std::fabs(delta[q]));
    }
    if (largest <= options_.tolerance) break;
  }
  ctx.report.iterations = std::min(step + 1, options_.iterations);
  if (step == options_.iterations)
    ctx.report.stop(radial::Termination::IterationCap,
                    "the weights still moved after " + std::to_string(step) + " Newton steps");
  else
    ctx.report.stop(radial::Termination::Converged, "Newton steps below the tolerance");
  return {w, radial::Link::Identity};
}

}  // namespace normal_equations_plugin
