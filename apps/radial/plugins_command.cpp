// `radial plugins list` and `radial plugins show ID`: driven by each plugin's declared
// parameter table, the same table that validates pipeline files.
#include <iomanip>
#include <iostream>

#include "commands.hpp"
#include "radial/errors.hpp"

namespace radial::cli {

int plugins_list_command(const Registry& registry) {
  const auto components = registry.components();
  if (components.empty()) {
    std::cerr << "radial: no plugins found; searched:";
    for (const auto& dir : Registry::search_path()) std::cerr << " " << dir.string();
    std::cerr << "\n";
    return 0;
  }
  std::cout << std::left << std::setw(13) << "SLOT" << std::setw(24) << "ID" << std::setw(9)
            << "VERSION" << "SUMMARY\n";
  for (const ComponentInfo* c : components) {
    std::cout << std::left << std::setw(13) << to_string(c->slot) << std::setw(24) << c->id
              << std::setw(9) << c->version << c->summary << "\n";
  }
  return 0;
}

int plugins_show_command(const Registry& registry, const std::string& id) {
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
  std::cout << c.id << " " << c.version << " (" << to_string(c.slot) << ")\n"
            << "  " << c.summary << "\n"
            << "  paper: " << c.paper << "\n"
            << "  library: " << c.library << "\n";
  if (c.params.empty()) {
    std::cout << "  parameters: none\n";
    return 0;
  }
  std::cout << "  parameters:\n";
  for (const ParamSpec& p : c.params) {
    std::cout << "    " << p.name << " (" << p.describe_constraint() << ")";
    if (p.required) std::cout << ", required";
    else std::cout << ", default " << to_string(p.default_value);
    std::cout << "\n      " << p.doc << "\n";
  }
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

}  // namespace

int plugins_markdown_command(const Registry& registry) {
  std::cout << "# Plugin reference\n\n"
               "Generated from each plugin's declared parameter table by `radial plugins markdown`;\n"
               "the same tables validate pipeline files. Do not edit by hand.\n";
  const char* slot_names[] = {"Bases", "Centre learners", "Output layers", "Regularizers"};
  for (Slot slot : {Slot::Basis, Slot::Centres, Slot::Output, Slot::Regularizer}) {
    std::cout << "\n## " << slot_names[static_cast<int>(slot)] << " (`[" << to_string(slot) << "]`)\n";
    for (const ComponentInfo* c : registry.components()) {
      if (c->slot != slot) continue;
      std::cout << "\n### `" << c->id << "` " << c->version << "\n\n" << c->summary << "\n\n"
                << "Source: " << c->paper << "\n\n";
      if (c->params.empty()) {
        std::cout << "No parameters.\n";
        continue;
      }
      std::cout << "| parameter | type and range | default | meaning |\n|---|---|---|---|\n";
      for (const ParamSpec& p : c->params) {
        std::cout << "| `" << p.name << "` | " << cell(p.describe_constraint()) << " | "
                  << (p.required ? std::string("required") : "`" + to_string(p.default_value) + "`")
                  << " | " << cell(p.doc) << " |\n";
      }
    }
  }
  return 0;
}

}  // namespace radial::cli
