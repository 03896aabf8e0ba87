#pragma once
// The conformance kit's options and findings (radial/sdk/conformance.hpp).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "radial/network/basis.hpp"
#include "radial/network/centre_learner.hpp"
#include "radial/core/dataset.hpp"
#include "radial/network/design_matrix.hpp"
#include "radial/core/errors.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/model/model_store.hpp"
#include "radial/numerics/distances.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/network/prediction_rule.hpp"
#include "radial/core/params.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/network/kernel_prior.hpp"
#include "radial/network/weight_penalty.hpp"

namespace radial::conformance {

struct Options {
  std::uint64_t seed = 20240917;
  // Given to validate_params before the defaults: values for required parameters, or a
  // configuration other than the defaults to put through the same checks.
  std::map<std::string, ParamValue> params;
  // The generated classification data: two overlapping Gaussian classes.
  std::size_t rows_per_class = 40;
  std::size_t features = 2;
  // Weight penalties: |analytic - finite difference| <= tolerance * (1 + |finite difference|);
  // a basis's map_derivative: <= tolerance * (|finite difference| + 1e-6 max |finite difference|).
  double derivative_tolerance = 1e-5;
};

struct Finding {
  std::string check;    // e.g. "basis/state-round-trip"
  std::string message;  // what was wrong, with numbers
};

struct Report {
  std::string id;
  Slot slot = Slot::Basis;
  std::vector<std::string> checks;  // every check that ran
  std::vector<Finding> findings;    // the ones that failed

  bool ok() const { return findings.empty() && !checks.empty(); }
  bool failed(const std::string& check) const {
    for (const auto& finding : findings) {
      if (finding.check == check) return true;
    }
    return false;
  }
  std::string str() const {
    std::ostringstream out;
    out << to_string(slot) << " plugin '" << id << "': " << checks.size() << " checks, "
        << findings.size() << " failed";
    for (const auto& finding : findings) out << "\n  " << finding.check << ": " << finding.message;
    return out.str();
  }
};

}  // namespace radial::conformance
