#pragma once
// `radial train ... --plots DIR`: the run's learning curve (DIR/STEM.learning-curve.svg) and,
// when the model draws, its decision regions (two-feature classification,
// DIR/STEM.decision-regions.svg) or its fitted curve (one-input regression,
// DIR/STEM.fitted-curve.svg), STEM being the pipeline file's stem. The folder and gnuplot
// are checked before training; the images are rendered before anything is committed.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../outputs.hpp"
#include "radial/io/output_file.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/training/trainer.hpp"

namespace radial::cli {

class TrainPlots {
 public:
  // InputError (exit 2) for a folder that is missing or not writable, or no gnuplot on PATH.
  TrainPlots(const std::string& folder, const Pipeline& pipeline, const std::vector<NamedFile>& inputs,
             const std::vector<NamedOutput>& outputs);
  // Draws what the run allows into pending outputs; notes on `log` what it skipped and why.
  void render(const Registry& registry, const Pipeline& pipeline, const TrainingResult& result,
              bool quiet);
  // Commits the pending images; returns their names.
  std::vector<std::string> commit();

 private:
  std::string curve_name_, regions_name_, fitted_name_;
  OutputTarget curve_target_, regions_target_, fitted_target_;
  std::vector<std::pair<std::string, std::unique_ptr<PendingOutput>>> pending_;
};

}  // namespace radial::cli
