#pragma once
// Selection of the values a pipeline leaves to "choose" (internal to the trainer): the basis
// width scale, the weight penalty's alpha and the number of centres, by the closed-form
// leave-one-out of ridge least squares on the design (radial/network/ridge_loo.hpp). One
// tridiagonal reduction of the Gram per (count, width) candidate; every penalty on the path is
// free.
//
// Least-squares outputs minimise exactly that criterion (for classes: the leave-one-out error
// rate of the 1-of-K fit). For outputs of another error (cross-entropy: irls, scg, bfgs) the
// closed form chooses the centres and widths and proposes alpha; the layer's own 5-fold
// cross-validated error on a path alpha x 3^3 ... 3^-3 around it then decides alpha, on the
// centres and widths computed once, the path cut short once two values in a row are no better.
//
// A centre learner that uses the basis (CentreLearner::uses_basis, OLS) chooses its centres for
// the widths it is shown (radial/network/candidate_basis.hpp): with width_scale = "choose" its centres
// are fitted again for every scale tried, each pair (centres, scale) scored in closed form on
// all its centres (no centre subset, no validation curve) over the whole grid (no climb: the
// centres change with the width), and the design keeps the widths the centres carry
// (keep_centre_widths).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "radial/core/centres.hpp"
#include "radial/training/trainer.hpp"

namespace radial::training {

// What the trainer's centre stage gives for a pipeline (its own seed and report), fitted on
// `rows` (this rank's), or on the training rows when null.
struct CentreFit {
  Centres centres;
  FitReport report;
};
using FitCentres = std::function<CentreFit(const Pipeline&, const Dataset* rows)>;

struct Selected {
  Pipeline pipeline;  // the input with every chosen value written in
  CentreFit centres;  // the centres of the chosen count, fitted once
  SelectionReport report;
};

// Empty when there is nothing to choose: no "choose" value, or an output layer that does not
// fit weights on the design (Capabilities::selectable). The values are the parameters that play
// a role (ParamRole): the basis's WidthScale, the weight penalty's RidgeStrength and the centre
// learner's CentreCount; "choose" on another parameter of a weight penalty is refused
// (InputError), since only a ridge's strength is on the closed form's path. A pipeline that
// chooses its width but names no weight penalty gets default_ridge_penalty with a chosen
// strength (report.penalty_added): the defaults never leave an unpenalised, possibly
// ill-posed fit.
// Seeds: `fold_seed` the run's (cv_folds_seed of it draws the path's folds), `basis_seed` and
// `output_seed` those of the trainer's basis and output stages. `input_model` (may be null):
// the design matrices' (DesignMatrix::set_input_model), as the trainer's.
std::optional<Selected> select_by_loo(const Pipeline& p, const Registry& registry,
                                      const Dataset& train, std::uint64_t fold_seed,
                                      std::uint64_t basis_seed, std::uint64_t output_seed,
                                      int threads, const FitCentres& fit_centres,
                                      const std::function<void(const std::string&)>& log,
                                      const Centres* input_model = nullptr);

// Above this many training rows (over all ranks) the values are chosen on a seeded sample of
// about this many (each row kept with probability n / N, the same rows under any number of
// ranks): the choice's cost and memory stop growing with N, while the centres are still fitted
// on every row.
inline constexpr std::size_t selection_sample_rows = 100000;

// Above selection_centres centres the values are chosen with a seeded subset of
// selection_subset_centres of them on a sample of about selection_subset_rows rows, both
// scored by the leave-one-out squared error (classes too), and carried to all the centres: the
// same absolute width, and up to selection_sample_rows training rows alpha x m / M (the subset's
// alpha was measured too large for all the centres by about their ratio; SelectionReport::
// centres, width_transfer, alpha_transfer), the same alpha beyond. The
// closed form costs about 3 n m^2 + 9 m^3 per width on n rows and m centres: with these sizes
// about 6e9 per width, a bounded part of the final fit's passes, whatever N and M. The final
// fit uses every row and centre.
inline constexpr std::size_t selection_centres = 800;
inline constexpr std::size_t selection_subset_centres = 400;
inline constexpr std::size_t selection_subset_rows = 12000;
// The auto count's pilot, for classes fitted by least squares whose centre count is left to the
// auto rule (none given) and past selection_centres: first selection_pilot_centres centres are
// fitted on the selection's rows and their width and penalty chosen there by the leave-one-out
// error rate (every row scored, as for classes on all their centres). More centres can lower an
// error rate by at most the rate itself, so when that network's leave-one-out error rate plus
// one standard error is at most selection_pilot_worth (issue 45's tolerance against SVC), the
// auto count's centres could not buy that much: the network keeps the pilot's centres (as fitted
// on the sample: fitted again on every row, shuttle's test error was 0.0047), width and
// penalty, its output fitted on every row (SelectionReport::pilot_*). Otherwise the selection
// goes on as for any count, bit for bit. Measured on 12,000-row samples (error rate at 100 / 200
// / 400 / 800 centres, each width and penalty chosen): shuttle 0.0043 / 0.0030 / 0.0043 /
// 0.0029, level, where the auto count's 4,089 centres cost six times SVC's fit for a test error
// of 0.0017 against the pilot's 0.0022; letter 0.250 / 0.194 / 0.115 / 0.071 and issue 45's
// generator at 50,000 rows 0.240 / 0.205 / 0.191 / 0.172.
inline constexpr std::size_t selection_pilot_centres = 200;
inline constexpr double selection_pilot_worth = 0.005;
// The pilot scores the width grid's two middle scales (2 and 4) first, and the rest only when
// their error rate is at most this many times selection_pilot_worth: on the accuracy benchmark's
// sets, waveform_noise, letter and shuttle the grid's best error rate was at least 0.7 times the
// middle two's (wine, 178 rows: 0.5, 1 error against 2), so past 8 times the pilot could not
// suffice, and it costs two widths at 200 centres.
inline constexpr double selection_pilot_middle = 8;
// With a centre subset, the leave-one-out of each width's path is summed over a seeded sample of
// about this many of those rows (ridge_loo_path's `scored`), each left out of the fit on all of
// them: the second pass, 2 n m^2 + 2 n m L K on n rows (L = 20 penalties, K classes), was most
// of a path's cost (letter, K = 26: 9e9 of 11.5e9 per width on 12,000 rows). Summed over a
// quarter or a third of the rows it chose the same width and penalty on the generator of issue
// 45 at 10,000 to 50,000 rows, and on letter and shuttle widths and penalties as good (test
// error 0.0400 and 0.0410 against 0.0410 on letter; 0.0016-0.0017 on shuttle).
inline constexpr std::size_t selection_scored_rows = 4000;

// Classes on all their centres (from selection_prescreen_centres up to selection_centres)
// under the RKHS norm, with the width scale chosen: every width scale of the grid (and past
// its ends) is first scored on a seeded subset of selection_prescreen_fraction of the centres
// (at least selection_prescreen_least), by the same leave-one-out error rate, and only its
// selection_prescreen_keep best are scored again with all the centres, which choose the width
// and alpha. A width costs about 3 n m^2 + 9 m^3 on m centres, so the prescreen's eight or more
// cost about a tenth of one with all of them: about two widths' worth in place of eight to
// fourteen. (Under weight decay, whose alpha means another prior on fewer centres, the
// subset's ranking was measured noisier: accuracy.py's wine 0.017 -> 0.028.)
inline constexpr std::size_t selection_prescreen_centres = 40;
inline constexpr double selection_prescreen_fraction = 0.3;
inline constexpr std::size_t selection_prescreen_least = 20;
inline constexpr std::size_t selection_prescreen_keep = 2;

// The width scales tried: 0.25, 0.5, ..., 32.
std::vector<double> width_scale_grid();

// The ridge penalty the selection adds, its strength chosen, when the pipeline chooses its
// width but names no penalty (a ridge: its strength plays ParamRole::RidgeStrength).
inline constexpr const char* default_ridge_penalty = "weight-decay";
// With a centre subset, and for classes fitted by least squares, the penalty added instead on a
// Gaussian activation of one common width: the RKHS norm, a ridge in the metric K_MM (its strength plays
// ParamRole::RidgeStrength). For classes on all their centres it was measured more accurate than
// weight decay (accuracy.py: the median error 0.94x the best default peer's, against 1.00x).
inline constexpr const char* default_norm_penalty = "rkhs";

// The ids of the `slot` plugins whose capabilities at their default parameters satisfy `has`,
// "a, b, c" (or "none is loaded"), for messages that suggest one.
std::string plugins_that(const Registry& registry, Slot slot,
                         bool (*has)(const Capabilities& capabilities));
// The ids of the plugins with a parameter that plays `role`, as plugins_that.
std::string plugins_declaring(const Registry& registry, ParamRole role);

}  // namespace radial::training
