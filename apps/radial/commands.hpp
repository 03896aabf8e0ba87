#pragma once
// The sub-commands of the `radial` host. Each returns the process exit code; errors are thrown
// as radial exceptions and mapped to exit codes in main.cpp (2: bad input, 1: internal failure).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "radial/registry.hpp"

namespace radial::cli {

struct TrainArgs {
  std::string pipeline;
  std::vector<std::string> overrides;
  std::string model, report;
  std::optional<std::uint64_t> seed;
  std::optional<int> threads;
  bool quiet = false;
};

struct PredictArgs {
  std::string model, data, output;
  bool probabilities = false;
};

struct EvaluateArgs {
  std::string model, data, report;
};

int train_command(const Registry& registry, const TrainArgs& args);
int validate_command(const Registry& registry, const std::string& pipeline,
                     const std::vector<std::string>& overrides);
int predict_command(const Registry& registry, const PredictArgs& args);
int evaluate_command(const Registry& registry, const EvaluateArgs& args);
int inspect_command(const std::string& model);
int plugins_list_command(const Registry& registry);
int plugins_show_command(const Registry& registry, const std::string& id);

// Writes `text` to `file` atomically, or to stdout when `file` is empty.
void emit(const std::string& text, const std::string& file);

}  // namespace radial::cli
