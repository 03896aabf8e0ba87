// Registration of the `kmeans` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "kmeans_centres.hpp"

namespace radial::plugins {

static auto kmeans_table() {
  KMeansOptions defaults;
  defaults.count = 0;  // "auto": auto_centre_count of the rows, in fit()
  defaults.sample_per_centre = 32;
  defaults.sample_iterations = 25;
  defaults.inertia_tolerance = KMeansCentres::auto_inertia;
  OptionTable<KMeansOptions> t(defaults);
  add_centre_count(t, &KMeansOptions::count, "number of centres M (clusters)");
  t.choice("init", &KMeansOptions::init, {"kmeans++", "random"},
           "initial centres: D^2 sampling (kmeans++) or distinct random training rows");
  t.bind("iterations", &KMeansOptions::iterations, "maximum number of Lloyd iterations")
      .at_least(1);
  t.bind("sample_per_centre", &KMeansOptions::sample_per_centre,
         "Lloyd iterations on a seeded sample of about this many rows per centre (at least "
         "200,000 rows) when the data have more than twice that many, then one Lloyd update on "
         "every row; 0: every row")
      .at_least(0);
  t.bind("sample_iterations", &KMeansOptions::sample_iterations,
         "the most Lloyd iterations on that sample (also at most `iterations`): late ones "
         "settle rows flipping between small neighbouring clusters; 0: `iterations`")
      .at_least(0);
  add_tolerance(t, &KMeansOptions::tolerance,
                "stop when no centre moves more than tolerance x the data scale (root mean "
                "feature variance)");
  ParamSpec inertia = ParamSpec::real(
      "inertia_tolerance", 0.0,
      "also stop when an iteration lowers the inertia (the rows' squared distances to their "
      "centres) by at most this fraction of it; 0: only `tolerance` stops Lloyd; \"auto\" (the "
      "default): 0.01 with the auto count, 0 with a count given");
  inertia.at_least(0).or_words({"auto"});
  inertia.default_value = std::string("auto");
  t.custom(
      std::move(inertia),
      [](const KMeansOptions& o) {
        return o.inertia_tolerance < 0 ? ParamValue(std::string("auto"))
                                       : ParamValue(o.inertia_tolerance);
      },
      [](const Params& p, KMeansOptions& o) {
        o.inertia_tolerance = p.is_word("inertia_tolerance", "auto")
                                  ? KMeansCentres::auto_inertia
                                  : p.real("inertia_tolerance");
      });
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    "kmeans", "1.0.0", KMeansCentres,
    "k-means centres (Lloyd) with spherical widths from the cluster spread",
    "Lecture notes on RBF networks (paper 001): 'k-Means Algorithm' and 'RBF Network Using "
    "k-Means'; Nabney (papers 000/003) k-means centres; Arthur & Vassilvitskii 2007 "
    "(k-means++)",
    kmeans_table())

}  // namespace radial::plugins
