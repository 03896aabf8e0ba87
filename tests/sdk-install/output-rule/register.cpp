// The plugin's registration: its prediction rule, then the output layer that uses it.
#include <memory>

#include <radial/sdk/plugin.hpp>
#include <radial/sdk/prediction_rule.hpp>

#include "class_means.hpp"

namespace {

void register_class_means(radial::Registrar& registrar) {
  radial::sdk::add_prediction_rule<class_means_plugin::ProbitRule>("probit");
  radial::ComponentInfo info;
  info.id = "class-means";
  info.version = "1.0.0";
  info.summary = "difference of the class means of phi, read by the plugin's probit rule";
  info.paper = "test plugin of the sdk-install-output-rule test";
  info.params = {
      radial::ParamSpec::real("scale", 1.0, "factor on the difference of the class means")
          .above(0),
  };
  registrar.add_output_layer(std::move(info), [](const radial::Params& params) {
    return std::make_unique<class_means_plugin::ClassMeansOutput>(params);
  });
}

}  // namespace

RADIAL_PLUGIN("class-means", "1.0.0", register_class_means)
