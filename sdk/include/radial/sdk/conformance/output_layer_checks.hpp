#pragma once
// The conformance checks of a OutputLayer plugin (radial/sdk/conformance.hpp).

#include "radial/sdk/conformance/fixtures.hpp"

namespace radial::conformance {
namespace detail {

inline void check_output_layer(const Registry& registry, const ComponentInfo& info,
                               const Params& params, const Options& options, Runner& runner) {
  const Dataset data = two_classes(options.rows_per_class, options.features, options.seed);
  const Centres centres = class_centres(data);
  const UnitGaussian basis;
  const DesignMatrix design(data.inputs, centres, basis);
  const TrainingProblem problem{design, data, centres, basis};

  std::shared_ptr<OutputLayer> layer;
  OutputWeights once;
  bool ready = false;
  std::string stop_message;
  runner.run("output/fit", [&] {
    layer = registry.make_output_layer(info.id, params);
    FitContext ctx(options.seed);
    once = layer->fit(problem, nullptr, ctx);
    stop_message = ctx.report.message;
    const PredictionRule* rule = find_prediction_rule(once.link.name());
    if (!rule) {
      runner.fail("output/fit", "link '" + once.link.name() + "' names no registered prediction "
                                "rule; register the plugin's rule (radial/sdk/prediction_rule.hpp)");
    } else if (once.weights.shape(0) != centres.count() + 1 || once.weights.shape(1) == 0) {
      runner.fail("output/fit", "weights are " + std::to_string(once.weights.shape(0)) + " x " +
                                    std::to_string(once.weights.shape(1)) + ", expected " +
                                    std::to_string(centres.count() + 1) + " x outputs");
    } else {
      const std::string problem = rule->check(once.weights, data.num_classes);
      if (!problem.empty())
        runner.fail("output/fit", "the " + once.link.name() + " rule refuses the weights: " +
                                      problem);
    }
    ready = true;
  });
  if (!ready) return;

  runner.run("output/stop-record", [&] {
    if (stop_message.empty())
      runner.fail("output/stop-record",
                  "fit() left the report's stop record unstated; say why the fit stopped with "
                  "ctx.report.stop(Termination, message), also for a closed-form solve");
  });

  const auto compare = [&](const char* check, const OutputWeights& other, const char* what) {
    if (other.link != once.link) {
      runner.fail(check, std::string(what) + " gave link " + to_string(other.link) +
                             " instead of " + to_string(once.link));
    }
    const std::string d = difference(other.weights, once.weights, "weights");
    if (!d.empty()) runner.fail(check, std::string(what) + " gave other weights: " + d);
  };
  runner.run("output/fit-twice", [&] {
    FitContext ctx(options.seed);
    compare("output/fit-twice", layer->fit(problem, nullptr, ctx),
            "fitting the same layer again with the same seed");
  });
  runner.run("output/determinism", [&] {
    FitContext ctx(options.seed);
    compare("output/determinism",
            registry.make_output_layer(info.id, params)->fit(problem, nullptr, ctx),
            "a second instance with the same seed");
  });

  runner.run("output/row-mismatch-refused", [&] {
    // Targets for fewer rows than the design matrix has.
    std::vector<std::size_t> keep(data.rows() - 2);
    for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = i;
    const Dataset shorter = select_rows(data, keep);
    const TrainingProblem mismatched{design, shorter, centres, basis};
    auto fresh = registry.make_output_layer(info.id, params);
    std::string what;
    const Outcome outcome = outcome_of(
        [&] {
          FitContext ctx(options.seed);
          fresh->fit(mismatched, nullptr, ctx);
        },
        &what);
    if (outcome == Outcome::Returned) {
      runner.fail("output/row-mismatch-refused",
                  "fit() accepted a design matrix of " + std::to_string(design.rows()) +
                      " rows with targets for " + std::to_string(shorter.rows()) +
                      " rows; compare problem.design.rows() with problem.data.rows()");
    } else if (outcome == Outcome::OtherException) {
      runner.fail("output/row-mismatch-refused", "a non-Radial exception: " + what);
    }
  });
}

}  // namespace detail
}  // namespace radial::conformance
