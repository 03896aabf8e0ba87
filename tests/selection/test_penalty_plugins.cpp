// Two weight penalties built as plugins outside Radial's plugin folder (the idea of
// tests/bad-plugins), for the selection's parameter roles (radial/core/params.hpp, ParamRole):
//   RIDGE      "shrinkage": alpha/2 ||w||^2 without the bias row under another id and another
//              parameter name ("lambda"), declared a ridge (ParamRole::RidgeStrength), so the
//              trainer may choose it as it chooses weight-decay's alpha.
//   otherwise  "pseudo-l1": lambda sum (sqrt(1 + w^2) - 1), a penalty that is no ridge, whose
//              "lambda" nevertheless accepts the word "choose": the trainer must refuse it.
#include <cmath>
#include <sstream>

#include <radial/core/errors.hpp>
#include <radial/sdk/plugin.hpp>
#include <radial/network/weight_penalty.hpp>

namespace test_penalties {

struct Options {
  double lambda = 0.01;
};

void check_shape(const radial::Matrix& weights, const radial::Matrix& other, const char* what) {
  if (other.shape() != weights.shape()) {
    std::ostringstream msg;
    msg << what << " is " << other.shape(0) << " x " << other.shape(1) << ", the weights "
        << weights.shape(0) << " x " << weights.shape(1);
    throw radial::ShapeError(msg.str());
  }
}

// The penalty sum f(w_p) over the weights without the bias row (the last), with f'' diagonal.
class RowPenalty : public radial::WeightPenalty {
 public:
  explicit RowPenalty(Options o) : lambda_(o.lambda) {}
  double penalty(const radial::Matrix& w) const override {
    double sum = 0;
    for (std::size_t p = 0; p < rows(w); ++p) sum += f(w.data()[p]);
    return lambda_ * sum;
  }
  void add_gradient(const radial::Matrix& w, radial::Matrix& g) const override {
    check_shape(w, g, "the gradient");
    for (std::size_t p = 0; p < rows(w); ++p) g.data()[p] += lambda_ * df(w.data()[p]);
  }
  void add_hessian(const radial::Matrix& w, radial::Matrix& h) const override {
    if (h.shape(0) != w.size() || h.shape(1) != w.size())
      throw radial::ShapeError("the Hessian is not P x P");
    for (std::size_t p = 0; p < rows(w); ++p) h(p, p) += lambda_ * d2f(w.data()[p]);
  }
  void add_hessian_product(const radial::Matrix& w, const radial::Matrix& v,
                           radial::Matrix& out) const override {
    check_shape(w, v, "the direction");
    check_shape(w, out, "the product");
    for (std::size_t p = 0; p < rows(w); ++p)
      out.data()[p] += lambda_ * d2f(w.data()[p]) * v.data()[p];
  }

 private:
  static std::size_t rows(const radial::Matrix& w) {
    return w.shape(0) == 0 ? 0 : (w.shape(0) - 1) * w.shape(1);
  }
  virtual double f(double x) const = 0;
  virtual double df(double x) const = 0;
  virtual double d2f(double x) const = 0;

 protected:
  double lambda_;
};

#ifdef RIDGE
// lambda/2 ||w||^2, each term computed in weight-decay's order, so that every fit is the same
// bits under either name.
class Shrinkage final : public RowPenalty {
 public:
  using RowPenalty::RowPenalty;
  double penalty(const radial::Matrix& w) const override {
    double sum = 0;
    for (std::size_t p = 0; p + w.shape(1) < w.size(); ++p) sum += w.data()[p] * w.data()[p];
    return 0.5 * lambda_ * sum;
  }

 private:
  double f(double x) const override { return 0.5 * x * x; }
  double df(double x) const override { return x; }
  double d2f(double) const override { return 1; }
};

radial::OptionTable<Options> table() {
  radial::OptionTable<Options> t;
  t.bind("lambda", &Options::lambda, "lambda of the penalty lambda/2 ||w||^2 (a ridge)")
      .at_least(0.0)
      .or_words({"choose"})
      .plays(radial::ParamRole::RidgeStrength);
  return t;
}

RADIAL_PLUGIN_COMPONENT("shrinkage", "1.0.0", Shrinkage, "ridge under another name (test)",
                        "test", table())
#else
class PseudoL1 final : public RowPenalty {
 public:
  using RowPenalty::RowPenalty;

 private:
  double f(double x) const override { return std::sqrt(1 + x * x) - 1; }
  double df(double x) const override { return x / std::sqrt(1 + x * x); }
  double d2f(double x) const override { return std::pow(1 + x * x, -1.5); }
};

radial::OptionTable<Options> table() {
  radial::OptionTable<Options> t;
  t.bind("lambda", &Options::lambda, "lambda of the penalty lambda sum (sqrt(1 + w^2) - 1)")
      .at_least(0.0)
      .or_words({"choose"});
  return t;
}

RADIAL_PLUGIN_COMPONENT("pseudo-l1", "1.0.0", PseudoL1, "a penalty that is no ridge (test)",
                        "test", table())
#endif

}  // namespace test_penalties
