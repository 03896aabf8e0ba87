#pragma once
// Farthest-point centres (Gonzalez 1985, "Clustering to minimize the maximum intercluster
// distance"): the first centre is a training row drawn at random, each next one the row
// farthest (in Euclidean distance) from the centres chosen so far. Spread over the data,
// outliers included; no shapes, so a basis with a width rule sets the widths from the centres.

#include <cstddef>

#include <radial/network/centre_learner.hpp>
#include <radial/core/option_table.hpp>
#include <radial/sdk/configured.hpp>

namespace farthest_point_plugin {

struct FarthestPointOptions {
  std::size_t count = 8;  // >= 1: farthest_point_table()
};

radial::OptionTable<FarthestPointOptions> farthest_point_table();

class FarthestPointCentres final
    : public radial::sdk::Configured<radial::CentreLearner, FarthestPointOptions> {
 public:
  using Configured::Configured;

  // InputError for fewer distinct rows than centres, and under mpirun (every rank would see
  // only its own rows).
  radial::Centres fit(const radial::Dataset& train, const radial::KernelPrior* prior,
                      radial::FitContext& ctx) override;
};

}  // namespace farthest_point_plugin
