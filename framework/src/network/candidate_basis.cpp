// The pipeline's basis placed on a supervised centre learner's candidates (candidate_basis.hpp).
#include "radial/network/candidate_basis.hpp"

#include <string>
#include <utility>

#include "radial/core/errors.hpp"

namespace radial {

CandidateBasis::CandidateBasis(std::function<std::shared_ptr<Basis>()> make, int threads)
    : make_(std::move(make)), threads_(threads) {
  if (!make_) throw Error("CandidateBasis: no basis factory given");
}

CandidateBasis::~CandidateBasis() = default;

std::shared_ptr<Basis> CandidateBasis::fresh() const {
  std::shared_ptr<Basis> basis = make_();
  if (!basis) throw Error("CandidateBasis: the basis factory returned no basis");
  return basis;
}

const Centres& CandidateBasis::place(Centres candidates, FitContext& ctx) {
  placed_ = false;
  basis_ = fresh();
  basis_->prepare(candidates, ctx);  // the width rule and scale, applied to the candidates
  candidates.check();
  candidates_ = std::move(candidates);
  placed_ = true;
  return candidates_;
}

bool CandidateBasis::placed() const { return placed_; }

const Centres& CandidateBasis::candidates() const {
  if (!placed_) throw ShapeError("CandidateBasis: place() the candidates first");
  return candidates_;
}

const Basis& CandidateBasis::basis() const {
  if (!placed_) throw ShapeError("CandidateBasis: place() the candidates first");
  return *basis_;
}

std::unique_ptr<DesignMatrix> CandidateBasis::design(const Matrix& inputs,
                                                     std::size_t cache_bytes) const {
  if (!placed_) throw ShapeError("CandidateBasis: place() the candidates before design()");
  if (inputs.dimension() != 2 || inputs.shape(1) != candidates_.dim())
    throw ShapeError("CandidateBasis: inputs of " +
                     std::to_string(inputs.dimension() == 2 ? inputs.shape(1) : 0) +
                     " columns for candidates of dimension " + std::to_string(candidates_.dim()));
  auto design = std::make_unique<DesignMatrix>(inputs, candidates_, *basis_, false, cache_bytes);
  design->set_threads(threads_);
  return design;
}

Params keep_centre_widths(const Params& basis_params) {
  Params kept = basis_params;
  if (kept.has("width_rule")) kept.set("width_rule", std::string("shapes"));
  if (kept.has("width")) kept.set("width", 0.0);
  if (kept.has("width_scale")) kept.set("width_scale", 1.0);
  return kept;
}

}  // namespace radial
