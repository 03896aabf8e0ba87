// The forward pass of a trained model (radial/model/network.hpp), in row blocks of the design matrix:
// z the standardised inputs, Phi = [phi(z; c_1..c_M), 1] (or log phi for a log-domain rule), and
// the model's prediction rule applied to each block with the stored weights.
#include "radial/model/network.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "radial/network/design_matrix.hpp"
#include "radial/core/errors.hpp"

namespace radial {

namespace {

constexpr std::size_t prediction_block_rows = 1024;

std::string shape_text(const Matrix& a) {
  return std::to_string(a.shape(0)) + " x " + std::to_string(a.shape(1));
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
  rule_ = find_prediction_rule(model.link.name());
  if (!rule_)
    throw ModelFileError("Network: the model's link '" + model.link.name() + "' is a prediction "
                         "rule that no loaded plugin registers; install the output plugin '" +
                         model.output_id + "' that trained the model (RADIAL_PLUGIN_PATH)");
  if (rule_->log_domain() && !basis_->has_log_map())
    throw ModelFileError("Network: the " + model.link.name() + " output reads log phi(x), but "
                         "basis '" + model.basis_id + "' has no log map; it needs a basis that is "
                         "positive everywhere and provides log_map() (a density, for the mixture posterior)");
  // M + 1 rows, or M + q with a polynomial term (its q - 1 monomials, then the bias).
  const PolynomialTerm* term = rule_->log_domain() ? nullptr : basis_->polynomial();
  const std::size_t rows = m + (term ? term->columns(c.dim()) : 1);
  if (model.weights.shape(0) != rows || model.weights.shape(1) == 0)
    throw ModelFileError("Network: the output weights are " + shape_text(model.weights) +
                         " but " + std::to_string(m) + " centres need " + std::to_string(rows) +
                         " rows (" + (term ? "the polynomial term's coefficients, then " : "") +
                         "bias last) and at least one column");
  // The rule's own check of the weights against the classes is the model store's, at load.
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
      for (const double w : model.weights)
        if (std::isfinite(w)) largest_weight = std::max(largest_weight, std::fabs(w));
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
  const std::size_t n = raw_inputs.shape(0), k = rule_->outputs(model.weights.shape(1));
  Matrix outputs = Matrix::from_shape({n, k});
  if (n == 0) return outputs;

  // The standardiser works on a copy; without one the raw inputs are used as they are.
  Matrix standardised;
  if (model.standardize) {
    standardised = raw_inputs;
    model.standardiser.apply(standardised);
  }
  const Matrix& inputs = model.standardize ? standardised : raw_inputs;

  // cache_bytes 0: one pass, nothing is kept.
  DesignMatrix phi(inputs, c, *basis_, rule_->log_domain(), 0, prediction_block_rows);
  if (model.input_model.count() != 0) phi.set_input_model(&model.input_model);
  Matrix block_outputs;
  phi.for_each_block([&](std::size_t first, const Matrix& block) {
    rule_->predict(block, model.weights, block_outputs);
    if (block_outputs.dimension() != 2 || block_outputs.shape(0) != block.shape(0) ||
        block_outputs.shape(1) != k)
      throw Error("Network: the " + model.link.name() + " rule gave " +
                  shape_text(block_outputs) + " outputs for a block of " +
                  std::to_string(block.shape(0)) + " rows and " + std::to_string(k) +
                  " outputs");
    std::copy_n(block_outputs.data(), block_outputs.size(), outputs.data() + first * k);
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
