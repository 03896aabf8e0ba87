// The registry of prediction rules and the six the framework provides (radial/network/prediction_rule.hpp).
#include "radial/network/prediction_rule.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include <xtensor-blas/xblas.hpp>

#include "radial/core/errors.hpp"
#include "radial/numerics/log_sum_exp.hpp"
#include "radial/core/text.hpp"

namespace radial {

PredictionRule::~PredictionRule() = default;

namespace {

std::string number_text(double v) { return text::number(v, 17); }

// Empty when every weight passes `ok`; otherwise the first that does not.
template <class Ok>
std::string first_bad_weight(const Matrix& w, Ok ok, const char* rule) {
  const std::size_t columns = w.shape(1);
  for (std::size_t i = 0; i < w.size(); ++i)
    if (!ok(w.data()[i]))
      return "weight (" + std::to_string(i / columns) + ", " + std::to_string(i % columns) +
             ") is " + number_text(w.data()[i]) + "; " + rule;
  return {};
}

std::string finite_weights(const Matrix& w) {
  return first_bad_weight(w, [](double v) { return std::isfinite(v); }, "weights must be finite");
}

std::string regression_refused(const char* name) {
  return std::string("a regression model has link ") + name +
         "; regression outputs have link identity";
}

// Rules of the linear design [phi, 1]: a = Phi W, then the link.
class LinearRule : public PredictionRule {
 protected:
  static void activations(const Matrix& design, const Matrix& w, Matrix& a) {
    if (a.shape(0) != design.shape(0) || a.shape(1) != w.shape(1))
      a.resize({design.shape(0), w.shape(1)});
    xt::blas::gemm(design, w, a);
  }
};

class IdentityRule final : public LinearRule {
 public:
  bool probabilities() const override { return false; }
  std::string check(const Matrix& w, std::size_t classes) const override {
    const std::size_t columns = w.shape(1);
    if (classes == 0 && columns != 1)
      return "a regression model has " + std::to_string(columns) +
             " weight columns; it predicts one target";
    if (classes != 0 && columns != classes)
      return "identity (least-squares) weights have " + std::to_string(columns) +
             " columns for " + std::to_string(classes) + " classes (one-of-K coding)";
    return finite_weights(w);
  }
  void predict(const Matrix& design, const Matrix& w, Matrix& out) const override {
    activations(design, w, out);
  }
};

class LogisticRule final : public LinearRule {
 public:
  bool probabilities() const override { return true; }
  std::size_t outputs(std::size_t) const override { return 2; }
  std::string check(const Matrix& w, std::size_t classes) const override {
    if (classes == 0) return regression_refused("logistic");
    const std::string bad = finite_weights(w);
    if (!bad.empty()) return bad;
    if (w.shape(1) != 1)
      return "the logistic output has one column of weights, the model has " +
             std::to_string(w.shape(1));
    if (classes != 2)
      return "the logistic output is for 2 classes, the model lists " + std::to_string(classes);
    return {};
  }
  void predict(const Matrix& design, const Matrix& w, Matrix& out) const override {
    thread_local Matrix a;
    activations(design, w, a);
    const std::size_t rows = a.shape(0);
    out.resize({rows, 2});
    // Two columns [P(C_0|x), P(C_1|x)] = [sigma(-a), sigma(a)]: no cancellation in 1 - y.
    for (std::size_t r = 0; r < rows; ++r) out(r, 0) = sigmoid(-a(r, 0));
    apply_link(Link::Logistic, a);
    for (std::size_t r = 0; r < rows; ++r) out(r, 1) = a(r, 0);
  }
};

class SoftmaxRule final : public LinearRule {
 public:
  bool probabilities() const override { return true; }
  std::string check(const Matrix& w, std::size_t classes) const override {
    if (classes == 0) return regression_refused("softmax");
    const std::string bad = finite_weights(w);
    if (!bad.empty()) return bad;
    if (classes < 2)
      return "the softmax output needs at least 2 classes, the model lists " +
             std::to_string(classes);
    if (w.shape(1) != classes)
      return "softmax weights have " + std::to_string(w.shape(1)) + " columns for " +
             std::to_string(classes) + " classes";
    return {};
  }
  void predict(const Matrix& design, const Matrix& w, Matrix& out) const override {
    activations(design, w, out);
    softmax_rows(out);
  }
};

// a_k = W_Mk + lse_j(log phi_j + W_jk), then normalised over k (a softmax of a).
class MixturePosteriorRule final : public PredictionRule {
 public:
  bool probabilities() const override { return true; }
  bool log_domain() const override { return true; }
  std::string check(const Matrix& w, std::size_t classes) const override {
    if (classes == 0) return regression_refused("bayes");
    // log 0 = -inf is a class without that Gaussian (or a class of prior 0).
    const std::string bad = first_bad_weight(
        w, [](double v) { return !std::isnan(v) && v < HUGE_VAL; },
        "bayes weights are logs of probabilities, finite or -inf");
    if (!bad.empty()) return bad;
    if (w.shape(1) != classes)
      return "bayes weights have " + std::to_string(w.shape(1)) + " columns for " +
             std::to_string(classes) + " classes (one per class)";
    return {};
  }
  void predict(const Matrix& log_phi, const Matrix& w, Matrix& out) const override {
    const std::size_t rows = log_phi.shape(0), m = log_phi.shape(1), k = w.shape(1);
    thread_local Matrix terms;
    terms.resize({rows, m});
    out.resize({rows, k});
    for (std::size_t cls = 0; cls < k; ++cls) {
      for (std::size_t r = 0; r < rows; ++r) {
        const double* lp = log_phi.data() + r * m;
        double* t = terms.data() + r * m;
        for (std::size_t j = 0; j < m; ++j) t[j] = lp[j] + w(j, cls);
      }
      const Vector lse = log_sum_exp_rows(terms);
      for (std::size_t r = 0; r < rows; ++r) out(r, cls) = w(m, cls) + lse(r);
    }
    softmax_rows(out);
  }
};

// Specht's normalised sums (1991 eq 5-6): y_k = sum_j A_jk phi_j / sum_j B_j phi_j, with
// W = [A, B] of K + 1 columns (bias row zero, unused). Read in the log domain with the
// largest log phi_j (of B_j > 0) taken out, so that the spread may shrink to the
// nearest-neighbour limit (every phi_j underflowing) and y is still the nearest centre's A/B.
class NormalisedRule final : public PredictionRule {
 public:
  explicit NormalisedRule(bool classes) : classes_(classes) {}
  bool probabilities() const override { return classes_; }
  bool log_domain() const override { return true; }
  std::size_t outputs(std::size_t columns) const override { return columns - 1; }
  std::string check(const Matrix& w, std::size_t classes) const override {
    const char* name = classes_ ? "normalised-posterior" : "normalised";
    if (classes_ && classes == 0) return regression_refused(name);
    if (!classes_ && classes != 0)
      return "a classification model has link normalised; its classes take "
             "normalised-posterior";
    const std::string bad = first_bad_weight(
        w, [](double v) { return std::isfinite(v); }, "normalised weights must be finite");
    if (!bad.empty()) return bad;
    const std::size_t columns = w.shape(1), m = w.shape(0) - 1;
    const std::size_t wanted = classes_ ? classes + 1 : 2;
    if (columns != wanted)
      return std::string(name) + " weights have " + std::to_string(columns) +
             " columns; expected " + std::to_string(wanted) + " (" +
             (classes_ ? "one per class" : "the target") + ", then the denominator's B_j)";
    bool any = false;
    for (std::size_t j = 0; j < m; ++j) {
      if (w(j, columns - 1) < 0)
        return "denominator weight B_" + std::to_string(j) + " is " +
               number_text(w(j, columns - 1)) + "; B_j >= 0 (a count of rows)";
      any = any || w(j, columns - 1) > 0;
      if (classes_)
        for (std::size_t k = 0; k + 1 < columns; ++k)
          if (w(j, k) < 0)
            return "class weight (" + std::to_string(j) + ", " + std::to_string(k) + ") is " +
                   number_text(w(j, k)) + "; class weights are >= 0";
    }
    if (!any) return "every denominator weight B_j is 0";
    for (std::size_t k = 0; k < columns; ++k)
      if (w(m, k) != 0) return "the bias row of normalised weights must be 0";
    return {};
  }
  void predict(const Matrix& log_phi, const Matrix& w, Matrix& out) const override {
    const std::size_t rows = log_phi.shape(0), m = log_phi.shape(1), c = w.shape(1) - 1;
    out.resize({rows, c});
    for (std::size_t r = 0; r < rows; ++r) {
      const double* lp = log_phi.data() + r * m;
      double top = -HUGE_VAL;
      for (std::size_t j = 0; j < m; ++j)
        if (w(j, c) > 0) top = std::max(top, lp[j]);
      double den = 0;
      double* y = out.data() + r * c;
      std::fill(y, y + c, 0.0);
      for (std::size_t j = 0; j < m; ++j) {
        const double e = std::exp(lp[j] - top);
        den += w(j, c) * e;
        for (std::size_t k = 0; k < c; ++k) y[k] += w(j, k) * e;
      }
      for (std::size_t k = 0; k < c; ++k) y[k] /= den;
    }
  }

 private:
  bool classes_;
};

struct Rules {
  std::mutex mutex;
  std::map<std::string, const PredictionRule*> by_name;
};

// Never destroyed: plugins unregister from their libraries' static destructors, which may run
// after this library's.
Rules& rules() {
  static Rules* const table = [] {
    static const IdentityRule identity{};
    static const LogisticRule logistic{};
    static const SoftmaxRule softmax{};
    static const MixturePosteriorRule bayes{};
    static const NormalisedRule normalised{false}, normalised_posterior{true};
    auto* t = new Rules;
    t->by_name = {{"identity", &identity},     {"logistic", &logistic},
                  {"softmax", &softmax},       {"bayes", &bayes},
                  {"normalised", &normalised}, {"normalised-posterior", &normalised_posterior}};
    return t;
  }();
  return *table;
}

}  // namespace

void register_prediction_rule(const std::string& name, const PredictionRule& rule) {
  if (name.empty()) throw Error("register_prediction_rule: the rule has no name");
  Rules& t = rules();
  std::lock_guard<std::mutex> lock(t.mutex);
  const auto [at, added] = t.by_name.emplace(name, &rule);
  if (!added && at->second != &rule)
    throw Error("prediction rule '" + name + "' is already registered (by the framework or "
                "another plugin); give the plugin's rule another name");
}

void unregister_prediction_rule(const std::string& name, const PredictionRule& rule) {
  Rules& t = rules();
  std::lock_guard<std::mutex> lock(t.mutex);
  const auto at = t.by_name.find(name);
  if (at != t.by_name.end() && at->second == &rule) t.by_name.erase(at);
}

const PredictionRule* find_prediction_rule(const std::string& name) {
  Rules& t = rules();
  std::lock_guard<std::mutex> lock(t.mutex);
  const auto at = t.by_name.find(name);
  return at == t.by_name.end() ? nullptr : at->second;
}

std::vector<std::string> prediction_rule_names() {
  Rules& t = rules();
  std::lock_guard<std::mutex> lock(t.mutex);
  std::vector<std::string> names;
  for (const auto& entry : t.by_name) names.push_back(entry.first);
  return names;
}

Matrix mixture_posterior_weights(const Centres& centres) {
  const std::size_t m = centres.count();
  if (!centres.has_mixing() || centres.mixing.shape(0) != m ||
      centres.class_priors.size() != centres.mixing.shape(1))
    throw ShapeError("mixture_posterior_weights: the centres need M x K mixing weights and K "
                     "class priors; they have mixing " + std::to_string(centres.mixing.shape(0)) +
                     " x " + std::to_string(centres.mixing.shape(1)) + " and " +
                     std::to_string(centres.class_priors.size()) + " priors");
  const std::size_t k = centres.mixing.shape(1);
  Matrix w = Matrix::from_shape({m + 1, k});
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t cls = 0; cls < k; ++cls) w(j, cls) = std::log(centres.mixing(j, cls));
  for (std::size_t cls = 0; cls < k; ++cls) w(m, cls) = std::log(centres.class_priors(cls));
  return w;
}

}  // namespace radial
