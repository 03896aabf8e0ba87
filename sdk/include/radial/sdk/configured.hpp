#pragma once
// The SDK's constructor convention as a base class: a component is made from its options struct
// (read from validated Params by the plugin's x_options function) and its constructor only
// stores it, scikit-learn's habit: the work happens in fit() or prepare().
//
//   class KMeansCentres final : public radial::sdk::Configured<radial::CentreLearner, KMeansOptions> {
//    public:
//     using Configured::Configured;
//     Centres fit(const Dataset& train, const KernelPrior* prior, FitContext& ctx) override;
//   };

#include <utility>

namespace radial::sdk {

template <class Interface, class Options>
class Configured : public Interface {
 public:
  explicit Configured(Options options) : options_(std::move(options)) {}

 protected:
  Options options_;
};

}  // namespace radial::sdk
