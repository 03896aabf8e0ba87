#pragma once
// A fingerprint of the plugin interfaces' layout as the including library was compiled: for
// each interface class (the six slots, the Registrar and PredictionRule) its size and, for each
// of its virtual functions, the vtable slot and the mangled type (the signature) the compiler
// gave it; and the sizes of the value types that cross the boundary. The host compares a
// plugin's with its own at load (plugin_abi.hpp: PluginDescriptor::interface_layout), so a
// plugin built against a copied header with a virtual inserted, removed, reordered or
// re-typed, or a value type changed, without a plugin_abi_version bump, is refused naming the
// interface, instead of crashing at its first call.
//
// The functions have internal linkage (an unnamed namespace), so each library computes the
// fingerprint against the headers it was compiled with, never another library's copy. Not
// seen: a virtual appended after the last one listed here (the host never calls it; only a
// plugin calling it on another library's object would go wrong) and a change of a type's
// layout that keeps its size. Add each new virtual to its list below.

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <typeinfo>

#include "radial/network/basis.hpp"
#include "radial/network/centre_learner.hpp"
#include "radial/core/centres.hpp"
#include "radial/core/dataset.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/network/kernel_prior.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/core/params.hpp"
#include "radial/network/prediction_rule.hpp"
#include "radial/network/refiner.hpp"
#include "radial/plugin/registration.hpp"
#include "radial/network/weight_penalty.hpp"

namespace radial {

// One 64-bit FNV-1a hash per interface, and one for the value types' sizes.
struct InterfaceLayout {
  std::uint64_t basis, centre_learner, output_layer, weight_penalty, kernel_prior, refiner,
      registrar, prediction_rule, value_types;
};

namespace {

inline std::uint64_t layout_mix(std::uint64_t h, const void* bytes, std::size_t count) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  for (std::size_t i = 0; i < count; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

inline std::uint64_t layout_mix(std::uint64_t h, std::uint64_t value) {
  return layout_mix(h, &value, sizeof value);
}

// A virtual member function's representation (Itanium C++ ABI, GCC and clang: the vtable
// offset, flagged, and the this-adjustment; no address) and its type's mangled name.
template <class F>
std::uint64_t layout_of_member(std::uint64_t h, F member) {
  unsigned char words[sizeof(F)];
  std::memcpy(words, &member, sizeof(F));
  h = layout_mix(h, words, sizeof(F));
  const char* type = typeid(F).name();
  return layout_mix(h, type, std::strlen(type));
}

template <class C, class... F>
std::uint64_t layout_of(F... members) {
  std::uint64_t h = layout_mix(14695981039346656037ull, std::uint64_t(sizeof(C)));
  ((h = layout_of_member(h, members)), ...);
  return h;
}

inline InterfaceLayout interface_layout() {
  InterfaceLayout l{};
  l.basis = layout_of<Basis>(
      &Basis::metric, &Basis::prepare, &Basis::map, &Basis::has_log_map, &Basis::log_map,
      &Basis::differentiable, &Basis::map_derivative, &Basis::shapes_trainable,
      &Basis::width_scale_selectable, &Basis::density, &Basis::gaussian_activation,
      &Basis::polynomial, &Basis::state, &Basis::load_state);
  l.centre_learner = layout_of<CentreLearner>(&CentreLearner::fit, &CentreLearner::uses_basis,
                                              &CentreLearner::fit_on_basis);
  l.output_layer = layout_of<OutputLayer>(
      &OutputLayer::selectable, &OutputLayer::least_squares, &OutputLayer::held_out_error,
      &OutputLayer::side_conditions, &OutputLayer::working_memory, &OutputLayer::fit);
  l.weight_penalty = layout_of<WeightPenalty>(
      &WeightPenalty::prepare, &WeightPenalty::penalty, &WeightPenalty::add_gradient,
      &WeightPenalty::add_hessian, &WeightPenalty::add_hessian_product);
  l.kernel_prior = layout_of<KernelPrior>(
      &KernelPrior::kernel_penalty, &KernelPrior::kernel_distances, &KernelPrior::add_mean_terms,
      &KernelPrior::add_mixing_terms);
  l.refiner = layout_of<Refiner>(&Refiner::refine);
  l.registrar = layout_of<Registrar>(
      &Registrar::add_basis, &Registrar::add_centre_learner, &Registrar::add_output_layer,
      &Registrar::add_weight_penalty, &Registrar::add_kernel_prior, &Registrar::add_refiner);
  l.prediction_rule = layout_of<PredictionRule>(
      &PredictionRule::log_domain, &PredictionRule::probabilities, &PredictionRule::outputs,
      &PredictionRule::check, &PredictionRule::predict);
  std::uint64_t v = 14695981039346656037ull;
  for (const std::uint64_t size :
       {sizeof(Centres), sizeof(Dataset), sizeof(FitContext), sizeof(FitReport), sizeof(Warning),
        sizeof(TrainingProblem), sizeof(OutputWeights), sizeof(WorkingMemory),
        sizeof(ComponentInfo), sizeof(ParamSpec), sizeof(Params), sizeof(State),
        sizeof(RefineProblem), sizeof(RefinedNetwork), sizeof(KernelPriorInput),
        sizeof(KernelMeanTerms), sizeof(PolynomialTerm), sizeof(Capabilities)})
    v = layout_mix(v, size);
  l.value_types = v;
  return l;
}

}  // namespace

// The first interface whose hash differs ("Basis (radial/network/basis.hpp)"), or empty.
inline std::string interface_layout_difference(const InterfaceLayout& a, const InterfaceLayout& b) {
  if (a.basis != b.basis) return "Basis (radial/network/basis.hpp)";
  if (a.centre_learner != b.centre_learner) return "CentreLearner (radial/network/centre_learner.hpp)";
  if (a.output_layer != b.output_layer) return "OutputLayer (radial/network/output_layer.hpp)";
  if (a.weight_penalty != b.weight_penalty) return "WeightPenalty (radial/network/weight_penalty.hpp)";
  if (a.kernel_prior != b.kernel_prior) return "KernelPrior (radial/network/kernel_prior.hpp)";
  if (a.refiner != b.refiner) return "Refiner (radial/network/refiner.hpp)";
  if (a.registrar != b.registrar) return "Registrar (radial/plugin/registration.hpp)";
  if (a.prediction_rule != b.prediction_rule) return "PredictionRule (radial/network/prediction_rule.hpp)";
  if (a.value_types != b.value_types)
    return "the value types (Centres, Dataset, FitContext, FitReport, TrainingProblem, ...)";
  return {};
}

}  // namespace radial
