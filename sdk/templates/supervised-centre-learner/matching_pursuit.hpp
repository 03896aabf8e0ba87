#pragma once
// Kernel matching pursuit (Vincent & Bengio 2002, "Kernel matching pursuit", Machine Learning
// 48, the basic algorithm; Mallat & Zhang 1993 for matching pursuit): the candidates are the
// training rows; each step takes the candidate whose column g_k of the design matrix removes
// the most of the residual r, (g_k^T r)^2 / (g_k^T g_k) summed over the targets, and takes
// that column's least-squares share out of r. An OLS-like supervised learner in a page.
//
// It needs the pipeline's basis, with the widths it will have: it derives from
// radial::SupervisedCentreLearner and gets a radial::CandidateBasis in fit_on_basis(). It
// places the basis on its candidates (the basis's own width rule and scale apply to them),
// reads their columns from the design the basis makes, and returns a selection of the placed
// candidates, whose widths the network keeps. No kernel is written here and the pipeline needs
// no width setting of its own: any [basis] works, and basis.width_scale = "choose" reaches it.

#include <cstddef>

#include <radial/network/candidate_basis.hpp>
#include <radial/network/centre_learner.hpp>
#include <radial/core/option_table.hpp>
#include <radial/sdk/configured.hpp>

namespace matching_pursuit_plugin {

struct MatchingPursuitOptions {
  std::size_t count = 8;  // >= 1: matching_pursuit_table()
};

radial::OptionTable<MatchingPursuitOptions> matching_pursuit_table();

class MatchingPursuitCentres final
    : public radial::sdk::Configured<radial::SupervisedCentreLearner, MatchingPursuitOptions> {
 public:
  using Configured::Configured;

  // InputError for fewer rows than centres, and under mpirun (each rank sees its rows only).
  radial::Centres fit_on_basis(const radial::Dataset& train, const radial::KernelPrior* prior,
                               radial::CandidateBasis& basis, radial::FitContext& ctx) override;
};

}  // namespace matching_pursuit_plugin
