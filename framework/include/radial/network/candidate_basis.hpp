#pragma once
// CandidateBasis: the basis a supervised centre learner chooses centres for (orthogonal least
// squares and its kind, which pick columns of the design matrix). It is the pipeline's own
// basis plugin with the pipeline's parameters -- and, while the trainer chooses
// basis.width_scale, the scale being tried -- so the learner never carries a copy of a kernel
// and the columns it compares are those of the network it will be part of.
//
// Widths. A learner places the basis on its candidate centres (place(): Basis::prepare() on
// them, so a width rule such as "nearest" or "max-distance" is applied to the candidates, and a
// fixed width is the fixed width). The centres it returns are a selection of those placed
// candidates (select_centres), carrying the widths the candidates were given; the trainer then
// prepares the network's basis with width_rule = "shapes" (keep_centre_widths below), so the
// network's design matrix has exactly the columns the learner chose from. A basis of Euclidean
// distances (thin-plate, multiquadric) has no widths: its columns do not depend on the other
// centres at all.
//
// With basis.width_scale = "choose" the trainer fits the centres once per width scale it tries,
// each time with a CandidateBasis of that scale, and scores each (centres, scale) pair by the
// closed-form leave-one-out of its design (framework/src/training/selection.hpp): the width
// choice reaches the learner. A CandidateBasis made outside the trainer (a test, the
// conformance kit) takes any basis factory.

#include <cstddef>
#include <functional>
#include <memory>

#include "radial/network/basis.hpp"
#include "radial/core/centres.hpp"
#include "radial/network/design_matrix.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/core/params.hpp"
#include "radial/core/types.hpp"

namespace radial {

class CandidateBasis {
 public:
  // `make` returns a fresh, unprepared basis with the pipeline's parameters (called once per
  // place()). `threads`: the row-block parallelism of the designs made here.
  explicit CandidateBasis(std::function<std::shared_ptr<Basis>()> make, int threads = 1);
  ~CandidateBasis();
  CandidateBasis(const CandidateBasis&) = delete;
  CandidateBasis& operator=(const CandidateBasis&) = delete;

  // A fresh basis of the pipeline, unprepared (to ask metric(), density() and the like).
  std::shared_ptr<Basis> fresh() const;

  // Places the basis on `candidates` (M_c x d means, shapes if the learner has them): calls
  // Basis::prepare() on them, which sets their widths by the pipeline's width rule and scale.
  // Returns the placed candidates; the learner returns select_centres() of them. Warnings of
  // the basis go to `ctx` (under the learner's name). Throws what prepare() throws.
  const Centres& place(Centres candidates, FitContext& ctx);

  bool placed() const;
  const Centres& candidates() const;  // the placed candidates (ShapeError before place())
  const Basis& basis() const;         // the basis placed on them (ShapeError before place())

  // The design matrix [phi(x; candidates), 1] of `inputs` (N x (M_c + 1), bias column last),
  // in row blocks, under the placed basis: column j is the column centre j adds to the
  // network's design. `inputs` must outlive it. Kept in memory when it fits `cache_bytes`.
  std::unique_ptr<DesignMatrix> design(const Matrix& inputs,
                                       std::size_t cache_bytes = std::size_t(256) << 20) const;

 private:
  std::function<std::shared_ptr<Basis>()> make_;
  int threads_;
  std::shared_ptr<Basis> basis_;
  Centres candidates_;
  bool placed_ = false;
};

// The basis parameters under which a network keeps the widths its centres carry (those a
// CandidateBasis gave them): width_rule = "shapes", width = 0 and width_scale = 1 where the
// parameters declare them (the framework's width table, radial/network/width_rule.hpp); other
// parameters as they are. A basis without a width rule is unchanged.
Params keep_centre_widths(const Params& basis_params);

}  // namespace radial
