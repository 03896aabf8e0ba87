#pragma once
// The forward pass y(x) = link(W^T [phi(x), 1]) of a trained model, in row blocks.

#include <memory>

#include "radial/basis.hpp"
#include "radial/model.hpp"
#include "radial/types.hpp"

namespace radial {

class Network {
 public:
  // `basis` must be the model's basis, prepared or restored from model.basis_state.
  Network(const Model& model, std::shared_ptr<const Basis> basis);

  // Raw inputs (as in the data file; the model's standardiser is applied here) -> outputs:
  // class probabilities N x K for Logistic / Softmax / Bayes (Logistic gives [1-y, y]),
  // linear outputs N x outputs for Identity. ShapeError when the feature count differs.
  Matrix predict(const Matrix& raw_inputs) const;

  // Arg max class index per row (classification models).
  static Labels classify(const Matrix& outputs);

  const Model& model() const { return model_; }

 private:
  const Model& model_;
  std::shared_ptr<const Basis> basis_;
};

}  // namespace radial
