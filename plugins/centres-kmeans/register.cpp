// Registration of the `kmeans` centre learner: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "kmeans_centres.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.summary = "k-means centres (Lloyd) with spherical widths from the cluster spread";
  info.paper =
      "Lecture notes on RBF networks (paper 001): 'k-Means Algorithm' and 'RBF Network Using "
      "k-Means'; Nabney (papers 000/003) k-means centres; Arthur & Vassilvitskii 2007 "
      "(k-means++)";
  info.params = {
      radial::ParamSpec::integer("count", 8, "number of centres M (clusters)").at_least(1),
      radial::ParamSpec::choice("init", "kmeans++", {"kmeans++", "random"},
                                "initial centres: D^2 sampling (kmeans++) or distinct random "
                                "training rows"),
      radial::ParamSpec::integer("iterations", 100, "maximum number of Lloyd iterations")
          .at_least(1),
      radial::ParamSpec::real("tolerance", 1e-4,
                              "stop when no centre moves more than tolerance x the data scale "
                              "(root mean feature variance); 0 runs exactly `iterations`")
          .at_least(0.0),
  };
  return info;
}

void register_kmeans(radial::Registrar& registrar) {
  registrar.add_centre_learner(info(), [](const radial::Params& params) {
    using namespace radial::plugins;
    return std::make_unique<KMeansCentres>(kmeans_centres_options(params));
  });
}

}  // namespace

namespace radial::plugins {

KMeansOptions kmeans_centres_options(const Params& params) {
  KMeansOptions options;
  options.count = static_cast<std::size_t>(params.integer("count"));
  options.init = params.string("init");
  options.iterations = static_cast<std::size_t>(params.integer("iterations"));
  options.tolerance = params.real("tolerance");
  return options;
}

}  // namespace radial::plugins

RADIAL_PLUGIN("kmeans", "1.0.0", register_kmeans)
