#pragma once
// Output links: the name of the prediction rule (radial/network/prediction_rule.hpp) that turns a
// model's stored weights into its outputs. Links are open: the framework registers identity,
// logistic, softmax and bayes, and a plugin may register a rule under a new name; a Link is
// only that name. The framework, not a plugin, applies the built-in rules at prediction time,
// so predicting with a saved model that uses one needs only the basis plugin.

#include <optional>
#include <string>

#include "radial/core/types.hpp"

namespace radial {

class Link {
 public:
  static const Link Identity;  // linear outputs: regression, or least-squares classification
  static const Link Logistic;  // 2 classes, one weight column, y = P(C_1|x)
  static const Link Softmax;   // K classes, y_k = P(C_k|x), via log-sum-exp
  static const Link Bayes;     // class-conditional mixtures on log phi (prediction_rule.hpp)

  Link();  // identity
  explicit Link(std::string name);

  const std::string& name() const { return name_; }

  friend bool operator==(const Link& a, const Link& b) { return a.name_ == b.name_; }
  friend bool operator!=(const Link& a, const Link& b) { return a.name_ != b.name_; }

 private:
  std::string name_;
};

const std::string& to_string(const Link& link);
// Whether the link's prediction rule gives class probabilities (PredictionRule::probabilities);
// false when no rule of that name is registered.
bool gives_probabilities(const Link& link);

// The link of that name when a prediction rule of that name is registered.
std::optional<Link> link_from_string(const std::string& name);

// The canonical GLM links on activations (rows x outputs), in place: Identity unchanged,
// Logistic sigmoid, Softmax normalised exponentials computed stably. Throws Error for any other
// link (a rule that is not a function of W^T [phi, 1] alone, such as bayes).
void apply_link(const Link& link, Matrix& activations);

}  // namespace radial
