// `radial inspect MODEL`: what a model file holds, without loading any plugin.
#include <iostream>

#include "commands.hpp"
#include "radial/model_store.hpp"

namespace radial::cli {

int inspect_command(const std::string& file) {
  const Model m = load_model(file);
  const Centres& c = m.centres;
  std::cout << "model: " << file << "\n"
            << "  format: " << model_format_version << ", written by radial " << m.radial_version << "\n"
            << "  task: " << (m.task == Task::Classification ? "classification" : "regression")
            << ", target '" << m.target_name << "'\n"
            << "  features (" << m.feature_names.size() << "):";
  for (const auto& f : m.feature_names) std::cout << " " << f;
  std::cout << "\n";
  if (m.task == Task::Classification) {
    std::cout << "  classes (" << m.class_values.size() << "):";
    for (double v : m.class_values) std::cout << " " << v;
    std::cout << "\n";
  }
  std::cout << "  standardised: " << (m.standardize ? "yes" : "no") << "\n"
            << "  centres: " << c.count() << " in " << c.dim() << " dimensions, shape "
            << to_string(c.shape) << (c.has_mixing() ? ", with mixing weights" : "") << "\n"
            << "  basis: " << m.basis_id;
  for (const auto& [k, v] : m.basis_params) std::cout << " " << k << "=" << to_string(v);
  std::cout << "\n  output: " << m.output_id << ", link " << to_string(m.link);
  if (m.weights.size()) std::cout << ", weights " << m.weights.shape(0) << " x " << m.weights.shape(1);
  std::cout << "\n  seed: " << m.seed << "\n  plugins:";
  for (const auto& [id, v] : m.plugin_versions) std::cout << " " << id << "@" << v;
  std::cout << "\n  pipeline:\n";
  std::string line;
  for (char ch : m.pipeline_text) {
    if (ch == '\n') { std::cout << "    " << line << "\n"; line.clear(); }
    else line += ch;
  }
  if (!line.empty()) std::cout << "    " << line << "\n";
  return 0;
}

}  // namespace radial::cli
