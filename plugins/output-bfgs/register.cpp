// Registration of the `bfgs` output layer: its parameter table and factory.
#include <radial/glm/training.hpp>
#include <radial/sdk/plugin.hpp>

#include "bfgs.hpp"

namespace radial::plugins {

RADIAL_PLUGIN_COMPONENT(
    bfgs_id, "1.0.0", Bfgs,
    "Output weights by quasi-Newton BFGS with a strong Wolfe line search",
    "NETLAB quasinew.m; Nocedal & Wright eq. 6.17, algorithms 3.5-3.6; compared with IRLS in "
    "Nabney, papers 000/003, section 4 (start from the pseudo-inverse solution)",
    glm::gradient_trainer_table<BfgsOptions>(
        "cap on quasi-Newton iterations"))

}  // namespace radial::plugins
