// Key functions of the abstract interfaces, so their vtables and type information live in the
// framework library.
#include "radial/network/basis.hpp"
#include "radial/network/centre_learner.hpp"
#include "radial/network/kernel_prior.hpp"
#include "radial/core/errors.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/network/refiner.hpp"
#include "radial/network/weight_penalty.hpp"

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
Centres CentreLearner::fit_on_basis(const Dataset&, const KernelPrior*, CandidateBasis&,
                                    FitContext& ctx) {
  throw Error("centre learner '" + ctx.component +
              "' has no fit_on_basis() (it is called only when uses_basis() is true)");
}
SupervisedCentreLearner::~SupervisedCentreLearner() = default;
Centres SupervisedCentreLearner::fit(const Dataset&, const KernelPrior*, FitContext& ctx) {
  throw Error("centre learner '" + ctx.component +
              "' chooses columns of the pipeline's design matrix and needs its basis: call "
              "fit_on_basis() with a CandidateBasis (radial/network/candidate_basis.hpp), as the trainer "
              "does");
}
Refiner::~Refiner() = default;
OutputLayer::~OutputLayer() = default;

WorkingMemory OutputLayer::working_memory(std::size_t rows, std::size_t centres,
                                          std::size_t outputs) const {
  const double m1 = double(centres) + 1.0;
  return {8.0 * (4.0 * m1 * m1 + double(rows) * double(outputs)), "a few (M + 1)^2 blocks", ""};
}
WeightPenalty::~WeightPenalty() = default;
void WeightPenalty::prepare(const Centres&, const Basis&) {}
void WeightPenalty::add_hessian_product(const Matrix& weights, const Matrix& direction,
                                        Matrix& product) const {
  if (direction.shape() != weights.shape() || product.shape() != weights.shape())
    throw ShapeError("weight penalty: a Hessian-vector product needs a direction and a product "
                     "shaped as the weights (" + std::to_string(weights.shape(0)) + " x " +
                     std::to_string(weights.shape(1)) + ")");
  const std::size_t p = weights.size();
  Matrix hessian = xt::zeros<double>({p, p});
  add_hessian(weights, hessian);
  for (std::size_t i = 0; i < p; ++i) {
    double sum = 0;
    for (std::size_t j = 0; j < p; ++j) sum += hessian(i, j) * direction.data()[j];
    product.data()[i] += sum;
  }
}
KernelPrior::~KernelPrior() = default;

}  // namespace radial
