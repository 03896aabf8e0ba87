// read_experiment and parse_experiment of radial/experiment/experiment.hpp: TOML (toml++) in the
// style of the pipeline reader, every error "file:line:column: message" at the offending key or
// value; then every pipeline is read with its set and each grid point, against each dataset, so a
// bad pipeline or override is reported before any run.

#include "radial/experiment/experiment.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include <toml++/toml.h>

#include "experiment_internal.hpp"
#include "../pipeline/toml_fields.hpp"
#include "../pipeline/toml_kind.hpp"
#include "../pipeline/toml_place.hpp"
#include "radial/core/errors.hpp"
#include "radial/io/input_file.hpp"
#include "radial/pipeline/legacy_prior_table.hpp"
#include "radial/core/text.hpp"

namespace radial {

namespace experiment {

namespace fs = std::filesystem;

std::vector<std::string> overrides(const ExperimentPipeline& pipeline, const GridPoint& point) {
  std::vector<std::string> out = pipeline.set;
  for (const auto& [key, value] : point) out.push_back(key + "=" + value);
  return out;
}

DataReplacement replacement(const Experiment& experiment, std::size_t index) {
  const ExperimentDataset& d = experiment.datasets[index];
  DataReplacement r;
  r.train = d.train;
  r.test = d.test;
  r.target = d.target;
  r.task = d.task;
  r.label = d.where.str();
  return r;
}

namespace {

// "centres.count" -> the pipeline table "centres" and "count"; false when the key is not
// table.parameter. The tables are the slots' and the old table of both priors
// (kLegacyPriorTable).
bool split_key(const std::string& key, std::string& table, std::string& param) {
  const auto dot = key.find('.');
  if (dot == std::string::npos) return false;
  table = key.substr(0, dot);
  param = key.substr(dot + 1);
  bool known = table == kLegacyPriorTable;
  known = known || slot_named(table).has_value();
  return known && !param.empty() && param.find('.') == std::string::npos;
}

// The component written in `table` and its slot, or null when the pipeline has no such table.
const ComponentSpec* component_in(const Pipeline& pipeline, const std::string& table,
                                  Slot& slot) {
  // A prior by the table it was written in (the old table holds either), the rest by name.
  for (const Slot s : all_slots) {
    const ComponentSpec* spec = pipeline.component(s);
    const bool prior = s == Slot::WeightPenalty || s == Slot::KernelPrior;
    if (spec && (prior ? spec->table == table : table == to_string(s))) {
      slot = s;
      return spec;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<std::size_t> applicable_axes(const std::vector<GridAxis>& grid, const Pipeline& pipeline,
                                         const Registry& registry) {
  std::vector<std::size_t> out;
  for (std::size_t a = 0; a < grid.size(); ++a) {
    Slot slot{};
    std::string table, param;
    if (!split_key(grid[a].key, table, param)) continue;
    const ComponentSpec* spec = component_in(pipeline, table, slot);
    if (spec == nullptr) continue;
    const ComponentInfo* info = registry.find(slot, spec->plugin);
    if (info != nullptr && find_param(info->params, param) != nullptr) out.push_back(a);
  }
  return out;
}

void check_run_count(const Experiment& e, const std::vector<std::vector<std::size_t>>& axes) {
  std::size_t count = 0;
  for (const std::vector<std::size_t>& list : axes) {
    std::size_t points = e.seeds.size() * e.datasets.size();
    for (const std::size_t axis : list)
      if (points <= max_planned_runs) points *= e.grid[axis].values.size();
    count += std::min(points, max_planned_runs + 1);
  }
  if (count <= max_planned_runs) return;
  throw InputError(e.file.string() + ": the experiment has more than " +
                   std::to_string(max_planned_runs) +
                   " runs (datasets x pipelines x grid points x seeds), the most one experiment "
                   "plans; split it into several experiments or shorten the grid");
}

std::vector<GridPoint> grid_points(const std::vector<GridAxis>& grid,
                                   const std::vector<std::size_t>& axes) {
  std::vector<GridPoint> points{GridPoint{}};
  for (std::size_t a : axes) {
    std::vector<GridPoint> next;
    for (const GridPoint& point : points) {
      for (const std::string& value : grid[a].values) {
        GridPoint p = point;
        p.emplace_back(grid[a].key, value);
        next.push_back(std::move(p));
      }
    }
    points = std::move(next);
  }
  return points;
}

std::string pipeline_text(const fs::path& file) {
  InputFile in = InputFile::open<PipelineError>(file, "pipeline file");
  return in.read_all<PipelineError>(max_pipeline_bytes);
}

}  // namespace experiment

namespace {

namespace fs = std::filesystem;
using experiment::GridPoint;

using text::guess;
using text::in_quotes;
using text::join;

using pipeline::fail;
using pipeline::kind;
using pipeline::parse_toml;
using pipeline::TomlSource;

bool scalar(const toml::node& node) {
  return node.is_integer() || node.is_floating_point() || node.is_boolean() || node.is_string();
}

// A scalar as TOML text that parses back to the same value: what an override carries.
std::string toml_text(const toml::node& node) {
  if (const auto* v = node.as_integer()) return std::to_string(v->get());
  if (const auto* v = node.as_boolean()) return v->get() ? "true" : "false";
  if (const auto* v = node.as_floating_point()) {
    const double x = v->get();
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);  // shortest round trip
    std::string text(buffer, result.ptr);
    if (text.find_first_of(".e") == std::string::npos) text += ".0";  // stays a float
    return text;
  }
  static const char digits[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (unsigned char c : node.as_string()->get()) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += "\\u00";
          out += digits[c >> 4];
          out += digits[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// A dotted key of a set or grid entry: written quoted ("centres.count") or as TOML dotted keys
// (centres.count), which toml++ gives as nested tables.
struct Leaf {
  std::string path;
  const toml::key* key;
  const toml::node* node;
};

void flatten(const toml::table& table, const std::string& prefix, std::vector<Leaf>& out) {
  for (auto&& [key, node] : table) {
    const std::string path = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    if (const toml::table* inner = node.as_table()) {
      flatten(*inner, path, out);
    } else {
      out.push_back({path, &key, &node});
    }
  }
}

const std::vector<std::string> kTopLevel = {"name", "seeds", "datasets", "pipelines", "grid",
                                            "table"};
const std::vector<std::string> kDatasetKeys = {"name",  "train",  "test", "file",
                                               "split", "target", "task"};
const std::vector<std::string> kSplitKeys = {"train_rows", "folds"};
const std::vector<std::string> kPipelineKeys = {"name", "file", "set"};
const std::vector<std::string> kTableKeys = {"rows", "columns", "value", "compare"};
const std::vector<std::string> kTasks = {"classification", "regression"};

class ExperimentReader : TomlSource {
 public:
  ExperimentReader(const fs::path& file, const Registry& registry)
      : TomlSource(file), registry_(registry) {}

  Experiment read(const std::string& text) {
    toml::table root = parse_toml(text, display_);
    Experiment e;
    e.file = absolute_;
    e.name = absolute_.stem().string();
    for (auto&& [key, node] : root) {
      const std::string name(key.str());
      if (std::find(kTopLevel.begin(), kTopLevel.end(), name) != kTopLevel.end()) continue;
      const std::string what =
          node.is_table() ? "unknown table [" + name + "]" : "unknown key " + in_quotes(name);
      fail(at(key.source()), what + guess(name, kTopLevel) +
                                 "; an experiment takes name, seeds and the tables [[datasets]], "
                                 "[[pipelines]], [grid] and [table]");
    }
    if (const toml::node* node = root.get("name")) {
      e.name = string(*node, "name");
      if (e.name.empty()) fail(at(node->source()), "name is empty; write name = \"...\"");
    }
    if (const toml::node* node = root.get("seeds")) e.seeds = seeds(*node);
    datasets(root, e);
    pipelines(root, e);
    grid(root, e);
    table(root, e);
    validate_pipelines(e);
    return e;
  }

 private:
  // The leaves of the table `name` (set, grid); PipelineError at `node` when it is no table.
  std::vector<Leaf> leaves_of(const toml::node& node, const std::string& name,
                              const std::string& example) const {
    const toml::table* table = node.as_table();
    if (table == nullptr) {
      fail(at(node.source()),
           name + " must be a table, found " + kind(node) + "; write " + example);
    }
    std::vector<Leaf> leaves;
    flatten(*table, "", leaves);
    return leaves;
  }
  SourcePosition position(const toml::node& node) const {
    const auto& begin = node.source().begin;
    return SourcePosition{display_, begin.line, begin.column};
  }

  const std::string& string(const toml::node& node, const std::string& name) const {
    return pipeline::string_field(node, at(node.source()), name);
  }

  std::int64_t integer(const toml::node& node, const std::string& name, std::int64_t low) const {
    return pipeline::integer_field(node, at(node.source()), name, low);
  }

  void unknown_keys(const toml::table& table, const std::string& name,
                    const std::vector<std::string>& allowed) const {
    for (auto&& [key, node] : table) {
      const std::string word(key.str());
      if (std::find(allowed.begin(), allowed.end(), word) != allowed.end()) continue;
      pipeline::unknown_key(at(key.source()), word, name, allowed);
    }
  }

  // An array of tables [[name]] (required, non-empty).
  const toml::array& tables(const toml::table& root, const std::string& name,
                            const std::string& hint) const {
    const toml::node* node = root.get(name);
    if (node == nullptr) fail(top(), "missing [[" + name + "]]; add at least one: " + hint);
    const toml::array* array = node->as_array();
    if (array == nullptr || !array->is_array_of_tables() || array->empty()) {
      fail(at(node->source()), name + " must be one or more tables [[" + name + "]], found " +
                                   kind(*node) + "; write [[" + name + "]] on its own line, "
                                   "followed by " + hint);
    }
    return *array;
  }

  std::vector<std::uint64_t> seeds(const toml::node& node) const {
    const std::string hint = "; write seeds = [1, 2, 3] (integers >= 0)";
    std::vector<std::uint64_t> out;
    if (node.is_integer()) {
      out.push_back(static_cast<std::uint64_t>(integer(node, "seed", 0)));
      return out;
    }
    const toml::array* array = node.as_array();
    if (array == nullptr || array->empty()) {
      fail(at(node.source()), "seeds must be a non-empty array of integers, found " +
                                  (array ? std::string("an empty array") : kind(node)) + hint);
    }
    for (const toml::node& item : *array) {
      const auto seed = static_cast<std::uint64_t>(integer(item, "seed", 0));
      if (std::find(out.begin(), out.end(), seed) != out.end()) {
        fail(at(item.source()), "seed " + std::to_string(seed) +
                                    " appears twice in seeds; each seed is one run, list it once");
      }
      out.push_back(seed);
    }
    return out;
  }

  fs::path resolve(const std::string& text) const {
    const fs::path path(text);
    return (path.is_absolute() ? path : folder_ / path).lexically_normal();
  }

  // A file named by `key` of `table`: it must exist (reported at the key) and not be a folder.
  fs::path existing_file(const toml::table& table, const std::string& key,
                         const std::string& role, const std::string& what) const {
    const auto entry = table.find(key);
    const std::string& text = string(entry->second, key);
    if (text.empty()) fail(at(entry->second.source()), key + " is empty; name " + what);
    const fs::path file = resolve(text);
    std::error_code error;
    const auto status = fs::status(file, error);
    if (!fs::exists(status)) {
      fail(at(entry->first.source()),
           role + " " + in_quotes(text) + " not found (looked for " + file.string() +
               "); fix the path, which is relative to the experiment file's folder");
    }
    if (fs::is_directory(status)) {
      fail(at(entry->first.source()),
           role + " " + in_quotes(text) + " is a folder (" + file.string() + "); name " + what);
    }
    return file;
  }

  void datasets(const toml::table& root, Experiment& e) const {
    const std::string hint = "name = \"...\" and train = \"<file>.csv\" (with test = ...) or "
                             "file = \"<file>.csv\" with split = { train_rows = N } or "
                             "split = { folds = K }";
    std::map<std::string, SourcePosition> names;
    for (const toml::node& item : tables(root, "datasets", hint)) {
      const toml::table& t = *item.as_table();
      unknown_keys(t, "[[datasets]]", kDatasetKeys);
      ExperimentDataset d;
      d.where = position(t);
      const std::string entry = d.where.str();
      const char* data_file = "a CSV or .npy file";
      const bool has_file = t.contains("file"), has_train = t.contains("train");
      if (has_file && has_train) {
        fail(at(t.find("file")->first.source()),
             "a dataset has either file (split by split = ...) or train (and test), not both; "
             "remove one");
      }
      if (!has_file && !has_train) fail(entry, "[[datasets]] needs " + hint);
      if (has_file) {
        if (t.contains("test")) {
          fail(at(t.find("test")->first.source()),
               "test goes with train, not with file (file is split into training and test "
               "rows by split); write train = ... and test = ..., or remove test");
        }
        d.train = existing_file(t, "file", "data file", data_file);
        const toml::node* split = t.get("split");
        if (split == nullptr) {
          fail(at(t.find("file")->first.source()),
               "file needs split = { train_rows = N } (a random stratified split, the rest "
               "for testing) or split = { folds = K } (k-fold cross-validation); add it");
        }
        this->split(*split, d);
      } else {
        if (const toml::node* split = t.get("split")) {
          fail(at(split->source()),
               "split goes with file = \"<file>\"; with train (and test) the split is given. "
               "Write file = instead of train =, or remove split");
        }
        d.train = existing_file(t, "train", "train file", data_file);
        if (t.contains("test")) d.test = existing_file(t, "test", "test file", data_file);
      }
      if (const toml::node* node = t.get("target")) d.target = string(*node, "target");
      if (const toml::node* node = t.get("task")) {
        const std::string& task = string(*node, "task");
        if (task == "classification") {
          d.task = Task::Classification;
        } else if (task == "regression") {
          d.task = Task::Regression;
        } else {
          fail(at(node->source()), "task = \"" + task +
                                       "\". Violated constraint: task is one of "
                                       "classification, regression" + guess(task, kTasks));
        }
      }
      if (const toml::node* node = t.get("name")) {
        d.name = string(*node, "name");
        if (d.name.empty()) fail(at(node->source()), "name is empty; give the dataset a name");
      } else {
        d.name = d.train.stem().string();
      }
      const auto [other, fresh] = names.emplace(d.name, d.where);
      if (!fresh) {
        const toml::node* node = t.get("name");
        fail(node ? at(node->source()) : entry,
             "dataset name " + in_quotes(d.name) + " is used twice (also at " +
                 other->second.str() + "); give each dataset its own name");
      }
      e.datasets.push_back(std::move(d));
    }
  }

  void split(const toml::node& node, ExperimentDataset& d) const {
    const std::string hint = "write split = { train_rows = N } or split = { folds = K }";
    const toml::table* t = node.as_table();
    if (t == nullptr) {
      fail(at(node.source()), "split must be a table, found " + kind(node) + "; " + hint);
    }
    unknown_keys(*t, "split", kSplitKeys);
    const toml::node* rows = t->get("train_rows");
    const toml::node* folds = t->get("folds");
    if ((rows == nullptr) == (folds == nullptr)) {
      fail(at(node.source()), std::string(rows ? "split has both train_rows and folds"
                                               : "split is empty") +
                                  "; " + hint);
    }
    if (rows != nullptr) {
      // train_rows < the file's rows is checked when the file is read, for each run.
      d.split_train_rows = static_cast<std::size_t>(integer(*rows, "train_rows", 1));
    } else {
      d.split_folds = static_cast<std::size_t>(integer(*folds, "folds", 2));
    }
  }

  void pipelines(const toml::table& root, Experiment& e) {
    const std::string hint = "name = \"...\" and file = \"<pipeline>.toml\" (relative to this "
                             "file), optionally set = { \"centres.count\" = 12 }";
    std::map<std::string, SourcePosition> names;
    for (const toml::node& item : tables(root, "pipelines", hint)) {
      const toml::table& t = *item.as_table();
      unknown_keys(t, "[[pipelines]]", kPipelineKeys);
      ExperimentPipeline p;
      p.where = position(t);
      if (!t.contains("file")) fail(p.where.str(), "[[pipelines]] needs " + hint);
      p.file = existing_file(t, "file", "pipeline file", "a pipeline file (.toml)");
      std::map<std::string, std::string> labels;  // override -> where it is written
      if (const toml::node* node = t.get("set")) {
        for (const Leaf& leaf : leaves_of(*node, "set", "set = { \"centres.count\" = 12 }")) {
          if (!scalar(*leaf.node)) {
            fail(at(leaf.node->source()),
                 "set " + in_quotes(leaf.path) + " must be a number, boolean or string, found " +
                     kind(*leaf.node) + "; write one value (sweep values with [grid])");
          }
          const std::string text = leaf.path + "=" + toml_text(*leaf.node);
          labels[text] = at(leaf.node->source()) + ": set " + leaf.path + " = " +
                         toml_text(*leaf.node) + " of pipeline ";
          p.set.push_back(text);
        }
      }
      if (const toml::node* node = t.get("name")) {
        p.name = string(*node, "name");
        if (p.name.empty()) fail(at(node->source()), "name is empty; give the pipeline a name");
      } else {
        p.name = p.file.stem().string();
      }
      for (auto& [text, label] : labels) label += in_quotes(p.name);
      set_labels_.push_back(std::move(labels));
      const auto [other, fresh] = names.emplace(p.name, p.where);
      if (!fresh) {
        const toml::node* node = t.get("name");
        fail(node ? at(node->source()) : p.where.str(),
             "pipeline name " + in_quotes(p.name) + " is used twice (also at " +
                 other->second.str() + "); give each pipeline its own name");
      }
      e.pipelines.push_back(std::move(p));
    }
  }

  void grid(const toml::table& root, Experiment& e) {
    const toml::node* node = root.get("grid");
    if (node == nullptr) return;
    for (const Leaf& leaf :
         leaves_of(*node, "grid", "[grid] followed by \"slot.key\" = [values]")) {
      GridAxis axis;
      axis.key = leaf.path;
      axis.where = position(*leaf.node);
      std::string table, param;
      if (!experiment::split_key(leaf.path, table, param)) {
        fail(at(leaf.key->source()),
             "grid key " + in_quotes(leaf.path) + " is not slot.parameter; the grid sweeps "
             "plugin parameters of basis, centres, output, weight-penalty, kernel-prior or refine "
             "(e.g. \"weight-penalty.alpha\" = [0, 5, 10])");
      }
      const toml::array* values = leaf.node->as_array();
      if (values == nullptr || values->empty()) {
        fail(at(leaf.node->source()),
             "grid " + in_quotes(leaf.path) + " must be a non-empty array of values, found " +
                 (values ? std::string("an empty array") : kind(*leaf.node)) + "; write " +
                 leaf.path + " = [value, ...]");
      }
      for (const toml::node& value : *values) {
        if (!scalar(value)) {
          fail(at(value.source()), "grid " + in_quotes(leaf.path) +
                                       " values must be numbers, booleans or strings, found " +
                                       kind(value));
        }
        const std::string text = toml_text(value);
        if (std::find(axis.values.begin(), axis.values.end(), text) != axis.values.end()) {
          fail(at(value.source()), text + " appears twice in grid " + in_quotes(leaf.path) +
                                       "; list each value once");
        }
        axis.values.push_back(text);
        grid_labels_[leaf.path + "=" + text] =
            at(value.source()) + ": grid " + leaf.path + " = " + text + " for pipeline ";
      }
      grid_keys_.push_back(leaf.key);
      e.grid.push_back(std::move(axis));
    }
  }

  std::vector<std::string> dimensions(const toml::table& t, const std::string& key,
                                      const Experiment& e) const {
    const toml::node* node = t.get(key);
    std::vector<const toml::node*> items;
    if (node->is_string()) {
      items.push_back(node);
    } else if (const toml::array* array = node->as_array(); array && !array->empty()) {
      for (const toml::node& item : *array) items.push_back(&item);
    } else {
      fail(at(node->source()), key + " must be a dimension name or a non-empty array of them, "
                                     "found " + kind(*node) + "; e.g. " + key +
                                     " = \"dataset\" or " + key + " = [\"dataset\", \"seed\"]");
    }
    std::vector<std::string> known = {"dataset", "pipeline", "seed"};
    for (const GridAxis& axis : e.grid) known.push_back(axis.key);
    std::vector<std::string> out;
    for (const toml::node* item : items) {
      const std::string& name = string(*item, key);
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        fail(at(item->source()), "unknown dimension " + in_quotes(name) + " in " + key +
                                     guess(name, known) + "; the dimensions are " + join(known));
      }
      out.push_back(name);
    }
    return out;
  }

  void table(const toml::table& root, Experiment& e) const {
    const toml::node* node = root.get("table");
    if (node == nullptr) return;
    const toml::table* t = node->as_table();
    if (t == nullptr) {
      fail(at(node->source()), "table must be a table, found " + kind(*node) +
                               "; write [table] followed by rows, columns and value");
    }
    unknown_keys(*t, "[table]", kTableKeys);
    if (t->contains("rows")) e.table.rows = dimensions(*t, "rows", e);
    if (t->contains("columns")) e.table.columns = dimensions(*t, "columns", e);
    if (const toml::node* value = t->get("value")) {
      e.table.value = string(*value, "value");
      if (e.table.value.empty()) {
        fail(at(value->source()), "value is empty; name a report value such as "
                                  "\"test.error_rate\"");
      }
      const std::string problem = value_path_problem(e.table.value);
      if (!problem.empty()) fail(at(value->source()), problem);
    }
    if (const toml::node* compare = t->get("compare")) {
      const toml::array* array = compare->as_array();
      if (array == nullptr || array->size() != 2) {
        fail(at(compare->source()), "compare must name two pipelines, found " +
                                        (array ? std::to_string(array->size()) + " values"
                                               : kind(*compare)) +
                                        "; write compare = [\"A\", \"B\"]");
      }
      std::vector<std::string> names;
      for (const ExperimentPipeline& p : e.pipelines) names.push_back(p.name);
      for (const toml::node& item : *array) {
        const std::string& name = string(item, "compare");
        if (std::find(names.begin(), names.end(), name) == names.end()) {
          fail(at(item.source()), "compare names pipeline " + in_quotes(name) +
                                      ", which is not in this experiment" + guess(name, names) +
                                      "; the pipelines are " + join(names));
        }
        e.table.compare.push_back(name);
      }
      if (e.table.compare[0] == e.table.compare[1]) {
        fail(at(compare->source()), "compare names " + in_quotes(e.table.compare[0]) +
                                        " twice; name two different pipelines");
      }
    }
  }

  // One pipeline read as a run would read it; errors say which entry of this file caused them.
  Pipeline read_one(const Experiment& e, std::size_t p, const std::string& text,
                    const GridPoint& point, std::size_t d) const {
    const ExperimentPipeline& entry = e.pipelines[p];
    const std::vector<std::string> overrides = experiment::overrides(entry, point);
    try {
      return parse_pipeline(text, entry.file, registry_, overrides, experiment::replacement(e, d));
    } catch (const PipelineError& error) {
      const std::string message = error.what();
      // An override's message starts "--set key=value: "; point at where it is written here.
      for (const std::string& o : overrides) {
        const std::string prefix = "--set " + o + ": ";
        if (message.compare(0, prefix.size(), prefix) != 0) continue;
        std::string where;
        if (auto g = grid_labels_.find(o); g != grid_labels_.end() &&
                                           std::find(entry.set.begin(), entry.set.end(), o) ==
                                               entry.set.end()) {
          where = g->second + in_quotes(entry.name);
        } else {
          where = set_labels_[p].at(o);
        }
        throw PipelineError(where + ": " + message.substr(prefix.size()));
      }
      std::string context = "pipeline " + in_quotes(entry.name);
      if (!point.empty()) {
        std::vector<std::string> values;
        for (const auto& [key, value] : point) values.push_back(key + " = " + value);
        context += " at grid point " + join(values);
      }
      context += " with dataset " + in_quotes(e.datasets[d].name);
      throw PipelineError(entry.where.str() + ": " + context + ": " + message);
    }
  }

  void validate_pipelines(const Experiment& e) const {
    std::vector<std::string> texts;
    std::vector<std::vector<std::size_t>> axes;
    for (std::size_t p = 0; p < e.pipelines.size(); ++p) {
      texts.push_back(experiment::pipeline_text(e.pipelines[p].file));
      const Pipeline base = read_one(e, p, texts[p], {}, 0);
      axes.push_back(experiment::applicable_axes(e.grid, base, registry_));
    }
    for (std::size_t a = 0; a < e.grid.size(); ++a) {
      bool used = false;
      for (const auto& list : axes) used = used || std::count(list.begin(), list.end(), a) != 0;
      if (!used) no_pipeline(e, a);
    }
    experiment::check_run_count(e, axes);  // before a pipeline is read per grid point
    for (std::size_t d = 0; d < e.datasets.size(); ++d) {
      for (std::size_t p = 0; p < e.pipelines.size(); ++p) {
        for (const GridPoint& point : experiment::grid_points(e.grid, axes[p])) {
          read_one(e, p, texts[p], point, d);
        }
      }
    }
  }

  [[noreturn]] void no_pipeline(const Experiment& e, std::size_t a) const {
    const GridAxis& axis = e.grid[a];
    Slot slot{};
    std::string table, param;
    experiment::split_key(axis.key, table, param);
    std::vector<std::string> declared, plugins;
    for (std::size_t p = 0; p < e.pipelines.size(); ++p) {
      const Pipeline base = parse_pipeline(experiment::pipeline_text(e.pipelines[p].file),
                                           e.pipelines[p].file, registry_, e.pipelines[p].set,
                                           experiment::replacement(e, 0));
      const ComponentSpec* spec = experiment::component_in(base, table, slot);
      if (spec == nullptr) continue;
      plugins.push_back(spec->plugin);
      if (const ComponentInfo* info = registry_.find(slot, spec->plugin)) {
        for (const ParamSpec& ps : info->params) declared.push_back(ps.name);
      }
    }
    std::sort(plugins.begin(), plugins.end());
    plugins.erase(std::unique(plugins.begin(), plugins.end()), plugins.end());
    std::sort(declared.begin(), declared.end());
    declared.erase(std::unique(declared.begin(), declared.end()), declared.end());
    const std::string slot_name = table;
    std::string message = "grid key " + in_quotes(axis.key) + " applies to no pipeline: ";
    if (plugins.empty()) {
      message += "no pipeline has a [" + slot_name + "] plugin";
    } else {
      message += "no " + slot_name + " plugin of the pipelines (" + join(plugins) +
                 ") declares " + in_quotes(param) + guess(param, declared);
      if (!declared.empty()) message += "; their parameters are " + join(declared);
    }
    fail(at(grid_keys_[a]->source()), message);
  }

  const Registry& registry_;
  std::vector<std::map<std::string, std::string>> set_labels_;  // per pipeline
  std::map<std::string, std::string> grid_labels_;
  std::vector<const toml::key*> grid_keys_;
};

}  // namespace

Experiment parse_experiment(const std::string& text, const std::filesystem::path& file,
                            const Registry& registry) {
  return ExperimentReader(file, registry).read(text);
}

Experiment read_experiment(const std::filesystem::path& file, const Registry& registry) {
  // An experiment is a few kB, as a pipeline is: the same limit.
  InputFile in = InputFile::open<PipelineError>(file, "experiment file");
  const std::string text = in.read_all<PipelineError>(max_pipeline_bytes);
  return parse_experiment(text, file, registry);
}

}  // namespace radial
