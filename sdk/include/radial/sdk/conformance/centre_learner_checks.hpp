#pragma once
// The conformance checks of a CentreLearner plugin (radial/sdk/conformance.hpp).

#include "radial/network/candidate_basis.hpp"
#include "radial/sdk/conformance/fixtures.hpp"

namespace radial::conformance {
namespace detail {

// fit(), or for a learner that uses the basis (CentreLearner::uses_basis) fit_on_basis() with
// the kit's unit Gaussian as the pipeline's basis; `placed` (may be null) gets the candidates
// the learner placed it on.
inline Centres fit_centres(CentreLearner& learner, const Dataset& data, FitContext& ctx,
                           Centres* placed = nullptr) {
  if (!learner.uses_basis()) return learner.fit(data, nullptr, ctx);
  CandidateBasis basis([] { return std::make_shared<UnitGaussian>(); });
  Centres centres = learner.fit_on_basis(data, nullptr, basis, ctx);
  if (placed && basis.placed()) *placed = basis.candidates();
  return centres;
}

inline void check_centre_learner(const Registry& registry, const ComponentInfo& info,
                                 const Params& params, const Options& options, Runner& runner) {
  const Dataset data = two_classes(options.rows_per_class, options.features, options.seed);
  std::shared_ptr<CentreLearner> learner;
  Centres once, placed;
  bool ready = false;
  std::string stop_message;
  runner.run("centres/fit", [&] {
    learner = registry.make_centre_learner(info.id, params);
    FitContext ctx(options.seed);
    once = fit_centres(*learner, data, ctx, &placed);
    stop_message = ctx.report.message;
    once.check();
    if (once.count() == 0) runner.fail("centres/fit", "no centres were returned");
    if (once.dim() != data.features()) {
      runner.fail("centres/fit", "centres have dimension " + std::to_string(once.dim()) +
                                     ", the data " + std::to_string(data.features()));
    }
    if (!all_finite(once.means)) runner.fail("centres/fit", "non-finite centre coordinates");
    ready = true;
  });
  if (!ready) return;

  runner.run("centres/stop-record", [&] {
    if (stop_message.empty())
      runner.fail("centres/stop-record",
                  "fit() left the report's stop record unstated; say why the fit stopped with "
                  "ctx.report.stop(Termination, message), also when it is not iterated");
  });

  if (learner->uses_basis()) {
    runner.run("centres/placed-candidates", [&] {
      // The network keeps the widths the candidates were given: each centre must be one of
      // the candidates the learner placed the basis on (CandidateBasis::place).
      if (placed.count() == 0) {
        runner.fail("centres/placed-candidates",
                    "uses_basis() is true but fit_on_basis() never placed the basis on "
                    "candidates (CandidateBasis::place)");
        return;
      }
      for (std::size_t j = 0; j < once.count(); ++j) {
        bool found = false;
        for (std::size_t k = 0; k < placed.count() && !found; ++k)
          found = difference(select_centres(once, {j}).means, select_centres(placed, {k}).means,
                             "means")
                      .empty();
        if (!found) {
          runner.fail("centres/placed-candidates",
                      "centre " + std::to_string(j) +
                          " is not one of the placed candidates; return select_centres() of "
                          "CandidateBasis::candidates()");
          return;
        }
      }
    });
  }

  runner.run("centres/fit-twice", [&] {
    FitContext ctx(options.seed);
    const Centres twice = fit_centres(*learner, data, ctx);
    const std::string d = difference(twice, once);
    if (!d.empty()) {
      runner.fail("centres/fit-twice",
                  "fitting the same learner again with the same seed gave other centres: " + d);
    }
  });

  runner.run("centres/determinism", [&] {
    auto other = registry.make_centre_learner(info.id, params);
    FitContext ctx(options.seed);
    const Centres again = fit_centres(*other, data, ctx);
    const std::string d = difference(again, once);
    if (!d.empty()) {
      runner.fail(
          "centres/determinism",
          "a second instance with the same seed gave other centres (use ctx.rng only): " + d);
    }
  });

  runner.run("centres/empty-data-refused", [&] {
    Dataset empty = data;
    empty.inputs = Matrix::from_shape({0, data.features()});
    empty.classes = Labels::from_shape({0});
    auto fresh = registry.make_centre_learner(info.id, params);
    std::string what;
    Centres from_empty;
    const Outcome outcome = outcome_of(
        [&] {
          FitContext ctx(options.seed);
          from_empty = fit_centres(*fresh, empty, ctx);
        },
        &what);
    // Only a learner whose centres do not depend on the data (e.g. read from a file) may
    // return here, and then with the very centres it gives for real data.
    if (outcome == Outcome::Returned && !difference(from_empty, once).empty()) {
      runner.fail("centres/empty-data-refused",
                  "fit() on 0 rows returned centres (other than those fitted on the data); "
                  "throw radial::InputError");
    } else if (outcome == Outcome::OtherException) {
      runner.fail("centres/empty-data-refused",
                  "fit() on 0 rows threw a non-Radial exception: " + what);
    }
  });
}

}  // namespace detail
}  // namespace radial::conformance
