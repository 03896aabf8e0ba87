// Key functions of the abstract interfaces, so their vtables and type information live in the
// framework library.
#include "radial/basis.hpp"
#include "radial/centre_learner.hpp"
#include "radial/errors.hpp"
#include "radial/fingerprint.hpp"
#include "radial/output_layer.hpp"
#include "radial/refiner.hpp"
#include "radial/registry.hpp"

namespace radial {

Basis::~Basis() = default;
void Basis::log_map(Matrix&) const {
  throw Error("this basis has no log map (has_log_map() is false)");
}
void Basis::map_derivative(const Matrix&, const Matrix&, Matrix&) const {
  throw Error("this basis has no derivative (differentiable() is false)");
}
EuclideanBasis::~EuclideanBasis() = default;
CentreLearner::~CentreLearner() = default;
Refiner::~Refiner() = default;
OutputLayer::~OutputLayer() = default;

WorkingMemory OutputLayer::working_memory(std::size_t rows, std::size_t centres,
                                          std::size_t outputs) const {
  const double m1 = double(centres) + 1.0;
  return {8.0 * (4.0 * m1 * m1 + double(rows) * double(outputs)), "a few (M + 1)^2 blocks", ""};
}
WeightPenalty::~WeightPenalty() = default;
KernelPrior::~KernelPrior() = default;
Registrar::~Registrar() = default;

const char* framework_fingerprint() { return RADIAL_BUILD_FINGERPRINT; }

}  // namespace radial
