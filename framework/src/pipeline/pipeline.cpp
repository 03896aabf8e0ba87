// read_pipeline and parse_pipeline of radial/pipeline/pipeline.hpp: TOML (toml++) checked against
// the registry's parameter tables, every error positioned at the offending key or value.

#include "radial/pipeline/pipeline.hpp"

#include <algorithm>
#include <climits>
#include <optional>
#include <sstream>
#include <tuple>
#include <variant>

#include <toml++/toml.h>

#include "overrides.hpp"
#include "toml_kind.hpp"
#include "toml_place.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/errors.hpp"
#include "radial/io/input_file.hpp"
#include "radial/text.hpp"

namespace radial {

std::string SourcePosition::str() const {
  if (line == 0) return file;  // e.g. a table created by an override: the label says it all
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

ComponentSpec* Pipeline::component(Slot slot) {
  return const_cast<ComponentSpec*>(static_cast<const Pipeline&>(*this).component(slot));
}

const ComponentSpec* Pipeline::component(Slot slot) const {
  const auto optional = [](const std::optional<ComponentSpec>& spec) {
    return spec ? &*spec : nullptr;
  };
  switch (slot) {
    case Slot::Basis: return &basis;
    case Slot::Centres: return &centres;
    case Slot::Output: return &output;
    case Slot::WeightPenalty: return optional(weight_penalty);
    case Slot::KernelPrior: return optional(kernel_prior);
    case Slot::Refine: return optional(refine);
  }
  return nullptr;
}

void Pipeline::set_component(Slot slot, std::optional<ComponentSpec> spec) {
  if (slot_required(slot)) {
    if (!spec) throw Error(std::string("the pipeline's ") + to_string(slot) + " cannot be removed");
    *component(slot) = std::move(*spec);
    return;
  }
  (slot == Slot::WeightPenalty ? weight_penalty
   : slot == Slot::KernelPrior ? kernel_prior
                               : refine) = std::move(spec);
}

namespace {

namespace fs = std::filesystem;

using text::guess;
using text::in_quotes;
using text::join;

// Length of the UTF-8 sequence starting at text[i], or 0 when it is not valid UTF-8 (overlong
// forms, surrogates and code points above U+10FFFF included).
std::size_t utf8_length(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  std::size_t n = 0;
  unsigned low = 0x80, high = 0xBF;  // range of the second byte
  if (b >= 0xC2 && b <= 0xDF) n = 2;
  else if (b == 0xE0) n = 3, low = 0xA0;
  else if (b >= 0xE1 && b <= 0xEC) n = 3;
  else if (b == 0xED) n = 3, high = 0x9F;
  else if (b >= 0xEE && b <= 0xEF) n = 3;
  else if (b == 0xF0) n = 4, low = 0x90;
  else if (b >= 0xF1 && b <= 0xF3) n = 4;
  else if (b == 0xF4) n = 4, high = 0x8F;
  else return 0;
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

// Offset of the first byte that is not valid UTF-8, or npos.
std::size_t invalid_utf8_at(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string::npos;
}

// The text with every byte that is not UTF-8 written as \xNN: names reach the JSON report,
// which must be UTF-8.
std::string escape_invalid_utf8(const std::string& text) {
  static const char digits[] = "0123456789ABCDEF";
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      const unsigned char b = static_cast<unsigned char>(text[i]);
      out += "\\x";
      out += digits[b >> 4];
      out += digits[b & 0xF];
      ++i;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  return out;
}

using pipeline::fail;
using pipeline::kind;
using pipeline::parse_toml;
using pipeline::TomlSource;

// A TOML integer, real, boolean or string as a parameter value; none for anything else.
std::optional<ParamValue> param_value(const toml::node& node) {
  if (const auto* v = node.as_integer()) return ParamValue(v->get());
  if (const auto* v = node.as_floating_point()) return ParamValue(v->get());
  if (const auto* v = node.as_boolean()) return ParamValue(v->get());
  if (const auto* v = node.as_string()) return ParamValue(v->get());
  return std::nullopt;
}

const std::vector<std::string> kTopLevel = {
    "name",   "seed",           "threads",      "data",        "basis",    "centres",
    "output", "weight-penalty", "kernel-prior", kLegacyPriorTable, "refine",   "evaluate",
    "search"};
const std::vector<std::string> kDataKeys = {"train",    "test",    "target", "standardize", "task",
                                            "features", "nominal", "unseen", "missing",
                                            "nominal_scale"};
const std::vector<std::string> kEvaluateKeys = {"folds", "committee", "stratified", "fold_column",
                                                "fold_file"};
const std::vector<std::string> kTasks = {"classification", "regression"};
const std::vector<std::string> kSearchKeys = {"folds", "metric", "stratified"};
const std::vector<std::string> kSearchMetrics = {"error_rate", "cross_entropy", "mse"};
// The slots' tables, the old prior table after the two priors'.
const std::vector<std::string> kSearchSlots = [] {
  std::vector<std::string> names;
  for (const Slot slot : all_slots) {
    names.push_back(to_string(slot));
    if (slot == Slot::KernelPrior) names.push_back(kLegacyPriorTable);
  }
  return names;
}();
// More candidates than this is a mistake (a grid of 10^6 fits), not a search.
constexpr std::size_t kMaxSearchCandidates = 10000;

bool is_prior(Slot slot) { return slot == Slot::WeightPenalty || slot == Slot::KernelPrior; }

// The prior written in the table `table` ("weight-penalty", "kernel-prior" or the old one), or
// null (also for other tables).
const ComponentSpec* prior_spec(const Pipeline& p, const std::string& table) {
  for (const auto* spec : {&p.weight_penalty, &p.kernel_prior}) {
    if (*spec && (*spec)->table == table) return &**spec;
  }
  return nullptr;
}

class PipelineReader : TomlSource {
 public:
  PipelineReader(const fs::path& file, const Registry& registry)
      : TomlSource(file), registry_(registry) {}

  Pipeline read(const std::string& text, const std::vector<std::string>& overrides,
                const DataReplacement* replacement) {
    toml::table root = parse_toml(text, display_);
    labels_ = pipeline::apply_overrides(root, overrides);
    if (replacement != nullptr) replace_data(root, *replacement);

    Pipeline pipeline;
    pipeline.file = absolute_;
    pipeline.text = text;
    if (!overrides.empty()) {
      if (!pipeline.text.empty() && pipeline.text.back() != '\n') pipeline.text += '\n';
      pipeline.text += pipeline::overrides_note(overrides);
    }
    // A file name in another encoding (caf\xe9.toml) still trains; its bytes are escaped.
    pipeline.name = escape_invalid_utf8(absolute_.stem().string());

    for (auto&& [key, node] : root) {
      const std::string name(key.str());
      if (std::find(kTopLevel.begin(), kTopLevel.end(), name) != kTopLevel.end()) continue;
      const std::string what =
          node.is_table() ? "unknown table [" + name + "]" : "unknown key " + in_quotes(name);
      fail(key_at(name, key),
           what + guess(name, kTopLevel) +
               "; the top level takes name, seed, threads and the tables [data], [basis], "
               "[centres], [output], [weight-penalty], [kernel-prior], "
               "[evaluate] and [search]");
    }

    if (const toml::node* node = root.get("name")) {
      if (!node->is_string()) {
        fail(node_at("name", *node),
             "name must be a string, found " + kind(*node) + "; write name = \"...\"");
      }
      pipeline.name = node->as_string()->get();
      const std::size_t bad = invalid_utf8_at(pipeline.name);
      if (bad != std::string::npos) {
        const std::string escaped = escape_invalid_utf8(pipeline.name);
        fail(node_at("name", *node),
             "name is not valid UTF-8 (\"" + escaped + "\", byte " + std::to_string(bad + 1) +
                 "); write the name in UTF-8");
      }
    }
    if (const toml::node* node = root.get("seed")) {
      pipeline.seed = static_cast<std::uint64_t>(count(*node, "seed", "seed", 0));
    }
    if (const toml::node* node = root.get("threads")) {
      pipeline.threads = static_cast<int>(count(*node, "threads", "threads", 0, INT_MAX));
    }

    pipeline.data = data(root);
    for (const Slot slot : all_slots) {
      // The two priors together, with the old table that may hold either.
      if (slot == Slot::WeightPenalty) priors(root, pipeline);
      if (is_prior(slot)) continue;
      pipeline.set_component(slot, component(root, slot, slot_required(slot)));
    }
    pipeline.evaluate = evaluate(root);
    pipeline.settings = settings(root);
    if (root.contains("search")) pipeline.search = search(root, pipeline);
    return pipeline;
  }

 private:
  // Positions of things an override set are the override itself.
  std::string key_at(const std::string& path, const toml::key& key) const {
    const auto label = labels_.find(path);
    return label != labels_.end() ? label->second : at(key.source());
  }
  std::string node_at(const std::string& path, const toml::node& node) const {
    const auto label = labels_.find(path);
    return label != labels_.end() ? label->second : at(node.source());
  }
  SourcePosition position(const std::string& path, const toml::node& node) const {
    const auto label = labels_.find(path);
    if (label != labels_.end()) return SourcePosition{label->second, 0, 0};
    const auto& begin = node.source().begin;
    return SourcePosition{display_, begin.line, begin.column};
  }

  // An integer >= low (and <= high): seed, threads, folds, committee.
  std::int64_t count(const toml::node& node, const std::string& path, const std::string& name,
                     std::int64_t low, std::int64_t high = INT64_MAX) const {
    const auto bound = name + " is an integer >= " + std::to_string(low) +
                       (high != INT64_MAX ? " and <= " + std::to_string(high) : "");
    if (!node.is_integer()) {
      fail(node_at(path, node), name + " must be an integer, found " + kind(node) +
                                    ". Violated constraint: " + bound);
    }
    const std::int64_t value = node.as_integer()->get();
    if (value < low || value > high) {
      fail(node_at(path, node),
           name + " = " + std::to_string(value) + ". Violated constraint: " + bound);
    }
    return value;
  }

  bool boolean(const toml::node& node, const std::string& path, const std::string& name) const {
    if (!node.is_boolean()) {
      fail(node_at(path, node),
           name + " must be true or false, found " + kind(node) + "; write " + name + " = true");
    }
    return node.as_boolean()->get();
  }

  const std::string& string(const toml::node& node, const std::string& path,
                            const std::string& name) const {
    if (!node.is_string()) {
      fail(node_at(path, node), name + " must be a string, found " + kind(node) + "; write " +
                                    name + " = \"...\"");
    }
    return node.as_string()->get();
  }

  // A required table [name], or nullptr when absent and optional.
  const toml::table* section(const toml::table& root, const std::string& name, bool required,
                           const std::string& hint) const {
    const toml::node* node = root.get(name);
    if (node == nullptr) {
      if (!required) return nullptr;
      fail(top(), "missing table [" + name + "]; add it: " + hint);
    }
    if (!node->is_table()) {
      fail(node_at(name, *node), name + " must be a table, found " + kind(*node) + "; write [" +
                                     name + "] on its own line, followed by " + hint);
    }
    return node->as_table();
  }

  void unknown_keys(const toml::table& table, const std::string& name,
                    const std::vector<std::string>& allowed) const {
    for (auto&& [key, node] : table) {
      const std::string word(key.str());
      if (std::find(allowed.begin(), allowed.end(), word) != allowed.end()) continue;
      fail(key_at(name + "." + word, key), "unknown key " + in_quotes(word) + " in [" + name + "]" +
                                               guess(word, allowed) + "; [" + name +
                                               "] takes " + join(allowed));
    }
  }

  fs::path resolve(const std::string& text) const {
    const fs::path path(text);
    return (path.is_absolute() ? path : folder_ / path).lexically_normal();
  }

  // A data file named by [data] `key`; one that does not exist is reported at the key.
  fs::path data_file(const toml::table& table, const std::string& key) const {
    const std::string path = "data." + key;
    const auto entry = table.find(key);
    const toml::node& node = entry->second;
    const std::string& text = string(node, path, key);
    if (text.empty()) fail(node_at(path, node), key + " is empty; name a CSV or .npy file");
    const fs::path file = resolve(text);
    std::error_code error;
    const auto status = fs::status(file, error);
    if (!fs::exists(status)) {
      fail(key_at(path, entry->first), key + " file " + in_quotes(text) +
                                           " not found (looked for " + file.string() +
                                           "); fix the path, which is relative to the "
                                           "pipeline file's folder");
    }
    if (fs::is_directory(status)) {
      fail(key_at(path, entry->first), key + " " + in_quotes(text) + " is a folder (" +
                                           file.string() + "); name a CSV or .npy file");
    }
    return file;
  }

  DataSpec data(const toml::table& root) const {
    const toml::table& table =
        *this->section(root, "data", true, "train = \"<file>.csv\" (relative to this file)");
    unknown_keys(table, "data", kDataKeys);
    DataSpec spec;
    const toml::node* train = table.get("train");
    if (train == nullptr && !data_in_memory_) {
      fail(position("data", table).str(),
           "[data] needs train = \"<file>\" (a CSV or .npy file, relative to the pipeline "
           "file); add it");
    }
    if (train != nullptr) spec.train = data_file(table, "train");
    if (table.contains("test")) spec.test = data_file(table, "test");
    if (const toml::node* node = table.get("target")) {
      spec.target = string(*node, "data.target", "target");
    }
    if (const toml::node* node = table.get("standardize")) {
      spec.standardize = boolean(*node, "data.standardize", "standardize");
    }
    if (const toml::node* node = table.get("nominal")) {
      if (!node->is_array()) {
        fail(node_at("data.nominal", *node), "nominal must be an array of column names, found " +
                                                 kind(*node) + "; write nominal = [\"colour\"]");
      }
      for (const toml::node& element : *node->as_array())
        spec.nominal.push_back(string(element, "data.nominal", "nominal"));
    }
    if (const toml::node* node = table.get("unseen")) {
      const std::string& unseen = string(*node, "data.unseen", "unseen");
      if (unseen != "error" && unseen != "zeros") {
        fail(node_at("data.unseen", *node), "unseen = \"" + unseen +
                                                "\". Violated constraint: unseen is one of "
                                                "error, zeros");
      }
      spec.unseen_as_zero = unseen == "zeros";
    }
    if (const toml::node* node = table.get("nominal_scale")) {
      const std::string& scale = string(*node, "data.nominal_scale", "nominal_scale");
      if (scale != "input" && scale != "category") {
        fail(node_at("data.nominal_scale", *node),
             "nominal_scale = \"" + scale +
                 "\". Violated constraint: nominal_scale is one of input (one weight per "
                 "nominal input, the default), category (each category's indicator "
                 "standardised, as before)");
      }
      spec.nominal_scale = scale == "input" ? NominalScale::Input : NominalScale::Category;
    }
    if (const toml::node* node = table.get("missing")) {
      const std::string& missing = string(*node, "data.missing", "missing");
      bool known = false;
      for (const MissingPolicy policy :
           {MissingPolicy::Error, MissingPolicy::DropRows, MissingPolicy::Mean,
            MissingPolicy::Median, MissingPolicy::Em}) {
        if (missing != to_string(policy)) continue;
        spec.missing = policy;
        known = true;
      }
      if (!known) {
        fail(node_at("data.missing", *node),
             "missing = \"" + missing +
                 "\". Violated constraint: missing is one of error, drop-rows, mean, median, em");
      }
    }
    if (const toml::node* node = table.get("features")) {
      spec.features = std::size_t(count(*node, "data.features", "features", 1,
                                             std::int64_t(max_sparse_features)));
    }
    if (const toml::node* node = table.get("task")) {
      const std::string& task = string(*node, "data.task", "task");
      if (task == "classification") {
        spec.task = Task::Classification;
      } else if (task == "regression") {
        spec.task = Task::Regression;
      } else {
        fail(node_at("data.task", *node), "task = \"" + task +
                                              "\". Violated constraint: task is one of "
                                              "classification, regression" +
                                              guess(task, kTasks));
      }
    }
    return spec;
  }

  // The prior tables: [weight-penalty], [kernel-prior], and the old table of both
  // (kLegacyPriorTable), still read: its prior goes where its plugin's slot says, with a
  // "deprecated-table" warning naming that slot's table.
  void priors(const toml::table& root, Pipeline& pipeline) const {
    pipeline.weight_penalty = component(root, Slot::WeightPenalty, false);
    pipeline.kernel_prior = component(root, Slot::KernelPrior, false);
    const std::string legacy = kLegacyPriorTable;
    const toml::table* table = nullptr;
    if (const toml::node* node = root.get(legacy)) table = node->as_table();
    if (table == nullptr) {
      if (root.contains(legacy)) component(root, Slot::WeightPenalty, false, legacy);
      return;
    }
    const toml::node* plugin = table->get("plugin");
    const Slot slot = plugin != nullptr && plugin->is_string() &&
                              registry_.find(Slot::KernelPrior, plugin->as_string()->get())
                          ? Slot::KernelPrior
                          : Slot::WeightPenalty;
    const std::string slot_table = to_string(slot);
    std::optional<ComponentSpec>& target =
        slot == Slot::KernelPrior ? pipeline.kernel_prior : pipeline.weight_penalty;
    if (target) {
      fail(position(legacy, *table).str(),
           "[" + legacy + "] names a " + slot_table + " plugin, but the pipeline already has [" +
               slot_table + "] (" + target->where.str() + "); a pipeline takes one of each "
               "kind: remove one of the two tables");
    }
    target = component(root, slot, false, legacy);
    // A [search] candidate is read again from the parent's tables: one warning, not two.
    auto& warnings = pipeline.warnings;
    warnings.erase(std::remove_if(warnings.begin(), warnings.end(),
                                  [](const Warning& w) { return w.guard == "deprecated-table"; }),
                   warnings.end());
    warnings.push_back({"pipeline", "deprecated-table",
                        target->where.str() + ": [" + legacy + "] is the old name of the prior "
                            "tables; its plugin '" + target->plugin + "' is read as [" +
                            slot_table + "]",
                        "rename [" + legacy + "] to [" + slot_table + "] (and " + legacy +
                            ".KEY to " + slot_table + ".KEY in --set, [search] and grids)"});
  }

  std::optional<ComponentSpec> component(const toml::table& root, Slot slot, bool required,
                                         const std::string& table_name = "") const {
    const std::string name = table_name.empty() ? to_string(slot) : table_name;
    const std::vector<std::string> ids = registry_.ids(slot);
    const std::string available =
        ids.empty() ? "no " + name + " plugins are loaded (check the plugin folder and "
                                     "RADIAL_PLUGIN_PATH)"
                    : "the " + name + " plugins are " + join(ids);
    const toml::table* table =
        this->section(root, name, required, "plugin = \"<id>\"; " + available);
    if (table == nullptr) return std::nullopt;

    ComponentSpec spec;
    spec.where = position(name, *table);
    spec.table = name;
    const toml::node* plugin = table->get("plugin");
    if (plugin == nullptr) {
      fail(spec.where.str(), "[" + name + "] needs plugin = \"<id>\"; " + available);
    }
    const std::string plugin_path = name + ".plugin";
    spec.plugin = string(*plugin, plugin_path, "plugin");
    const ComponentInfo* info = registry_.find(slot, spec.plugin);
    if (info == nullptr) {
      fail(node_at(plugin_path, *plugin), registry_.unknown_plugin_message(slot, spec.plugin, name));
    }

    const std::string who = name + " plugin " + in_quotes(spec.plugin);
    // TOML values to parameter values; the check itself is radial::check_params, as for every
    // other way parameters arrive, and this reader only adds where each problem is.
    std::map<std::string, ParamValue> given;
    std::map<std::string, std::pair<const toml::key*, const toml::node*>> source;
    for (auto&& [key, node] : *table) {
      const std::string word(key.str());
      if (word == "plugin") continue;
      source[word] = {&key, &node};
      ParamValue value;
      if (std::optional<ParamValue> v = param_value(node)) {
        value = std::move(*v);
      } else if (const ParamSpec* param = find_param(info->params, word)) {
        fail(node_at(name + "." + word, node),
             who + ": " + word + " must be " + param->describe_constraint() + ", found " +
                 kind(node) + "; change the value");
      }  // else an unknown name holding a table or array: check_params reports the name
      given[word] = std::move(value);
    }
    const std::vector<ParamProblem> problems = check_params(info->params, given);
    if (!problems.empty()) {
      const ParamProblem& problem = problems.front();
      const std::string path = name + "." + problem.name;
      std::vector<std::string> declared;
      for (const auto& param : info->params) declared.push_back(param.name);
      switch (problem.kind) {
        case ParamProblem::Kind::Unknown:
          fail(key_at(path, *source.at(problem.name).first),
               "unknown parameter " + in_quotes(problem.name) + " for " + who +
                   (problem.guess.empty() ? "" : " (did you mean " + in_quotes(problem.guess) +
                                                     "?)") +
                   (declared.empty() ? "; it takes no parameters"
                                     : "; its parameters are " + join(declared)));
        case ParamProblem::Kind::Missing: {
          const ParamSpec& param = *find_param(info->params, problem.name);
          fail(spec.where.str(), who + " needs parameter " + in_quotes(param.name) + " (" +
                                     param.describe_constraint() + ": " + param.doc +
                                     "); add " + param.name + " = ... to [" + name + "]");
        }
        case ParamProblem::Kind::Invalid: {
          const ParamSpec& param = *find_param(info->params, problem.name);
          fail(node_at(path, *source.at(problem.name).second),
               who + ": " + problem.message + ". Change the value (" + param.name + ": " +
                   param.describe_constraint() + "; " + param.doc + ")");
        }
      }
    }
    spec.params = validate_params(info->params, given, who);
    // Files are named relative to the pipeline file, given or default.
    for (const auto& param : info->params) {
      if (param.type != ParamType::Path) continue;
      const std::string& text = spec.params.string(param.name);
      if (!text.empty()) spec.params.set(param.name, resolve(text).string());
    }
    return spec;
  }

  EvaluateSpec evaluate(const toml::table& root) const {
    EvaluateSpec spec;
    const toml::table* table =
        this->section(root, "evaluate", false, "folds = 10 and/or committee = 10");
    if (table == nullptr) return spec;
    unknown_keys(*table, "evaluate", kEvaluateKeys);
    if (const toml::node* node = table->get("folds")) {
      const std::int64_t folds = count(*node, "evaluate.folds", "folds", 0);
      if (folds == 1) {
        fail(node_at("evaluate.folds", *node),
             "folds = 1. Violated constraint: folds is 0 (no cross-validation) or >= 2");
      }
      spec.folds = static_cast<std::size_t>(folds);
    }
    if (const toml::node* node = table->get("committee")) {
      spec.committee = static_cast<std::size_t>(count(*node, "evaluate.committee", "committee", 0));
    }
    if (const toml::node* node = table->get("stratified")) {
      spec.stratified = boolean(*node, "evaluate.stratified", "stratified");
    }
    if (const toml::node* node = table->get("fold_column")) {
      spec.fold_column = string(*node, "evaluate.fold_column", "fold_column");
      if (spec.fold_column.empty())
        fail(node_at("evaluate.fold_column", *node),
             "fold_column is empty; name the column of the training data that holds each row's "
             "fold");
    }
    if (const auto entry = table->find("fold_file"); entry != table->end()) {
      const std::string& text = string(entry->second, "evaluate.fold_file", "fold_file");
      if (!spec.fold_column.empty())
        fail(key_at("evaluate.fold_file", entry->first),
             "fold_file and fold_column both given; the folds come from one of them");
      const fs::path file = resolve(text);
      std::error_code error;
      if (text.empty() || !fs::is_regular_file(file, error))
        fail(key_at("evaluate.fold_file", entry->first),
             "fold_file " + in_quotes(text) + " is not a file (looked for " + file.string() +
                 "); name a file with one fold per training row, relative to the pipeline "
                 "file's folder");
      spec.fold_file = file;
    }
    return spec;
  }

  // Every setting but [data] as canonical TOML.
  static std::string settings(const toml::table& root) {
    toml::table settings = root;
    settings.erase("data");
    std::ostringstream canonical;
    canonical << toml::toml_formatter(settings, toml::format_flags::none);
    return canonical.str();
  }

  // One "slot.key" = [values] of [search], before its values are tried in the candidates.
  struct Axis {
    std::string slot, param;
    SearchAxis spec;
    std::size_t line = 0, column = 0;  // of the array: axes run in file order
  };

  Axis search_axis(const std::string& slot, const std::string& param, const toml::key& key,
                   const toml::node& node, const Pipeline& parent) const {
    const std::string name = slot + "." + param;
    const std::string path = "search." + name;
    const std::string quoted = "\"" + name + "\"";
    if (std::find(kSearchSlots.begin(), kSearchSlots.end(), slot) == kSearchSlots.end()) {
      fail(key_at(path, key), "[search] key " + quoted + ": " + in_quotes(slot) +
                                  " is not a slot" + guess(slot, kSearchSlots) +
                                  "; [search] sweeps \"slot.key\" of basis, centres, output, "
                                  "weight-penalty, kernel-prior or refine, e.g. "
                                  "\"centres.count\" = [2, 4, 8]");
    }
    const bool present = slot == "basis" || slot == "centres" || slot == "output" ||
                         (slot == "refine" ? parent.refine.has_value()
                                           : prior_spec(parent, slot) != nullptr);
    if (!present) {
      fail(key_at(path, key), "[search] sweeps " + quoted + " but the pipeline has no [" + slot +
                                  "]; add [" + slot + "] with its plugin, or remove the key");
    }
    if (param.empty() || param.find('.') != std::string::npos) {
      fail(key_at(path, key), "[search] key " + quoted +
                                  " is not slot.key; write e.g. \"centres.count\" = [2, 4, 8]");
    }
    if (!node.is_array()) {
      fail(node_at(path, node), "[search] " + quoted + " must be an array of the values to try, "
                                    "found " + kind(node) + "; write " + quoted + " = [...]");
    }
    const toml::array& values = *node.as_array();
    if (values.empty()) {
      fail(node_at(path, node), "[search] " + quoted + " is empty; list at least one value to try");
    }
    Axis axis;
    axis.slot = slot;
    axis.param = param;
    axis.spec.key = name;
    const auto& begin = node.source().begin;
    axis.line = begin.line == 0 ? SIZE_MAX : begin.line;
    axis.column = begin.column;
    for (const toml::node& element : values) {
      std::optional<ParamValue> value = param_value(element);
      if (!value) {
        fail(node_at(path, element), "[search] " + quoted + ": a value to try must be a number, "
                                         "boolean or string, found " + kind(element));
      }
      axis.spec.values.push_back(std::move(*value));
      axis.spec.where.push_back(position(path, element));
    }
    return axis;
  }

  // [search]: its settings, its axes in file order, and every candidate of the grid validated
  // as a complete pipeline (messages point at the value tried).
  SearchSpec search(const toml::table& root, const Pipeline& parent) {
    const toml::table& table = *this->section(
        root, "search", false, "folds = 10 and \"slot.key\" = [values], e.g. \"centres.count\" = [2, 4]");
    SearchSpec spec;
    spec.where = position("search", table);
    std::vector<Axis> axes;
    for (auto&& [key, node] : table) {
      const std::string word(key.str());
      if (word == "folds") {
        spec.folds = static_cast<std::size_t>(count(node, "search.folds", "folds", 2));
        spec.folds_given = true;
      } else if (word == "metric") {
        spec.metric = string(node, "search.metric", "metric");
        if (std::find(kSearchMetrics.begin(), kSearchMetrics.end(), spec.metric) ==
            kSearchMetrics.end()) {
          fail(node_at("search.metric", node),
               "metric = \"" + spec.metric + "\". Violated constraint: metric is one of " +
                   join(kSearchMetrics) + guess(spec.metric, kSearchMetrics));
        }
      } else if (word == "stratified") {
        spec.stratified = boolean(node, "search.stratified", "stratified");
      } else if (const auto dot = word.find('.'); dot != std::string::npos) {
        axes.push_back(search_axis(word.substr(0, dot), word.substr(dot + 1), key, node, parent));
      } else if (node.is_table() &&
                 std::find(kSearchSlots.begin(), kSearchSlots.end(), word) != kSearchSlots.end()) {
        // centres.count = [...] without quotes: TOML makes it a table [search.centres].
        for (auto&& [inner, value] : *node.as_table()) {
          axes.push_back(search_axis(word, std::string(inner.str()), inner, value, parent));
        }
      } else {
        fail(key_at("search." + word, key),
             "unknown key " + in_quotes(word) + " in [search]" + guess(word, kSearchKeys) +
                 "; [search] takes folds, metric, stratified and \"slot.key\" = [values to try], "
                 "e.g. \"centres.count\" = [2, 4, 8]");
      }
    }
    if (axes.empty()) {
      fail(spec.where.str(), "[search] sweeps nothing; add \"slot.key\" = [values to try], e.g. "
                             "\"centres.count\" = [2, 4, 8]");
    }
    // toml++ keeps keys sorted; the file order decides the grid's order and its ties.
    std::stable_sort(axes.begin(), axes.end(), [](const Axis& a, const Axis& b) {
      return std::tie(a.line, a.column) < std::tie(b.line, b.column);
    });
    std::size_t total = 1;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      for (std::size_t b = 0; b < a; ++b) {
        if (axes[b].spec.key == axes[a].spec.key) {
          fail(axes[a].spec.where.front().str(),
               "[search] sweeps \"" + axes[a].spec.key + "\" twice; keep one of them");
        }
      }
      total *= axes[a].spec.values.size();
      if (total > kMaxSearchCandidates) {
        fail(spec.where.str(), "[search] grid has more than " +
                                   std::to_string(kMaxSearchCandidates) +
                                   " candidates; sweep fewer values");
      }
    }
    // A parameter the slot's plugin does not take is reported at its key (unless the plugin
    // itself is swept: then each candidate's plugin decides).
    for (const Axis& axis : axes) {
      if (axis.param == "plugin") continue;
      const bool plugin_swept = std::any_of(axes.begin(), axes.end(), [&](const Axis& other) {
        return other.slot == axis.slot && other.param == "plugin";
      });
      if (plugin_swept) continue;
      // A prior is found by the table it was written in (the old table holds either).
      const ComponentSpec* prior = prior_spec(parent, axis.slot);
      const std::optional<Slot> named = slot_named(axis.slot);
      const Slot slot = named && !is_prior(*named) ? *named
                        : parent.kernel_prior && prior == &*parent.kernel_prior ? Slot::KernelPrior
                                                                               : Slot::WeightPenalty;
      const ComponentSpec& component = is_prior(slot) ? *prior : *parent.component(slot);
      const ComponentInfo* info = registry_.find(slot, component.plugin);
      if (info == nullptr || find_param(info->params, axis.param) != nullptr) continue;
      std::vector<std::string> declared;
      for (const auto& param : info->params) declared.push_back(param.name);
      fail(axis_key_at(table, axis),
           "[search] sweeps \"" + axis.spec.key + "\", but " + axis.slot + " plugin " +
               in_quotes(component.plugin) + " has no parameter " + in_quotes(axis.param) +
               guess(axis.param, declared) +
               (declared.empty() ? "; it takes no parameters"
                                 : "; its parameters are " + join(declared)));
    }

    toml::table base = root;
    base.erase("search");
    const auto saved = labels_;
    for (std::size_t index = 0; index < total; ++index) {
      toml::table candidate_root = base;
      Pipeline candidate = parent;
      candidate.search.reset();
      std::string note = "# [search] candidate:";
      std::size_t rest = index;
      std::vector<std::size_t> digit(axes.size());
      for (std::size_t a = axes.size(); a-- > 0;) {  // the first axis varies slowest
        digit[a] = rest % axes[a].spec.values.size();
        rest /= axes[a].spec.values.size();
      }
      for (std::size_t a = 0; a < axes.size(); ++a) {
        const ParamValue& value = axes[a].spec.values[digit[a]];
        toml::table& slot = *candidate_root.get(axes[a].slot)->as_table();
        std::visit([&](const auto& v) { slot.insert_or_assign(axes[a].param, v); }, value);
        labels_[axes[a].spec.key] = axes[a].spec.where[digit[a]].str();
        note += (a == 0 ? " " : ", ") + axes[a].spec.key + " = " + to_string(value);
      }
      for (const std::string& name : kSearchSlots) {
        // The value that makes a problem elsewhere in the slot: its plugin's, else its first.
        std::optional<std::size_t> culprit;
        for (std::size_t a = 0; a < axes.size(); ++a) {
          if (axes[a].slot != name) continue;
          if (!culprit || axes[a].param == "plugin") culprit = a;
          if (axes[a].param == "plugin") break;
        }
        if (!culprit) continue;
        try {
          const std::optional<Slot> slot = slot_named(name);
          if (!slot || is_prior(*slot))
            priors(candidate_root, candidate);
          else
            candidate.set_component(*slot, component(candidate_root, *slot, slot_required(*slot)));
        } catch (const PipelineError& error) {
          // Reported at a swept value already, or elsewhere (a key of the file that the swept
          // plugin does not take): then at the value, naming the candidate.
          const std::string what = error.what();
          for (std::size_t a = 0; a < axes.size(); ++a) {
            if (what.rfind(axes[a].spec.where[digit[a]].str() + ":", 0) == 0) throw;
          }
          const Axis& axis = axes[*culprit];
          fail(axis.spec.where[digit[*culprit]].str(),
               "[search] candidate" + note.substr(note.find(':') + 1) + ": " + what);
        }
      }
      labels_ = saved;
      if (!candidate.text.empty() && candidate.text.back() != '\n') candidate.text += '\n';
      candidate.text += note + "\n";
      candidate.settings = settings(candidate_root);
      spec.candidates.push_back(std::move(candidate));
    }
    for (Axis& axis : axes) spec.axes.push_back(std::move(axis.spec));
    return spec;
  }

  // The position of an axis's key in [search] (quoted "slot.key" or dotted slot.key).
  std::string axis_key_at(const toml::table& search, const Axis& axis) const {
    const std::string path = "search." + axis.spec.key;
    for (auto&& [key, node] : search) {
      if (key.str() == axis.spec.key) return key_at(path, key);
      if (key.str() == axis.slot && node.is_table()) {
        for (auto&& [inner, value] : *node.as_table()) {
          if (inner.str() == axis.param) return key_at(path, inner);
        }
      }
    }
    return axis.spec.where.front().str();
  }

  // [data] train/test (and target/task when given) from `r`; messages about them point at its label.
  void replace_data(toml::table& root, const DataReplacement& r) {
    toml::node* existing = root.get("data");
    if (existing != nullptr && !existing->is_table()) root.erase("data"), existing = nullptr;
    if (existing == nullptr) root.insert("data", toml::table{});
    toml::table& data = *root.get("data")->as_table();
    if (r.train.empty()) {
      // The data come in memory (the Python module): no file is named or checked.
      data_in_memory_ = true;
      data.erase("train");
    } else {
      data.insert_or_assign("train", r.train.string());
    }
    labels_["data.train"] = r.label;
    if (r.test) {
      data.insert_or_assign("test", r.test->string());
      labels_["data.test"] = r.label;
    } else {
      data.erase("test");
    }
    if (r.target) {
      data.insert_or_assign("target", *r.target);
      labels_["data.target"] = r.label;
    }
    if (r.task) {
      data.insert_or_assign("task", std::string(*r.task == Task::Classification ? "classification" : "regression"));
      labels_["data.task"] = r.label;
    }
    if (labels_.count("data") == 0) labels_["data"] = r.label;
  }

  bool data_in_memory_ = false;  // DataReplacement with an empty train
  const Registry& registry_;
  std::map<std::string, std::string> labels_;
};

}  // namespace

Pipeline parse_pipeline(const std::string& text, const std::filesystem::path& file,
                        const Registry& registry, const std::vector<std::string>& overrides) {
  return PipelineReader(file, registry).read(text, overrides, nullptr);
}

Pipeline parse_pipeline(const std::string& text, const std::filesystem::path& file,
                        const Registry& registry, const std::vector<std::string>& overrides,
                        const DataReplacement& data) {
  return PipelineReader(file, registry).read(text, overrides, &data);
}

Pipeline read_pipeline(const std::filesystem::path& file, const Registry& registry,
                       const std::vector<std::string>& overrides) {
  // A pipeline is a few kB: the limit stops /dev/zero or a mistaken data file early.
  InputFile in = InputFile::open<PipelineError>(file, "pipeline file");
  const std::string text = in.read_all<PipelineError>(max_pipeline_bytes);
  return parse_pipeline(text, file, registry, overrides);
}

Pipeline read_pipeline(const std::filesystem::path& file, const Registry& registry,
                       const std::vector<std::string>& overrides, const DataReplacement& data) {
  InputFile in = InputFile::open<PipelineError>(file, "pipeline file");
  const std::string text = in.read_all<PipelineError>(max_pipeline_bytes);
  return parse_pipeline(text, file, registry, overrides, data);
}

}  // namespace radial
