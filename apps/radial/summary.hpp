#pragma once
// The short human summary `radial train` prints when stdout is a terminal (instead of the JSON
// report, which stays available with --json or --report FILE): the data, each stage's plugin
// with its iterations and time, train/test/CV errors, and the warnings with their settings.

#include <string>
#include <vector>

#include "radial/training/trainer.hpp"

namespace radial::cli {

// `written`: lines such as "model  m.model" for the files the run wrote.
std::string training_summary(const TrainingReport& report, const std::vector<std::string>& written);

}  // namespace radial::cli
