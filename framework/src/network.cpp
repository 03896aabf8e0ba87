// The forward pass of a trained model (radial/network.hpp), in row blocks of the design matrix:
// outputs = link(Phi W) with Phi = [phi(z; c_1..c_M), 1] and z the standardised inputs, or the
// Bayes posterior p(C_k|x) ∝ P(C_k) sum_j pi_jk p(x|j) computed in the log domain.
#include "radial/network.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include <xtensor-blas/xblas.hpp>

#include "radial/design_matrix.hpp"
#include "radial/errors.hpp"
#include "radial/numerics/log_sum_exp.hpp"

namespace radial {

namespace {

constexpr std::size_t prediction_block_rows = 1024;

std::string shape_text(const Matrix& a) {
  return std::to_string(a.shape(0)) + " x " + std::to_string(a.shape(1));
}

// log of each entry; log 0 = -inf, which log-sum-exp treats as a zero term.
Matrix log_of(const Matrix& a) {
  Matrix out = Matrix::from_shape({a.shape(0), a.shape(1)});
  for (std::size_t i = 0; i < a.size(); ++i) out.data()[i] = std::log(a.data()[i]);
  return out;
}

std::size_t output_count(const Model& model) {
  switch (model.link) {
    case Link::Logistic: return 2;
    case Link::Bayes: return model.centres.mixing.shape(1);
    case Link::Identity:
    case Link::Softmax: return model.weights.shape(1);
  }
  return 0;
}

}  // namespace

Network::Network(const Model& model, std::shared_ptr<const Basis> basis)
    : model_(model), basis_(std::move(basis)) {
  if (!basis_) throw Error("Network: no basis given for model basis '" + model.basis_id + "'");
  const Centres& c = model.centres;
  const std::size_t m = c.count();
  if (m == 0 || c.dim() == 0)
    throw ModelFileError("Network: the model has no centres (means are " + shape_text(c.means) +
                         "); it was not trained");
  if (model.standardize &&
      (model.standardiser.mean.size() != c.dim() || model.standardiser.scale.size() != c.dim()))
    throw ModelFileError("Network: the model's standardiser has " +
                         std::to_string(model.standardiser.mean.size()) + " features but its " +
                         "centres have " + std::to_string(c.dim()));
  if (model.link == Link::Bayes) {
    if (!basis_->has_log_map())
      throw ModelFileError("Network: the Bayes output needs log p(x|j), but basis '" +
                           model.basis_id + "' has no log map; a Bayes model needs a basis "
                           "that is positive everywhere, such as 'gaussian' with density = true");
    if (!c.has_mixing() || c.mixing.shape(0) != m || c.class_priors.size() != c.mixing.shape(1))
      throw ModelFileError("Network: the Bayes output needs " + std::to_string(m) +
                           " x K mixing weights and K class priors; the model has mixing " +
                           shape_text(c.mixing) + " and " +
                           std::to_string(c.class_priors.size()) + " priors");
    return;
  }
  if (model.weights.shape(0) != m + 1 || model.weights.shape(1) == 0)
    throw ModelFileError("Network: the output weights are " + shape_text(model.weights) +
                         " but " + std::to_string(m) + " centres need " + std::to_string(m + 1) +
                         " rows (bias last) and at least one column");
  if (model.link == Link::Logistic && model.weights.shape(1) != 1)
    throw ModelFileError("Network: the logistic output has one weight column, the model has " +
                         std::to_string(model.weights.shape(1)));
}

// A non-finite output is never returned as a prediction: finite weights and inputs can still
// overflow double precision (a crafted model, inputs far outside the training range).
namespace {
void check_finite(const Model& model, const Matrix& outputs, const Matrix& raw_inputs) {
  const std::size_t k = outputs.shape(1);
  for (std::size_t i = 0; i < outputs.shape(0); ++i)
    for (std::size_t j = 0; j < k; ++j) {
      const double y = outputs(i, j);
      if (std::isfinite(y)) continue;
      double largest_input = 0, largest_weight = 0;
      for (std::size_t f = 0; f < raw_inputs.shape(1); ++f)
        largest_input = std::max(largest_input, std::fabs(raw_inputs(i, f)));
      for (const double w : model.weights) largest_weight = std::max(largest_weight, std::fabs(w));
      char text[200];
      std::snprintf(text, sizeof text,
                    "output %zu of input row %zu is %s: the model's weights (largest |w| = %.3g) "
                    "or this row's inputs (largest |x| = %.3g) overflow double precision",
                    j + 1, i + 1, std::isnan(y) ? "not a number" : "infinite", largest_weight,
                    largest_input);
      throw InputError(std::string("the network cannot predict: ") + text);
    }
}
}  // namespace

Matrix Network::predict(const Matrix& raw_inputs) const {
  const Model& model = model_;
  const Centres& c = model.centres;
  if (raw_inputs.shape(1) != c.dim())
    throw ShapeError("Network::predict: the model expects " + std::to_string(c.dim()) +
                     " features, found " + std::to_string(raw_inputs.shape(1)) +
                     " columns; give the inputs with the features the model was trained on");
  const std::size_t n = raw_inputs.shape(0), k = output_count(model);
  Matrix outputs = Matrix::from_shape({n, k});
  if (n == 0) return outputs;

  // The standardiser works on a copy; without one the raw inputs are used as they are.
  Matrix standardised;
  if (model.standardize) {
    standardised = raw_inputs;
    model.standardiser.apply(standardised);
  }
  const Matrix& inputs = model.standardize ? standardised : raw_inputs;

  const bool bayes = model.link == Link::Bayes;
  // cache_bytes 0: one pass, nothing is kept.
  const DesignMatrix phi(inputs, c, *basis_, bayes, 0, prediction_block_rows);

  if (bayes) {
    // Eq. p(C_k|x) ∝ P(C_k) sum_j pi_jk p(x|j): a_k = log P(C_k) + lse_j(log pi_jk + log p(x|j)),
    // then normalised over k by the Bayes link (a softmax of a).
    const std::size_t m = c.count();
    const Matrix log_pi = log_of(c.mixing);  // M x K
    Vector log_prior = Vector::from_shape({k});
    for (std::size_t j = 0; j < k; ++j) log_prior(j) = std::log(c.class_priors(j));
    Matrix terms, activations;
    phi.for_each_block([&](std::size_t first, const Matrix& log_phi) {
      const std::size_t rows = log_phi.shape(0);
      terms.resize({rows, m});
      activations.resize({rows, k});
      for (std::size_t cls = 0; cls < k; ++cls) {
        for (std::size_t r = 0; r < rows; ++r) {
          const double* lp = log_phi.data() + r * m;
          double* t = terms.data() + r * m;
          for (std::size_t j = 0; j < m; ++j) t[j] = lp[j] + log_pi(j, cls);
        }
        const Vector lse = log_sum_exp_rows(terms);
        for (std::size_t r = 0; r < rows; ++r) activations(r, cls) = log_prior(cls) + lse(r);
      }
      apply_link(Link::Bayes, activations);
      std::copy_n(activations.data(), activations.size(), outputs.data() + first * k);
    });
    check_finite(model, outputs, raw_inputs);
    return outputs;
  }

  const Matrix& w = model.weights;  // (M+1) x outputs
  const std::size_t columns = w.shape(1);
  Matrix activations = Matrix::from_shape({std::min(n, prediction_block_rows), columns});
  phi.for_each_block([&](std::size_t first, const Matrix& block) {
    const std::size_t rows = block.shape(0);
    if (activations.shape(0) != rows) activations.resize({rows, columns});
    xt::blas::gemm(block, w, activations);
    if (model.link == Link::Logistic) {
      // Two columns [P(C_0|x), P(C_1|x)] = [sigma(-a), sigma(a)]: no cancellation in 1 - y.
      for (std::size_t r = 0; r < rows; ++r) {
        outputs(first + r, 0) = sigmoid(-activations(r, 0));
      }
      apply_link(Link::Logistic, activations);
      for (std::size_t r = 0; r < rows; ++r) outputs(first + r, 1) = activations(r, 0);
      return;
    }
    apply_link(model.link, activations);
    std::copy_n(activations.data(), activations.size(), outputs.data() + first * columns);
  });
  check_finite(model, outputs, raw_inputs);
  return outputs;
}

Labels Network::classify(const Matrix& outputs) {
  const std::size_t n = outputs.shape(0), k = outputs.shape(1);
  if (n > 0 && k == 0) throw ShapeError("Network::classify: the outputs have no columns");
  Labels labels = Labels::from_shape({n});
  for (std::size_t r = 0; r < n; ++r) {
    const double* row = outputs.data() + r * k;
    // First maximum; NaN entries never win.
    std::size_t best = 0;
    double best_value = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < k; ++j)
      if (row[j] > best_value) {
        best_value = row[j];
        best = j;
      }
    labels(r) = std::int64_t(best);
  }
  return labels;
}

}  // namespace radial
