// `radial inspect MODEL`: what a model file holds, without loading any plugin.
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "radial/io/output_file.hpp"
#include "radial/model/model_store.hpp"

namespace radial::cli {
namespace {

// Text stored in a model, as printed: control bytes (escape sequences that would drive the
// terminal) and DEL become \xHH; a model file may come from anyone (docs/model-files.md).
std::string shown(const std::string& text) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if ((byte < 0x20 && ch != '\t') || byte == 0x7f) {
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 0xf];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

int inspect_command(const std::string& file) {
  std::ostringstream out;  // written at once, so a failed write is seen (write_stdout)
  const Model m = load_model(file);
  const Centres& c = m.centres;
  out << "model: " << file << "\n"
      << "  format: " << model_format_version << ", written by radial " << shown(m.radial_version) << "\n"
      << "  task: " << (m.task == Task::Classification ? "classification" : "regression")
      << ", target '" << shown(m.target_name) << "'\n"
      << "  features (" << m.feature_names.size() << "):";
  for (const auto& f : m.feature_names) out << " " << shown(f);
  out << "\n";
  if (m.task == Task::Classification) {
    out << "  classes (" << m.class_values.size() << "):";
    if (m.class_names.empty())
      for (double v : m.class_values) out << " " << v;
    else
      for (const auto& name : m.class_names) out << " \"" << shown(name) << "\"";
    out << "\n";
  }
  for (const NominalInput& n : m.input_coding.nominal) {
    out << "  nominal input '" << shown(m.input_coding.raw_names.at(n.column)) << "' ("
        << n.categories.size() << " categories):";
    for (const auto& category : n.categories) out << " \"" << shown(category) << "\"";
    out << "\n";
  }
  out << "  standardised: " << (m.standardize ? "yes" : "no") << "\n"
      << "  centres: " << c.count() << " in " << c.dim() << " dimensions, shape "
      << to_string(c.shape) << (c.has_mixing() ? ", with mixing weights" : "") << "\n"
      << "  basis: " << shown(m.basis_id);
  for (const auto& [k, v] : m.basis_params) out << " " << shown(k) << "=" << shown(to_string(v));
  out << "\n  output: " << shown(m.output_id) << ", link " << to_string(m.link);
  if (m.weights.size()) out << ", weights " << m.weights.shape(0) << " x " << m.weights.shape(1);
  out << "\n  seed: " << m.seed << "\n  plugins:";
  for (const auto& [id, v] : m.plugin_versions) out << " " << shown(id) << "@" << shown(v);
  out << "\n  pipeline:\n";
  std::string line;
  for (char ch : m.pipeline_text) {
    if (ch == '\n') { out << "    " << shown(line) << "\n"; line.clear(); }
    else line += ch;
  }
  if (!line.empty()) out << "    " << shown(line) << "\n";
  write_stdout(out.str());
  return 0;
}

}  // namespace radial::cli
