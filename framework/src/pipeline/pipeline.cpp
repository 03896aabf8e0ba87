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
#include "pipeline_reader.hpp"
#include "toml_fields.hpp"
#include "toml_kind.hpp"
#include "toml_place.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"
#include "radial/io/input_file.hpp"
#include "radial/core/text.hpp"

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
using text::utf8_length;

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

}  // namespace

namespace pipeline {

// A TOML integer, real, boolean or string as a parameter value; none for anything else.
std::optional<ParamValue> param_value(const toml::node& node) {
  if (const auto* v = node.as_integer()) return ParamValue(v->get());
  if (const auto* v = node.as_floating_point()) return ParamValue(v->get());
  if (const auto* v = node.as_boolean()) return ParamValue(v->get());
  if (const auto* v = node.as_string()) return ParamValue(v->get());
  return std::nullopt;
}

Pipeline PipelineReader::read(const std::string& text, const std::vector<std::string>& overrides,
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
    if (slot == Slot::WeightPenalty || slot == Slot::KernelPrior) continue;
    pipeline.set_component(slot, component(root, slot, slot_required(slot)));
  }
  pipeline.evaluate = evaluate(root);
  pipeline.settings = settings(root);
  if (root.contains("search")) pipeline.search = search(root, pipeline);
  return pipeline;
}

SourcePosition PipelineReader::position(const std::string& path, const toml::node& node) const {
  const auto label = labels_.find(path);
  if (label != labels_.end()) return SourcePosition{label->second, 0, 0};
  const auto& begin = node.source().begin;
  return SourcePosition{display_, begin.line, begin.column};
}

std::int64_t PipelineReader::count(const toml::node& node, const std::string& path,
                                   const std::string& name, std::int64_t low,
                                   std::int64_t high) const {
  return integer_field(node, node_at(path, node), name, low, high);
}

bool PipelineReader::boolean(const toml::node& node, const std::string& path,
                             const std::string& name) const {
  return boolean_field(node, node_at(path, node), name);
}

const std::string& PipelineReader::string(const toml::node& node, const std::string& path,
                                          const std::string& name) const {
  return string_field(node, node_at(path, node), name);
}

const toml::table* PipelineReader::section(const toml::table& root, const std::string& name,
                                           bool required, const std::string& hint) const {
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

void PipelineReader::unknown_keys(const toml::table& table, const std::string& name,
                                  const std::vector<std::string>& allowed) const {
  for (auto&& [key, node] : table) {
    const std::string word(key.str());
    if (std::find(allowed.begin(), allowed.end(), word) != allowed.end()) continue;
    unknown_key(key_at(name + "." + word, key), word, "[" + name + "]", allowed);
  }
}

fs::path PipelineReader::data_file(const toml::table& table, const std::string& key) const {
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

DataSpec PipelineReader::data(const toml::table& root) const {
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

void PipelineReader::priors(const toml::table& root, Pipeline& pipeline) const {
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

std::optional<ComponentSpec> PipelineReader::component(const toml::table& root, Slot slot,
                                                       bool required,
                                                       const std::string& table_name) const {
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

EvaluateSpec PipelineReader::evaluate(const toml::table& root) const {
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

std::string PipelineReader::settings(const toml::table& root) {
  toml::table settings = root;
  settings.erase("data");
  std::ostringstream canonical;
  canonical << toml::toml_formatter(settings, toml::format_flags::none);
  return canonical.str();
}

void PipelineReader::replace_data(toml::table& root, const DataReplacement& r) {
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

}  // namespace pipeline

Pipeline parse_pipeline(const std::string& text, const std::filesystem::path& file,
                        const Registry& registry, const std::vector<std::string>& overrides) {
  return pipeline::PipelineReader(file, registry).read(text, overrides, nullptr);
}

Pipeline parse_pipeline(const std::string& text, const std::filesystem::path& file,
                        const Registry& registry, const std::vector<std::string>& overrides,
                        const DataReplacement& data) {
  return pipeline::PipelineReader(file, registry).read(text, overrides, &data);
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
