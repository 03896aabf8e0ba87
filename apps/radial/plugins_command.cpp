// `radial plugins list` and `radial plugins show ID`: driven by each plugin's declared
// parameter table, the same table that validates pipeline files.
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "radial/io/output_file.hpp"
#include "radial/core/errors.hpp"
#include "radial/core/params.hpp"

namespace radial::cli {

int plugins_list_command(const Registry& registry) {
  std::ostringstream out;  // written at once, so a failed write is seen (write_stdout)
  const auto components = registry.components();
  // Libraries of the search path that did not load: listed with their file and why, so a stale
  // one is found here while every other command runs without it.
  std::ostringstream failed;
  for (const PluginLoadFailure& f : registry.load_failures())
    failed << "not loaded: " << f.file.string() << "\n  " << f.message << "\n";
  if (components.empty()) {
    if (!failed.str().empty()) write_stdout(failed.str());
    std::cerr << "radial: no plugins found; searched:";
    for (const auto& dir : Registry::search_path()) std::cerr << " " << dir.string();
    std::cerr << "\n";
    return 0;
  }
  out << std::left << std::setw(16) << "SLOT" << std::setw(24) << "ID" << std::setw(9)
      << "VERSION" << "SUMMARY\n";
  for (const ComponentInfo* c : components) {
    out << std::left << std::setw(16) << to_string(c->slot) << std::setw(24) << c->id
        << std::setw(9) << c->version << c->summary << "\n";
  }
  if (!failed.str().empty()) out << "\n" << failed.str();
  write_stdout(out.str());
  return 0;
}

namespace {

// A table cell: a literal | would end the cell.
std::string cell(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

// The component's parameters as a Markdown table, or "No parameters."
std::string param_table_markdown(const ComponentInfo& c) {
  if (c.params.empty()) return "No parameters.\n";
  std::ostringstream out;
  out << "| parameter | type and range | default | meaning |\n|---|---|---|---|\n";
  for (const ParamSpec& p : c.params) {
    out << "| `" << p.name << "` | " << cell(p.describe_constraint()) << " | "
        << (p.required ? std::string("required") : "`" + to_string(p.default_value) + "`")
        << " | " << cell(p.doc) << " |\n";
  }
  return out.str();
}

// What the trainer reads of the component at its default parameters (Capabilities, declared
// at registration), and which parameters its selection may choose (ParamRole); empty when
// there is nothing to say or a required parameter has no default.
std::string capabilities_text(const Registry& registry, const ComponentInfo& c) {
  std::vector<std::string> said;
  try {
    const Capabilities k =
        registry.capabilities(c.slot, c.id, validate_params(c.params, {}, "plugin " + c.id));
    const std::pair<bool, const char*> flags[] = {
        {c.slot == Slot::Basis && k.density, "a density (normalised kernel)"},
        {c.slot == Slot::Basis && k.gaussian_activation, "Gaussian activations"},
        {c.slot == Slot::Basis && k.width_scale_selectable, "a width scale the trainer may choose"},
        {c.slot == Slot::Centres && k.uses_basis, "chooses its centres under the basis"},
        {c.slot == Slot::Output && k.selectable, "weights the selection may score"},
        {c.slot == Slot::Output && k.least_squares, "least squares"},
        {c.slot == Slot::Output && k.side_conditions, "a polynomial term's side conditions"}};
    for (const auto& [has, text] : flags)
      if (has) said.emplace_back(text);
  } catch (const Error&) {
    return "";  // a required parameter: no default instance to describe
  }
  const std::pair<ParamRole, const char*> roles[] = {
      {ParamRole::WidthScale, "width scale"},
      {ParamRole::CentreCount, "centre count"},
      {ParamRole::RidgeStrength, "ridge strength"},
      {ParamRole::PenaltyStrength, "penalty strength (not a ridge)"}};
  for (const auto& [role, text] : roles)
    if (const ParamSpec* spec = find_role(c.params, role))
      said.push_back(spec->name + " is its " + text);
  std::string joined;
  for (const std::string& s : said) joined += (joined.empty() ? "" : "; ") + s;
  return joined;
}

}  // namespace

int plugins_show_command(const Registry& registry, const std::string& id, bool markdown) {
  std::ostringstream out;  // written at once, so a failed write is seen (write_stdout)
  const ComponentInfo* found = nullptr;
  std::vector<std::string> all;
  for (const ComponentInfo* c : registry.components()) {
    all.push_back(c->id);
    if (c->id == id) found = c;
  }
  if (!found) {
    const std::string guess = did_you_mean(id, all);
    throw InputError("no plugin '" + id + "'" + (guess.empty() ? "" : " (did you mean '" + guess + "'?)") +
                     "; `radial plugins list` shows them all");
  }
  const ComponentInfo& c = *found;
  if (markdown) {
    write_stdout(param_table_markdown(c));
    return 0;
  }
  out << c.id << " " << c.version << " (" << to_string(c.slot) << ")\n"
      << "  " << c.summary << "\n"
      << "  paper: " << c.paper << "\n"
      << "  library: " << c.library << "\n";
  if (const std::string k = capabilities_text(registry, c); !k.empty())
    out << "  capabilities: " << k << "\n";
  if (c.params.empty()) {
    out << "  parameters: none\n";
    write_stdout(out.str());
    return 0;
  }
  out << "  parameters:\n";
  for (const ParamSpec& p : c.params) {
    out << "    " << p.name << " (" << p.describe_constraint() << ")";
    if (p.required) out << ", required";
    else out << ", default " << to_string(p.default_value);
    out << "\n      " << p.doc << "\n";
  }
  write_stdout(out.str());
  return 0;
}

int plugins_markdown_command(const Registry& registry) {
  std::ostringstream out;  // written at once, so a failed write is seen (write_stdout)
  out << "# Plugin reference\n\n"
               "Generated from each plugin's declared parameter table by `radial plugins markdown`;\n"
               "the same tables validate pipeline files. Do not edit by hand.\n";
  const char* slot_names[] = {"Bases", "Centre learners", "Output layers", "Weight penalties",
                              "Kernel priors", "Refiners"};
  for (Slot slot : all_slots) {
    out << "\n## " << slot_names[static_cast<int>(slot)] << " (`[" << to_string(slot) << "]`)\n";
    for (const ComponentInfo* c : registry.components()) {
      if (c->slot != slot) continue;
      out << "\n### `" << c->id << "` " << c->version << "\n\n" << c->summary << "\n\n"
          << "Source: " << c->paper << "\n\n"
          << param_table_markdown(*c);
    }
  }
  write_stdout(out.str());
  return 0;
}

}  // namespace radial::cli
