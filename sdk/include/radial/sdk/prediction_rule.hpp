#pragma once
// A plugin's own prediction rule (radial/network/prediction_rule.hpp): an output layer whose outputs are
// not one of the framework's rules (identity, logistic, softmax, bayes) registers its rule from
// the plugin's register function and returns radial::Link("<name>") from fit():
//
//   static void register_components(radial::Registrar& r) {
//     radial::sdk::add_prediction_rule<SquaredSoftmaxRule>("squared-softmax");
//     r.add_output_layer(info(), [](const radial::Params& p) { ... });
//   }
//
// The rule object lives in the plugin library and is registered for as long as the library is
// loaded: its static destructor, run when the library is unloaded, removes the registration.
// Models that use the rule need the plugin installed to be read back and to predict.

#include <string>

#include "radial/network/prediction_rule.hpp"

namespace radial::sdk {

// Registers one default-constructed Rule under `name` (one name per Rule type). Throws Error
// when the name is already taken by another rule.
template <class Rule>
void add_prediction_rule(const char* name) {
  struct Registration {
    explicit Registration(const char* n) : name(n) { register_prediction_rule(name, rule); }
    ~Registration() { unregister_prediction_rule(name, rule); }
    Rule rule;
    std::string name;
  };
  static const Registration registration(name);
  (void)registration;
}

}  // namespace radial::sdk
