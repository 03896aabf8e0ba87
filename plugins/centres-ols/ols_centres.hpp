#pragma once
// `ols`: centres chosen among training rows by orthogonal least squares forward selection on
// the pipeline's own design matrix (Chen, Cowan & Grant 1991; regularised, Chen, Chng &
// Alkadhimi 1996; stopped by a count, an error goal as MATLAB's newrb, GCV or leave-one-out as
// Orr 1995). See forward_selection.hpp for the algorithm and README.md for the equations.
//
// A supervised learner (SupervisedCentreLearner): the trainer hands it the pipeline's basis
// (radial/network/candidate_basis.hpp), which it places on its candidates -- the training rows, or a
// seeded subset of `candidates` of them -- so the widths are those the basis's rule and scale
// give the candidates, and the network keeps them.

#include <cstddef>

#include <radial/network/candidate_basis.hpp>
#include <radial/network/centre_learner.hpp>
#include <radial/sdk/configured.hpp>

#include "forward_selection.hpp"

namespace radial::plugins {

struct OlsOptions {
  std::size_t count = 0;  // 0: "auto" (auto_centre_count); the most centres under other stops
  OlsStop stop = OlsStop::Count;
  double goal = 0;
  double lambda = 0;
  bool reestimate = false;  // lambda = "reestimate"
  std::size_t candidates = 2000;  // 0: every training row
  double dependence = 1e-10;
};

class OlsCentres final : public sdk::Configured<SupervisedCentreLearner, OlsOptions> {
 public:
  using Configured::Configured;

  // Throws InputError for no rows, missing inputs, more centres than candidates, or candidate
  // columns that would not fit in memory. Sharded (mpirun), each rank holds its rows' part.
  Centres fit_on_basis(const Dataset& train, const KernelPrior* prior, CandidateBasis& basis,
                       FitContext& ctx) override;
};

}  // namespace radial::plugins
