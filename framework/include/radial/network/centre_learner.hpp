#pragma once
// CentreLearner: the first training stage, choosing centres (and shapes, mixing weights) with
// the output layer not yet involved. Unsupervised learners ignore the targets; class-aware
// learners (per-class mixtures, DEM, PRBF) use them; supervised learners that choose centres
// by the columns they add to the design matrix (orthogonal least squares and its kind) also
// see the pipeline's basis (uses_basis(), fit_on_basis(), radial/network/candidate_basis.hpp).

#include <cstddef>
#include <string>

#include "radial/core/centres.hpp"
#include "radial/core/dataset.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/core/option_table.hpp"
#include "radial/core/params.hpp"

namespace radial {

class CandidateBasis;
class KernelPrior;

class CentreLearner {
 public:
  virtual ~CentreLearner();

  // train.inputs is already standardised when the pipeline asks for it. `prior` is the
  // pipeline's kernel prior, or null; learners that place a prior on kernels (prbf) use it,
  // the others ignore it. Records iterations, convergence and guards in
  // ctx.report. Throws InputError for data it cannot use (e.g. fewer rows than centres).
  virtual Centres fit(const Dataset& train, const KernelPrior* prior, FitContext& ctx) = 0;

  // True for a learner that chooses its centres by the design matrix they make (OLS): the
  // trainer then calls fit_on_basis() instead of fit(), with the pipeline's basis (with the
  // width scale the trainer is trying), and keeps the widths the returned centres carry.
  // Known after construction. Default false: fit() is called and the basis is not shown. The
  // registration declares it too (Capabilities::uses_basis; radial/sdk/plugin.hpp does so for
  // a SupervisedCentreLearner).
  virtual bool uses_basis() const { return false; }

  // For uses_basis() learners: as fit(), with `basis` the pipeline's basis, which the learner
  // places on its candidate centres (CandidateBasis::place) to get the design's columns. The
  // centres returned are a selection of the placed candidates (select_centres), with their
  // widths. The default throws Error (a learner with uses_basis() must override it).
  virtual Centres fit_on_basis(const Dataset& train, const KernelPrior* prior,
                               CandidateBasis& basis, FitContext& ctx);
};

// The base of a learner that needs the pipeline's basis: uses_basis() is true and fit()
// without a basis is refused with an Error saying so (the trainer never calls it).
class SupervisedCentreLearner : public CentreLearner {
 public:
  ~SupervisedCentreLearner() override;
  bool uses_basis() const final { return true; }
  Centres fit(const Dataset& train, const KernelPrior* prior, FitContext& ctx) final;
  Centres fit_on_basis(const Dataset& train, const KernelPrior* prior, CandidateBasis& basis,
                       FitContext& ctx) override = 0;
};

// The `count` parameter of a learner whose number of centres is free: an integer >= 1, "auto"
// (the default: auto_centre_count of the training rows, or for classes past 800 the pilot's
// 200 when they suffice, selection.hpp) or "choose" (the trainer selects it by leave-one-out
// among auto_centre_count / 4, / 2, x 1, x 2 and x 4, selection.cpp).
// The count is stored in `count`, 0 for "auto" and "choose" (the learner then calls
// auto_centre_count on its rows); a count of 0 in the table's options is the default "auto".
ParamSpec centre_count_param(const std::string& doc);
// The count of `params`' parameter `name` (the learner's CentreCount, "count" for
// centre_count_param): 0 for "auto" and "choose".
std::size_t centre_count(const Params& params, const std::string& name = "count");
template <class Options>
ParamSpec& add_centre_count(OptionTable<Options>& table, std::size_t Options::*count,
                            const std::string& doc) {
  return table.custom(
      centre_count_param(doc),
      [count](const Options& o) {
        return o.*count == 0 ? ParamValue(std::string("auto")) : ParamValue(std::int64_t(o.*count));
      },
      [count](const Params& p, Options& o) { o.*count = centre_count(p); });
}

// The `tolerance` of an iterative learner's stopping rule, >= 0: `doc` says what it bounds, and
// 0 turns the rule off, so that the learner runs exactly `iterations` (said here for each).
template <class Options>
ParamSpec& add_tolerance(OptionTable<Options>& table, double Options::*tolerance,
                         const std::string& doc) {
  return table.bind("tolerance", tolerance, doc + "; 0 runs exactly `iterations`").at_least(0.0);
}

// The report of centres chosen rather than iterated to (read from a file, drawn from the rows):
// converged after 0 iterations, `how` saying what was chosen, their number as figure "centres",
// and the seconds since `start`.
inline void report_chosen_centres(FitReport& report, const std::string& how, std::size_t count,
                                  std::chrono::steady_clock::time_point start) {
  report.stop(Termination::Converged, how + " (not iterated)");
  report.figures["centres"] = double(count);
  report.seconds = seconds_since(start);
}

// Centres for `rows` training rows when the count is "auto": min(N / 2, ceil(max(8, 4 ln N - 24)
// sqrt(N)), max(10000, 40 x classes)), at least 1. Grows as sqrt(N) log N, the number of
// Nystrom centres for which a kernel ridge fit keeps its optimal rate (Rudi, Camoriano & Rosasco
// 2015; FALKON's practice); 8 sqrt(N) below N = e^8 ~ 2981, where 4 ln N - 24 is below 8.
// The output solve turns iterative (never (M + 1)^2 per row) as M grows, so the cap is the
// preconditioner's memory: 8 (M + 1)^2 bytes, 800 MB at 10^4.
std::size_t auto_centre_count(std::size_t rows, std::size_t classes = 0);

// The classes auto_centre_count counts for `data`: its class values (classification), or 0.
std::size_t centre_count_classes(const Dataset& data);

}  // namespace radial
