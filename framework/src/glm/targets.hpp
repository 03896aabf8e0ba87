#pragma once
// targets_for (radial/network/output_layer.hpp) in row blocks, so an objective can read the targets of
// a block from the class indices or values without an N x K matrix in memory.

#include <cstddef>

#include "radial/core/dataset.hpp"
#include "radial/network/link.hpp"

namespace radial::glm::detail {

// Columns of targets_for(link, data); throws as targets_for does when the link does not fit.
std::size_t target_columns(Link link, const Dataset& data);

// Rows [first, first + count) of targets_for(link, data), row-major into `out`
// (count x target_columns). The link must have passed target_columns.
void fill_targets(Link link, const Dataset& data, std::size_t first, std::size_t count,
                  double* out);

}  // namespace radial::glm::detail
