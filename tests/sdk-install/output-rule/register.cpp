// The plugin's registration: its prediction rule, then the output layer that uses it.
#include <radial/sdk/plugin.hpp>
#include <radial/sdk/prediction_rule.hpp>

#include "class_means.hpp"

namespace {

void register_class_means(radial::Registrar& registrar) {
  radial::sdk::add_prediction_rule<class_means_plugin::ProbitRule>("probit");
  using namespace class_means_plugin;
  registrar.add_output_layer(
      radial::sdk::describe(
          "difference of the class means of phi, read by the plugin's probit rule",
          "test plugin of the sdk-install-output-rule test",
          class_means_table()),
      radial::sdk::from_table<ClassMeansOutput>(class_means_table()));
}

}  // namespace

RADIAL_PLUGIN("class-means", "1.0.0", register_class_means)
