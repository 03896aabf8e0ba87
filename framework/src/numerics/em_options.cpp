#include "radial/numerics/mixture_em.hpp"
#include "radial/params.hpp"

namespace radial {

EmOptions em_options(const Params& params, Shape shape, const std::string& prefix) {
  EmOptions em;
  em.shape = shape;
  em.iterations = std::size_t(params.integer(prefix + "iterations"));
  em.tolerance = params.real(prefix + "tolerance");
  em.covariance_floor = params.real("covariance_floor");
  em.use_tree = kdtree_enabled(params);
  em.tree = kdtree_options(params);
  return em;
}

}  // namespace radial
