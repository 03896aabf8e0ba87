#pragma once
// Centres read from a CSV file, for experiments that share a basis with another tool (e.g.
// NETLAB's centres and widths) or fix the centres by hand.
//
// Format: a header row, then one centre per row. Every column except one named `variance` is an
// input feature, matched to the data's features by position (the count must equal the data's);
// the optional `variance` column gives each centre a spherical Gaussian variance
// (Shape::Spherical), otherwise the centres have no shape and the basis sets the widths.
// The centres are used as written, in the space the learner sees: with [data] standardize =
// true that is the standardised space.

#include <filesystem>
#include <string>

#include "radial/network/centre_learner.hpp"
#include "radial/core/params.hpp"

namespace radial::plugins {

struct FixedCentresOptions {
  // Absolute (the pipeline reader resolves it relative to the pipeline file).
  std::string file;
};

class FixedCentres final : public CentreLearner {
 public:
  explicit FixedCentres(FixedCentresOptions options) : file_(std::move(options.file)) {}

  // Reads the file. InputError naming file:line:column for an unreadable file, a missing
  // header, a ragged row, a cell that is not a finite number, a variance <= 0, no centres, or
  // a feature count different from the data's.
  Centres fit(const Dataset& train, const KernelPrior* prior, FitContext& ctx) override;

 private:
  std::filesystem::path file_;
};

// The parser, separately so that tests can reach it: `features` is the data's feature count.
Centres read_centres_csv(const std::filesystem::path& file, std::size_t features);

}  // namespace radial::plugins
