#pragma once
// Prediction rules: how a model's stored weights turn a row block of the design matrix into
// outputs. A model names its rule by its Link; the Network looks the rule up here.
//
// Every rule reads weights W of (M+1) x columns, the last row playing the part of a bias, and
// either design Phi = [phi(x), 1] (N x (M+1)) or, with log_domain(), log phi(x) (N x M, no bias
// column; the basis must have a log map). The framework registers
//   identity   y = Phi W
//   logistic   one column, y = [sigma(-a), sigma(a)] with a = Phi W
//   softmax    y_k = softmax_k(Phi W)
//   bayes      log domain, y_k = softmax_k(W_Mk + log sum_j exp(log phi_j(x) + W_jk)): with
//              W_jk = log pi_jk and W_Mk = log P(C_k) this is the mixture posterior
//              p(C_k|x) ∝ P(C_k) sum_j pi_jk p(x|j) (mixture_posterior_weights below).
//   normalised            log domain, W = [A, B] (K + 1 columns, bias row 0):
//                         y_k = sum_j A_jk phi_j(x) / sum_j B_j phi_j(x), Specht's GRNN
//                         (1991, eqs 5-6; values, regression)
//   normalised-posterior  the same for classes (A_jk >= 0, outputs are probabilities when
//                         B_j = sum_k A_jk): the PNN's posterior (Specht 1990)
//   (both computed with the largest log phi_j taken out, so they hold as the spread -> 0)
// A plugin registers its own rule from its register function (radial/sdk/prediction_rule.hpp
// keeps the registration for as long as the plugin's library is loaded); predicting with a
// model that uses it then needs that plugin installed too.

#include <cstddef>
#include <string>
#include <vector>

#include "radial/core/centres.hpp"
#include "radial/network/link.hpp"
#include "radial/core/types.hpp"

namespace radial {

class PredictionRule {
 public:
  virtual ~PredictionRule();

  // true: the rule reads log phi (M columns) instead of [phi, 1].
  virtual bool log_domain() const { return false; }

  // true: the outputs are class probabilities (rows sum to 1), so metrics report a
  // cross-entropy and `predict --probabilities` / predict_proba give them; false: values
  // (regression, or least-squares scores). Every rule says which.
  virtual bool probabilities() const = 0;

  // Outputs per row for weights of `columns` columns.
  virtual std::size_t outputs(std::size_t columns) const { return columns; }

  // Empty when weights of (M+1) rows (already checked) and these entries suit the rule for a
  // model with `classes` classes (0: regression); otherwise what disagrees, as a phrase.
  virtual std::string check(const Matrix& weights, std::size_t classes) const = 0;

  // One block: design rows x (M+1) (log domain: rows x M) and the weights -> `outputs`, resized
  // to rows x outputs(weights.shape(1)).
  virtual void predict(const Matrix& design, const Matrix& weights, Matrix& outputs) const = 0;
};

// Adds `rule` under `name`; the object must stay alive until unregistered. Throws Error when
// the name is taken by another object (registering the same object again does nothing).
void register_prediction_rule(const std::string& name, const PredictionRule& rule);
// Removes `name` if it is registered to `rule` (a library being unloaded takes its rule away).
void unregister_prediction_rule(const std::string& name, const PredictionRule& rule);

// The rule of that name, or null.
const PredictionRule* find_prediction_rule(const std::string& name);
std::vector<std::string> prediction_rule_names();

// The bayes rule's weights from class-conditional mixtures: W_jk = log pi_jk (j < M), W_Mk =
// log P(C_k); log 0 = -inf. The centres must carry mixing weights (M x K) and K class priors.
Matrix mixture_posterior_weights(const Centres& centres);

}  // namespace radial
