#pragma once
// run_checks: every check of one component, as findings, without Catch2 (the kit tests itself
// through it).

#include "radial/sdk/conformance/basis_checks.hpp"
#include "radial/sdk/conformance/capability_checks.hpp"
#include "radial/sdk/conformance/centre_learner_checks.hpp"
#include "radial/sdk/conformance/output_layer_checks.hpp"
#include "radial/sdk/conformance/weight_penalty_checks.hpp"
#include "radial/sdk/conformance/kernel_prior_checks.hpp"

namespace radial::conformance {

// Every check for the component `id`, in whichever slot it is registered. Never throws for a
// plugin's failures: they are findings. Throws InputError only when `id` is not registered.
inline Report run_checks(const Registry& registry, const std::string& id,
                         const Options& options = {}) {
  const ComponentInfo* info = nullptr;
  for (const ComponentInfo* candidate : registry.components()) {
    if (candidate->id == id) info = candidate;
  }
  if (!info) {
    std::vector<std::string> ids;
    for (const ComponentInfo* candidate : registry.components()) ids.push_back(candidate->id);
    const std::string guess = did_you_mean(id, ids);
    throw InputError("conformance: no plugin '" + id + "' is registered" +
                     (guess.empty() ? std::string() : " (did you mean '" + guess + "'?)"));
  }
  Report report;
  report.id = id;
  report.slot = info->slot;
  detail::Runner runner(report);
  Params params;
  detail::check_parameters(*info, options, runner, params);
  if (report.failed("parameters/defaults")) return report;
  detail::check_capabilities(registry, *info, params, runner);
  switch (info->slot) {
    case Slot::Basis: detail::check_basis(registry, *info, params, options, runner); break;
    case Slot::Centres:
      detail::check_centre_learner(registry, *info, params, options, runner);
      break;
    case Slot::Output: detail::check_output_layer(registry, *info, params, options, runner); break;
    case Slot::WeightPenalty:
      detail::check_weight_penalty(registry, *info, params, options, runner);
      break;
    case Slot::KernelPrior:
      detail::check_kernel_prior(registry, *info, params, options, runner);
      break;
    case Slot::Refine:
      // A refiner's error and gradient are the framework's (tests/refine); the kit checks its
      // parameter table (above) and that it is made.
      runner.run("refine/make", [&] { registry.make_refiner(info->id, params); });
      break;
  }
  return report;
}

}  // namespace radial::conformance
