#pragma once
// The conformance checks of a CentreLearner plugin (radial/sdk/conformance.hpp).

#include "radial/sdk/conformance/fixtures.hpp"

namespace radial::conformance {
namespace detail {

inline void check_centre_learner(const Registry& registry, const ComponentInfo& info,
                                 const Params& params, const Options& options, Runner& runner) {
  const Dataset data = two_classes(options.rows_per_class, options.features, options.seed);
  std::shared_ptr<CentreLearner> learner;
  Centres once;
  bool ready = false;
  std::string stop_message;
  runner.run("centres/fit", [&] {
    learner = registry.make_centre_learner(info.id, params);
    FitContext ctx(options.seed);
    once = learner->fit(data, nullptr, ctx);
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

  runner.run("centres/fit-twice", [&] {
    FitContext ctx(options.seed);
    const Centres twice = learner->fit(data, nullptr, ctx);
    const std::string d = difference(twice, once);
    if (!d.empty()) {
      runner.fail("centres/fit-twice",
                  "fitting the same learner again with the same seed gave other centres: " + d);
    }
  });

  runner.run("centres/determinism", [&] {
    auto other = registry.make_centre_learner(info.id, params);
    FitContext ctx(options.seed);
    const Centres again = other->fit(data, nullptr, ctx);
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
          from_empty = fresh->fit(empty, nullptr, ctx);
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
