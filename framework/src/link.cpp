// Output links applied by the framework at prediction time.
#include "radial/link.hpp"

#include <cmath>
#include <vector>

#include "radial/errors.hpp"
#include "radial/numerics/log_sum_exp.hpp"
#include "radial/numerics/vector_math.hpp"

namespace radial {

const char* to_string(Link link) {
  switch (link) {
    case Link::Identity: return "identity";
    case Link::Logistic: return "logistic";
    case Link::Softmax: return "softmax";
    case Link::Bayes: return "bayes";
  }
  return "unknown";
}

std::optional<Link> link_from_string(const std::string& name) {
  for (Link link : {Link::Identity, Link::Logistic, Link::Softmax, Link::Bayes})
    if (name == to_string(link)) return link;
  return std::nullopt;
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

void apply_link(Link link, Matrix& activations) {
  switch (link) {
    case Link::Identity: return;
    case Link::Logistic: logistic_in_place(activations); return;
    case Link::Softmax: softmax_rows(activations); return;
    // The network hands log P(C_k) + log sum_j pi_jk p(x|j); normalising over k is a softmax.
    case Link::Bayes: softmax_rows(activations); return;
  }
  throw Error("apply_link: unknown link value " + std::to_string(int(link)));
}

}  // namespace radial
