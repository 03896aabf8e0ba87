#pragma once
// A classification dataset of given class labels, for the tests of splits and folds. In-tree
// only (not installed), like paths.hpp.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "radial/core/dataset.hpp"

namespace radial::testing {

// Row i has the one input i and class classes[i], of k classes.
inline Dataset labelled(const std::vector<std::int64_t>& classes, std::size_t k) {
  Dataset d;
  d.inputs = Matrix::from_shape({classes.size(), 1});
  d.classes = Labels::from_shape({classes.size()});
  for (std::size_t i = 0; i < classes.size(); ++i) {
    d.inputs(i, 0) = double(i);
    d.classes(i) = classes[i];
  }
  d.num_classes = k;
  return d;
}

}  // namespace radial::testing
