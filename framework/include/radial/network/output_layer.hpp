#pragma once
// OutputLayer: the second training stage, output weights with the centres fixed.
//
//   y(x) = link( W^T [phi(x), 1] )     W: (M+1) x outputs, bias in the last row (as NETLAB)
//
// A layer returns weights and a link; the framework owns them from then on (model store,
// prediction). Non-convergence is reported in ctx.report, never thrown.

#include <cstddef>
#include <optional>
#include <string>

#include "radial/core/centres.hpp"
#include "radial/core/dataset.hpp"
#include "radial/network/design_matrix.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/network/link.hpp"
#include "radial/core/types.hpp"

namespace radial {

class WeightPenalty;

struct OutputWeights {
  Matrix weights;  // (M+1) x columns, bias last, read by the link's rule
  Link link = Link::Identity;  // a registered prediction rule (radial/network/prediction_rule.hpp)
  // Optional: the network's outputs on this rank's training rows (rows x outputs, as the link's
  // rule predicts them from the design), when the fit made them anyway (a pass for the sum of
  // squares). The trainer's training metrics then read them in place of a prediction pass over
  // every row; left empty, the rows are predicted.
  Matrix training_outputs = {};
};

// What an output layer trains on.
struct TrainingProblem {
  const DesignMatrix& design;   // Phi with the bias column, in row blocks
  const Dataset& data;          // targets (classes or values), N rows
  const Centres& centres;       // fixed centres (mixing weights, priors for Bayes)
  const Basis& basis;           // for layers that need log phi (Bayes)
};

// The memory a fit holds besides the design matrix, which the trainer compares with the memory
// available before the fit starts (a Hessian of K (M + 1) weights can need gigabytes).
struct WorkingMemory {
  double bytes = 0;
  std::string what;    // what holds it, for the message: "one Hessian per output, 4 K (M + 1)^2 doubles"
  std::string remedy;  // a way out besides fewer centres or classes, e.g. ", or output plugin
                       // \"scg\""; may be empty
};

// Targets for a link: Identity -> 1-of-K (classification) or the values (N x 1, regression);
// Logistic -> N x 1 indicator of class 1 (2 classes only); Softmax -> 1-of-K.
// Throws InputError when the link does not fit the task (logistic with 3 classes, ...).
Matrix targets_for(Link link, const Dataset& data);

// selectable(), least_squares() and side_conditions() are also declared by the registration
// (radial/plugin/loader.hpp's Capabilities), which the trainer reads before it makes a layer; the
// conformance kit checks that the two agree.
class OutputLayer {
 public:
  virtual ~OutputLayer();

  // True when the layer fits W on the design [phi, 1] under the weight penalty, so that the
  // trainer may choose the basis width scale and the penalty for it by least-squares
  // leave-one-out (framework/src/training/selection.hpp). False for rules that use no weights
  // (Bayes).
  virtual bool selectable() const { return true; }

  // True when the layer minimises the penalised sum of squares on the design, so that the
  // closed-form leave-one-out is its own error. Other selectable layers (cross-entropy) get their
  // penalty from a short cross-validated path of the layer itself, started at the closed form's.
  virtual bool least_squares() const { return false; }

  // The held-out error the trainer chooses this layer's weight penalty by on its short
  // cross-validated path (a selectable layer that is not least_squares(), with alpha =
  // "choose"; framework/src/training/selection.cpp): its name in the report and its sum over
  // the rows of `held_out` (this rank's; the trainer sums over ranks and divides by the rows),
  // given the network's outputs there (the outputs of the layer's link). Empty (the default):
  // the trainer's own, the error rate for classes and the mean squared error for regression. A
  // layer that minimises another error (an L1 layer's absolute error) returns it here, so its
  // penalty is chosen by the error it minimises, not by squared error.
  struct HeldOutError {
    std::string name;  // e.g. "mean_absolute_error"
    double sum = 0;
  };
  virtual std::optional<HeldOutError> held_out_error(const Matrix& outputs,
                                                     const Dataset& held_out) const {
    (void)outputs;
    (void)held_out;
    return std::nullopt;
  }

  // True when fit() imposes the side conditions P_c^T w = 0 of a basis with a polynomial term
  // (Basis::polynomial, radial/core/polynomial_term.hpp) on the design [phi, p(x), 1]: the trainer
  // refuses a basis with a polynomial term for a layer that does not.
  virtual bool side_conditions() const { return false; }

  // The working memory of fit() on `rows` training rows (this rank's), `centres` centres and
  // `outputs` outputs (K classes when more than two, else 1). The default is a layer's that
  // holds a few (M + 1)^2 blocks and the N x K targets; a layer that holds more says so.
  virtual WorkingMemory working_memory(std::size_t rows, std::size_t centres,
                                       std::size_t outputs) const;

  // `penalty` is the pipeline's weight penalty or null; it adds to the error.
  virtual OutputWeights fit(const TrainingProblem& problem, const WeightPenalty* penalty,
                            FitContext& ctx) = 0;
};

}  // namespace radial
