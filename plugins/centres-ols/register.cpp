// Registration of the `ols` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "ols_centres.hpp"

namespace radial::plugins {

static auto ols_table() {
  OptionTable<OlsOptions> t;
  add_centre_count(t, &OlsOptions::count,
                   "number of centres M chosen (stop = count), or the most chosen (other stops)");
  t.choice("stop", &OlsOptions::stop,
           {{"count", OlsStop::Count},
            {"goal", OlsStop::Goal},
            {"gcv", OlsStop::Gcv},
            {"loo", OlsStop::Loo}},
           "when the selection stops: count (M centres); goal (the residual mean square <= "
           "goal, as MATLAB's newrb); gcv or loo (the step before generalised "
           "cross-validation or the leave-one-out error first rises, Orr 1995); at most M");
  t.bind("goal", &OlsOptions::goal,
         "stop = goal: the mean squared residual of the (1-of-K) targets to reach")
      .at_least(0.0);
  t.custom(ParamSpec::real("lambda", 0.0,
                           "regularisation of the orthogonal weights (ROLS, Chen, Chng & "
                           "Alkadhimi 1996): the error reduction ratio (w^T d)^2 / ((w^T w + "
                           "lambda) d^T d); 0: OLS (Chen, Cowan & Grant 1991); \"reestimate\": "
                           "after every step lambda moves to where GCV is stationary, by Orr's "
                           "re-estimation formula (Orr 1995), the first centre chosen with 0"),
           [](const OlsOptions& o) {
             return o.reestimate ? ParamValue(std::string("reestimate")) : ParamValue(o.lambda);
           },
           [](const Params& p, OlsOptions& o) {
             o.reestimate = p.is_word("lambda", "reestimate");
             if (!o.reestimate) o.lambda = p.real("lambda");
           })
      .at_least(0.0)
      .or_words({"reestimate"});
  t.bind("candidates", &OlsOptions::candidates,
         "candidate centres: a seeded subset of this many training rows when there are more "
         "(the N x candidates orthogonalised columns are held in memory); 0: every row")
      .at_least(0);
  t.bind("dependence", &OlsOptions::dependence,
         "a candidate whose orthogonalised column keeps less than this fraction of its squared "
         "norm is dependent on those chosen and skipped")
      .at_least(0.0);
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    "ols", "1.0.0", OlsCentres,
    "orthogonal least squares forward selection of centres among training rows, on the "
    "pipeline's design matrix (regularised form; stop by count, error goal, GCV or "
    "leave-one-out)",
    "Chen, Cowan & Grant 1991, Orthogonal least squares learning algorithm for radial basis "
    "function networks, IEEE Trans. Neural Networks 2(2); Chen, Chng & Alkadhimi 1996, "
    "Regularized orthogonal least squares algorithm for constructing radial basis function "
    "networks, Int. J. Control 64(5); Orr 1995, Regularization in the selection of radial "
    "basis function centers, Neural Computation 7(3)",
    ols_table())

}  // namespace radial::plugins
