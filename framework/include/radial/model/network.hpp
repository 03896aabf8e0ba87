#pragma once
// The forward pass of a trained model, in row blocks: its prediction rule
// (radial/network/prediction_rule.hpp) applied to the stored weights and the design matrix, e.g.
// y(x) = link(W^T [phi(x), 1]).

#include <memory>

#include "radial/network/basis.hpp"
#include "radial/model/model.hpp"
#include "radial/network/prediction_rule.hpp"
#include "radial/core/types.hpp"

namespace radial {

class Network {
 public:
  // `basis` must be the model's basis, prepared or restored from model.basis_state. Throws
  // ModelFileError when no rule is registered under the model's link (a plugin's rule whose
  // plugin is not loaded) or the weights do not suit the rule.
  Network(const Model& model, std::shared_ptr<const Basis> basis);

  // Raw inputs (as in the data file; the model's standardiser is applied here) -> outputs of
  // the model's rule: class probabilities N x K for logistic / softmax / bayes (logistic gives
  // [1-y, y]), linear outputs N x outputs for identity. ShapeError when the feature count
  // differs.
  Matrix predict(const Matrix& raw_inputs) const;

  // Arg max class index per row (classification models).
  static Labels classify(const Matrix& outputs);

  const Model& model() const { return model_; }

 private:
  const Model& model_;
  std::shared_ptr<const Basis> basis_;
  const PredictionRule* rule_ = nullptr;
};

}  // namespace radial
