// The [search] grid of a pipeline (radial/pipeline/pipeline.hpp, SearchSpec): its axes read
// from [search], and every candidate of their cartesian product read and validated as a
// complete pipeline by the PipelineReader (pipeline_reader.hpp).

#include <algorithm>
#include <tuple>
#include <variant>

#include "pipeline_reader.hpp"
#include "toml_kind.hpp"
#include "radial/core/errors.hpp"
#include "radial/core/text.hpp"

namespace radial {

namespace {

using text::guess;
using text::in_quotes;
using text::join;

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

bool is_prior(Slot slot) { return slot == Slot::WeightPenalty || slot == Slot::KernelPrior; }
// More candidates than this is a mistake (a grid of 10^6 fits), not a search.
constexpr std::size_t kMaxSearchCandidates = 10000;

// The prior written in the table `table` ("weight-penalty", "kernel-prior" or the old one), or
// null (also for other tables).
const ComponentSpec* prior_spec(const Pipeline& p, const std::string& table) {
  for (const auto* spec : {&p.weight_penalty, &p.kernel_prior}) {
    if (*spec && (*spec)->table == table) return &**spec;
  }
  return nullptr;
}

}  // namespace

std::vector<std::size_t> grid_point(const std::vector<std::size_t>& sizes, std::size_t index) {
  std::vector<std::size_t> digit(sizes.size());
  for (std::size_t a = sizes.size(); a-- > 0;) {  // the first axis varies slowest
    digit[a] = index % sizes[a];
    index /= sizes[a];
  }
  return digit;
}

namespace pipeline {

PipelineReader::Axis PipelineReader::search_axis(const std::string& slot, const std::string& param,
                                                 const toml::key& key, const toml::node& node,
                                                 const Pipeline& parent) const {
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

SearchSpec PipelineReader::search(const toml::table& root, const Pipeline& parent) {
  const toml::table& table = *this->section(
      root, "search", false,
      "folds = 10 and \"slot.key\" = [values], e.g. \"centres.count\" = [2, 4]");
  SearchSpec spec;
  spec.where = position("search", table);
  std::vector<Axis> axes = search_keys(table, parent, spec);
  const std::size_t total = grid_size(axes, spec);
  check_swept_params(table, axes, parent);
  toml::table base = root;
  base.erase("search");
  const auto saved = labels_;
  for (std::size_t index = 0; index < total; ++index) {
    spec.candidates.push_back(search_candidate(base, parent, axes, index));
    labels_ = saved;
  }
  for (Axis& axis : axes) spec.axes.push_back(std::move(axis.spec));
  return spec;
}

std::vector<PipelineReader::Axis>
PipelineReader::search_keys(const toml::table& table, const Pipeline& parent,
                            SearchSpec& spec) const {
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
  return axes;
}

std::size_t PipelineReader::grid_size(const std::vector<Axis>& axes, const SearchSpec& spec) const {
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
  return total;
}

void PipelineReader::check_swept_params(const toml::table& table, const std::vector<Axis>& axes,
                                        const Pipeline& parent) const {
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
}

Pipeline PipelineReader::search_candidate(const toml::table& base, const Pipeline& parent,
                                          const std::vector<Axis>& axes, std::size_t index) {
  toml::table candidate_root = base;
  Pipeline candidate = parent;
  candidate.search.reset();
  std::string note = "# [search] candidate:";
  std::vector<std::size_t> sizes;
  for (const Axis& axis : axes) sizes.push_back(axis.spec.values.size());
  const std::vector<std::size_t> digit = grid_point(sizes, index);
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const ParamValue& value = axes[a].spec.values[digit[a]];
    toml::table& slot = *candidate_root.get(axes[a].slot)->as_table();
    std::visit([&](const auto& v) { slot.insert_or_assign(axes[a].param, v); }, value);
    labels_[axes[a].spec.key] = axes[a].spec.where[digit[a]].str();
    note += (a == 0 ? " " : ", ") + axes[a].spec.key + " = " + to_string(value);
  }
  for (const std::string& name : kSearchSlots)
    read_swept_slot(name, candidate_root, candidate, axes, digit, note);
  if (!candidate.text.empty() && candidate.text.back() != '\n') candidate.text += '\n';
  candidate.text += note + "\n";
  candidate.settings = settings(candidate_root);
  return candidate;
}

void PipelineReader::read_swept_slot(const std::string& name, const toml::table& candidate_root,
                                     Pipeline& candidate, const std::vector<Axis>& axes,
                                     const std::vector<std::size_t>& digit,
                                     const std::string& note) const {
  // The value that makes a problem elsewhere in the slot: its plugin's, else its first.
  std::optional<std::size_t> culprit;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].slot != name) continue;
    if (!culprit || axes[a].param == "plugin") culprit = a;
    if (axes[a].param == "plugin") break;
  }
  if (!culprit) return;
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

std::string PipelineReader::axis_key_at(const toml::table& search, const Axis& axis) const {
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
}  // namespace pipeline

}  // namespace radial
