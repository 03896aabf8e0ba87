// Link names and the canonical GLM links (radial/network/link.hpp).
#include "radial/network/link.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include "radial/core/errors.hpp"
#include "radial/numerics/log_sum_exp.hpp"
#include "radial/numerics/vector_math.hpp"
#include "radial/network/prediction_rule.hpp"

namespace radial {

const Link Link::Identity{"identity"};
const Link Link::Logistic{"logistic"};
const Link Link::Softmax{"softmax"};
const Link Link::Bayes{"bayes"};

Link::Link() : name_("identity") {}
Link::Link(std::string name) : name_(std::move(name)) {}

const std::string& to_string(const Link& link) { return link.name(); }

bool gives_probabilities(const Link& link) {
  const PredictionRule* rule = find_prediction_rule(link.name());
  return rule != nullptr && rule->probabilities();
}

std::optional<Link> link_from_string(const std::string& name) {
  if (!find_prediction_rule(name)) return std::nullopt;
  return Link(name);
}

namespace {

// sigma(a) = 1 / (1 + e^-a) from t = e^-|a| <= 1, so nothing overflows:
// a >= 0: 1 / (1 + t);  a < 0: t / (1 + t).
void logistic_in_place(Matrix& a) {
  const std::size_t size = a.size();
  double* v = a.data();
  std::vector<double> t(size);
  for (std::size_t i = 0; i < size; ++i) t[i] = -std::fabs(v[i]);
  exp_in_place(t.data(), size);
  for (std::size_t i = 0; i < size; ++i) {
    if (std::isnan(v[i])) continue;
    v[i] = v[i] >= 0 ? 1.0 / (1.0 + t[i]) : t[i] / (1.0 + t[i]);
  }
}

}  // namespace

void apply_link(const Link& link, Matrix& activations) {
  if (link == Link::Identity) return;
  if (link == Link::Logistic) return logistic_in_place(activations);
  if (link == Link::Softmax) return softmax_rows(activations);
  throw Error("apply_link: link '" + link.name() + "' is not one of identity, logistic, "
              "softmax; its prediction rule (radial/network/prediction_rule.hpp) computes its outputs");
}

}  // namespace radial
