#pragma once
// Output links. The framework, not a plugin, applies the link at prediction time, so predicting
// with a saved model needs only the basis plugin.

#include <optional>
#include <string>

#include "radial/types.hpp"

namespace radial {

enum class Link {
  Identity,  // linear outputs: regression, or least-squares classification (arg max)
  Logistic,  // 2 classes, one output y = P(C_1|x)
  Softmax,   // K classes, y_k = P(C_k|x), via log-sum-exp
  Bayes,     // PRBF / class-conditional mixtures: p(C_k|x) ∝ P(C_k) sum_j pi_jk p(x|j)
};

const char* to_string(Link link);
std::optional<Link> link_from_string(const std::string& name);

// activations (rows x outputs) -> outputs, in place. Identity: unchanged; Logistic: sigmoid;
// Softmax: normalised exponentials computed stably. (Bayes is applied by the network.)
void apply_link(Link link, Matrix& activations);

}  // namespace radial
