// Registration of the `kmeans` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "kmeans_centres.hpp"

namespace radial::plugins {

KMeansOptions kmeans_centres_options(const Params& params) {
  KMeansOptions options;
  options.count = centre_count(params);  // 0: auto_centre_count of the rows, in fit()
  options.init = params.string("init");
  options.iterations = static_cast<std::size_t>(params.integer("iterations"));
  options.tolerance = params.real("tolerance");
  return options;
}

namespace {

void register_kmeans(Registrar& registrar) {
  registrar.add_centre_learner(
      sdk::describe(
          "k-means centres (Lloyd) with spherical widths from the cluster spread",
          "Lecture notes on RBF networks (paper 001): 'k-Means Algorithm' and 'RBF Network Using "
          "k-Means'; Nabney (papers 000/003) k-means centres; Arthur & Vassilvitskii 2007 "
          "(k-means++)",
          {
              centre_count_param("number of centres M (clusters)"),
              ParamSpec::choice("init", "kmeans++", {"kmeans++", "random"},
                                "initial centres: D^2 sampling (kmeans++) or distinct random "
                                "training rows"),
              ParamSpec::integer("iterations", 100, "maximum number of Lloyd iterations")
                  .at_least(1),
              ParamSpec::real("tolerance", 1e-4,
                              "stop when no centre moves more than tolerance x the data scale "
                              "(root mean feature variance); 0 runs exactly `iterations`")
                  .at_least(0.0),
          }),
      sdk::from_options<KMeansCentres>(kmeans_centres_options));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN("kmeans", "1.0.0", radial::plugins::register_kmeans)
