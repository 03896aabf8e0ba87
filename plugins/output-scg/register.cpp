// Registration of the `scg` output layer: its parameter table and factory.
#include <radial/glm/training.hpp>
#include <radial/sdk/plugin.hpp>

#include "scg.hpp"

namespace radial::plugins {

RADIAL_PLUGIN_COMPONENT(
    scg_id, "1.0.0", Scg,
    "Output weights by Moller's scaled conjugate gradient (NETLAB scg)",
    "Moller 1993 / Bishop 1995 section 7.9 (NETLAB scg.m); compared with IRLS in Nabney, "
    "papers 000/003, section 4 (start from the pseudo-inverse solution)",
    glm::gradient_trainer_table<ScgOptions>("cap on SCG iterations"))

}  // namespace radial::plugins
