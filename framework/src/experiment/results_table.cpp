// Stored runs grouped into a table: the values read out of each run's report by a dotted path,
// the runs grouped by their dimensions (dataset, pipeline, seed, grid keys) into rows and
// columns, and the paired comparison of two columns.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "radial/core/errors.hpp"
#include "radial/numerics/sample_statistics.hpp"
#include "radial/io/json_depth.hpp"
#include "radial/core/params.hpp"
#include "radial/experiment/results_table.hpp"
#include "radial/core/text.hpp"

namespace radial {
namespace {

using nlohmann::json;

std::optional<json> parse(const std::string& text) {
  if (text.empty() || !json_depth_ok(text)) return std::nullopt;  // too deep: not a report
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

// The node at `path` below `node`. Keys may themselves hold dots ("search.best" has
// "centres.count"), so at each level the longest key that is a prefix of the path is tried
// first, then shorter ones. Array elements are addressed by their index.
const json* find(const json& node, const std::string& path) {
  if (path.empty()) return &node;
  if (node.is_object()) {
    std::vector<std::string> keys;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string& k = it.key();
      if (path == k || (path.size() > k.size() && path.compare(0, k.size(), k) == 0 &&
                        path[k.size()] == '.')) {
        keys.push_back(k);
      }
    }
    std::sort(keys.begin(), keys.end(),
              [](const std::string& x, const std::string& y) { return x.size() > y.size(); });
    for (const std::string& k : keys) {
      const std::string rest = path.size() > k.size() ? path.substr(k.size() + 1) : "";
      if (const json* found = find(node.at(k), rest)) return found;
    }
    return nullptr;
  }
  if (node.is_array()) {
    const auto dot = path.find('.');
    const std::string head = path.substr(0, dot);
    if (head.empty() || head.find_first_not_of("0123456789") != std::string::npos) return nullptr;
    const std::size_t i = std::stoul(head);
    if (i >= node.size()) return nullptr;
    return find(node[i], dot == std::string::npos ? "" : path.substr(dot + 1));
  }
  return nullptr;
}

std::optional<double> number(const json* node) {
  if (!node) return std::nullopt;
  if (node->is_number()) return node->get<double>();
  if (node->is_boolean()) return node->get<bool>() ? 1.0 : 0.0;
  return std::nullopt;
}

// "test.X" of a run evaluated by k-fold CV (no test set) is its "cv.X".
std::string effective_path(const json& report, const std::string& path) {
  if (path.rfind("test.", 0) == 0) {
    const bool has_test = report.contains("test") && !report["test"].is_null();
    const bool has_cv = report.contains("cv") && report["cv"].is_object();
    if (!has_test && has_cv) return "cv." + path.substr(5);
  }
  return path;
}

// --- dimensions ------------------------------------------------------------------------------

struct Dimension {
  std::string name;
  bool named = true;  // given in rows or columns (false: a grid key added to the columns)
};

// The value of a run along a dimension; nullopt for a grid key the run was not swept over.
struct DimValue {
  std::string text;
  std::optional<double> numeric;
};

std::optional<DimValue> dim_value(const RunRecord& run, const json& overrides,
                                  const std::string& dim) {
  if (dim == "dataset") return DimValue{run.dataset, std::nullopt};
  if (dim == "pipeline") return DimValue{run.pipeline, std::nullopt};
  if (dim == "experiment") return DimValue{run.experiment, std::nullopt};
  if (dim == "seed") return DimValue{std::to_string(run.seed), static_cast<double>(run.seed)};
  if (!overrides.is_object() || !overrides.contains(dim)) return std::nullopt;
  const json& v = overrides.at(dim);
  if (v.is_string()) return DimValue{v.get<std::string>(), std::nullopt};
  // Stored values may hold bytes that are not UTF-8 (a damaged database): U+FFFD, not thrown.
  const std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (v.is_number()) return DimValue{text, v.get<double>()};
  return DimValue{text, std::nullopt};
}

// Values of one dimension in table order: first appearance, or numerically when all are
// numbers. Absent (a run not swept over a grid key) sorts last.
struct Axis {
  std::vector<std::string> order;
  std::map<std::string, std::size_t> rank;
};

Axis make_axis(const std::vector<std::optional<DimValue>>& values) {
  Axis axis;
  std::vector<DimValue> distinct;
  std::set<std::string> seen;
  for (const auto& v : values) {
    if (v && seen.insert(v->text).second) distinct.push_back(*v);
  }
  const bool numeric = std::all_of(distinct.begin(), distinct.end(),
                                   [](const DimValue& v) { return v.numeric.has_value(); });
  if (numeric) {
    std::stable_sort(distinct.begin(), distinct.end(),
                     [](const DimValue& x, const DimValue& y) { return *x.numeric < *y.numeric; });
  }
  for (const DimValue& v : distinct) {
    axis.rank[v.text] = axis.order.size();
    axis.order.push_back(v.text);
  }
  return axis;
}

using text::join;

// One label part: names of datasets and pipelines as they are; seeds and grid values as
// "key=value", unless the dimension is alone in the rows (the row header names it).
std::string part(const std::string& dim, const std::string& value, bool bare) {
  if (bare || dim == "dataset" || dim == "pipeline" || dim == "experiment") return value;
  return dim + "=" + value;
}

struct Group {
  std::vector<std::size_t> ranks;  // per dimension; absent = axis size
  std::string label;
  // Label parts by dimension, for matching compare labels.
  std::map<std::string, std::string> parts;
};

}  // namespace

std::vector<RunRecord> runs_for_table(
    const std::function<void(const std::function<void(RunRecord&&)>&)>& for_each,
    const TableSpec& spec) {
  constexpr std::size_t kept_whole = 16;  // enough to name every report key in "did you mean"
  const std::string first = spec.value.substr(0, spec.value.find('.'));
  std::size_t whole = 0;
  std::vector<RunRecord> runs;
  for_each([&](RunRecord&& r) {
    if (r.status == "ok" && whole < kept_whole) {
      ++whole;
    } else if (const auto report = parse(r.report); report && report->is_object()) {
      json cut = json::object();
      for (const std::string& key : {first, std::string("test"), std::string("cv")})
        if (const auto it = report->find(key); it != report->end()) cut[key] = *it;
      r.report = cut.dump(-1, ' ', false, json::error_handler_t::replace);
    }
    runs.push_back(std::move(r));
  });
  return runs;
}

std::optional<double> run_value(const RunRecord& run, const std::string& path) {
  if (run.status != "ok") return std::nullopt;
  const auto report = parse(run.report);
  if (!report) return std::nullopt;
  const auto value = number(find(*report, effective_path(*report, path)));
  if (!value && path == "seconds" && std::isfinite(run.seconds)) return run.seconds;
  return value;
}

std::vector<double> run_fold_values(const RunRecord& run, const std::string& path) {
  if (run.status != "ok") return {};
  const auto report = parse(run.report);
  if (!report) return {};
  const std::string p = effective_path(*report, path);
  if (p.rfind("cv.", 0) == 0) {
    const json* folds = find(*report, "cv.per_fold");
    const std::string x = p.substr(3);
    if (folds && folds->is_array() && !folds->empty()) {
      std::vector<double> values;
      for (const json& fold : *folds) {
        const auto v = number(find(fold, x));
        if (!v) break;
        values.push_back(*v);
      }
      if (values.size() == folds->size()) return values;
    }
  }
  const auto v = run_value(run, path);
  return v ? std::vector<double>{*v} : std::vector<double>{};
}

std::string table_spec_json(const TableSpec& spec) {
  return json{{"rows", spec.rows}, {"columns", spec.columns}, {"value", spec.value},
              {"compare", spec.compare}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

TableSpec table_spec_from_json(const std::string& text) {
  const auto j = parse(text);
  TableSpec spec;
  try {
    if (!j || !j->is_object()) throw std::invalid_argument("not an object");
    spec.rows = j->at("rows").get<std::vector<std::string>>();
    spec.columns = j->at("columns").get<std::vector<std::string>>();
    spec.value = j->at("value").get<std::string>();
    spec.compare = j->at("compare").get<std::vector<std::string>>();
  } catch (const std::exception& e) {
    throw InputError("a stored table is malformed (" + std::string(e.what()) + "): " + text);
  }
  return spec;
}

std::string value_path_problem(const std::string& path) {
  // The report's keys (report.cpp, docs/pipeline-format.md "The report").
  static const std::vector<std::string> top{"name", "seed", "threads", "seconds", "data", "centres",
                                            "basis", "output", "train", "test", "cv", "search"};
  static const std::vector<std::string> metrics{"rows", "error_rate", "misclassified",
                                                "cross_entropy", "mse"};
  static const std::vector<std::string> cv{"rows", "error_rate", "misclassified", "cross_entropy",
                                           "mse", "folds", "committee", "error_rate_sd", "per_fold"};
  static const std::vector<std::string> stage{
      "iterations", "converged", "final_error", "seconds", "flops", "function_evaluations",
      "gradient_evaluations", "figures", "count", "outputs"};
  static const std::vector<std::string> data{"train_rows", "test_rows", "features", "classes",
                                             "constant_columns"};
  static const std::vector<std::string> search{"best", "folds", "candidates"};
  const auto dot = path.find('.');
  const std::string first = path.substr(0, dot);
  const std::string rest = dot == std::string::npos ? "" : path.substr(dot + 1);
  const std::string second = rest.substr(0, rest.find('.'));
  // The suggestion is the whole path with the misspelt part replaced.
  const auto unknown = [&](const std::string& word, const std::vector<std::string>& known,
                           const std::string& where, const std::string& before,
                           const std::string& after) {
    std::string message = "'" + path + "' is not a report value: " + where + " has no '" + word + "'";
    const std::string close = did_you_mean(word, known);
    if (!close.empty()) message += " (did you mean '" + before + close + after + "'?)";
    return message + "; it has " + join(known, ", ");
  };
  if (std::find(top.begin(), top.end(), first) == top.end()) {
    return unknown(first, top, "the report", "", rest.empty() ? "" : "." + rest);
  }
  const std::vector<std::string>* keys = nullptr;
  if (first == "train" || first == "test") keys = &metrics;
  else if (first == "cv") keys = &cv;
  else if (first == "centres" || first == "output" || first == "basis") keys = &stage;
  else if (first == "data") keys = &data;
  else if (first == "search") keys = &search;
  if (keys == nullptr) {
    return rest.empty() ? "" : "'" + path + "' is not a report value: " + first + " is a number itself";
  }
  if (rest.empty()) {
    return "'" + path + "' names a group of values, not a number; add one of " + join(*keys, ", ");
  }
  if (std::find(keys->begin(), keys->end(), second) == keys->end()) {
    return unknown(second, *keys, first, first + ".", rest.substr(second.size()));
  }
  return "";
}

namespace {

// InputError when no ok run's report has a number at `value` (failed runs have none to look
// at), with a did-you-mean over every number path of the reports.
void check_value_path(const std::vector<RunRecord>& runs, const std::string& value) {
  bool any_ok = false, found = false;
  std::set<std::string> paths;  // every number path of the reports, for "did you mean"
  for (const RunRecord& r : runs) {
    if (r.status != "ok") continue;
    any_ok = true;
    if (run_value(r, value)) {
      found = true;
      break;
    }
  }
  if (any_ok && !found) {
    std::function<void(const json&, const std::string&)> collect = [&](const json& n,
                                                                       const std::string& at) {
      if (n.is_object()) {
        for (auto it = n.begin(); it != n.end(); ++it) {
          collect(it.value(), at.empty() ? it.key() : at + "." + it.key());
        }
      } else if (n.is_number() || n.is_boolean() || n.is_null()) {
        paths.insert(at);
      }
    };
    for (const RunRecord& r : runs) {
      if (const auto report = parse(r.report)) {
        collect(*report, "");
        // A run evaluated by CV answers "test.X" too.
        if (report->contains("cv")) {
          for (auto it = (*report)["cv"].begin(); it != (*report)["cv"].end(); ++it) {
            paths.insert("test." + it.key());
          }
        }
      }
    }
    std::string message = "table value: no run has a number at '" + value + "'";
    if (paths.count(value) != 0) {
      // Present but null in every run: the runs' plugins do not compute it.
      message += " (it is null in every report: the runs' plugins do not compute it)";
    } else {
      const std::string guess = did_you_mean(value, {paths.begin(), paths.end()});
      if (!guess.empty()) message += " (did you mean '" + guess + "'?)";
    }
    throw InputError(message + "; e.g. test.error_rate, train.mse, cv.error_rate, output.flops");
  }

}

// The cell's mean and sample standard deviation of `v` (none when v is empty; no sd for one).
void set_mean_and_sd(const std::vector<double>& v, TableCell& cell) {
  if (v.empty()) return;
  cell.mean = mean(v);
  if (v.size() >= 2) cell.sd = sample_sd(v);
}

// The paired comparison of table.compared's two sides in each row (run i in row run_r[i],
// column run_c[i]).
void add_comparisons(const std::vector<RunRecord>& runs, const std::vector<json>& overrides,
                     const TableSpec& spec, const std::vector<Dimension>& column_dims,
                     const std::map<std::string, Axis>& axes,
                     const std::vector<const Group*>& columns,
                     const std::vector<std::size_t>& run_r, const std::vector<std::size_t>& run_c,
                     Table& table) {
  // Each compare label picks columns: a whole column label, or a value of one column dimension
  // (a pipeline's name) picking every column with it. Pairs are matched on everything else:
  // the experiment, seed, fold and the other column dimensions.
  struct Side {
    std::vector<std::size_t> columns;
    std::string dim;  // the column dimension the label is a value of, or empty
  };
  auto side_of = [&](const std::string& label) {
    Side side;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (table.column_labels[c] == label) side.columns = {c};
    }
    if (!side.columns.empty()) return side;
    for (const Dimension& d : column_dims) {
      for (std::size_t c = 0; c < columns.size(); ++c) {
        const auto it = columns[c]->parts.find(d.name);
        if (it != columns[c]->parts.end() && it->second == label) side.columns.push_back(c);
      }
      if (!side.columns.empty()) {
        side.dim = d.name;
        return side;
      }
    }
    std::vector<std::string> candidates = table.column_labels;
    for (const Dimension& d : column_dims) {
      for (const std::string& v : axes.at(d.name).order) candidates.push_back(v);
    }
    std::string message = "table compare: no column '" + label + "'";
    const std::string guess = did_you_mean(label, candidates);
    if (!guess.empty()) message += " (did you mean '" + guess + "'?)";
    throw InputError(message + "; columns: " + join(table.column_labels, ", "));
  };
  const Side a = side_of(spec.compare[0]), b = side_of(spec.compare[1]);
  table.compared = spec.compare;

  using MatchKey = std::tuple<std::string, std::uint64_t, std::string, std::size_t>;
  auto match_key = [&](std::size_t i, const Side& side, std::size_t fold) {
    std::string others;
    if (!side.dim.empty()) {
      for (const Dimension& d : column_dims) {
        if (d.name == side.dim) continue;
        const auto v = dim_value(runs[i], overrides[i], d.name);
        others += d.name + "=" + (v ? v->text : std::string("-")) + "\n";
      }
    }
    return MatchKey{runs[i].experiment, runs[i].seed, others, fold};
  };
  table.comparisons.assign(table.row_labels.size(), std::nullopt);
  std::vector<std::map<MatchKey, double>> a_values(table.row_labels.size()),
      b_values(table.row_labels.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::size_t r = run_r[i], c = run_c[i];
    const bool in_a = std::count(a.columns.begin(), a.columns.end(), c) > 0;
    const bool in_b = std::count(b.columns.begin(), b.columns.end(), c) > 0;
    if (!in_a && !in_b) continue;
    const std::vector<double> folds = run_fold_values(runs[i], spec.value);
    for (std::size_t k = 0; k < folds.size(); ++k) {
      if (in_a) a_values[r].emplace(match_key(i, a, k), folds[k]);  // first run of a key wins
      if (in_b) b_values[r].emplace(match_key(i, b, k), folds[k]);
    }
  }
  for (std::size_t r = 0; r < table.row_labels.size(); ++r) {
    std::vector<double> x, y;
    for (const auto& [key, va] : a_values[r]) {
      const auto it = b_values[r].find(key);
      if (it == b_values[r].end()) continue;
      x.push_back(va);
      y.push_back(it->second);
    }
    if (!x.empty()) table.comparisons[r] = compare_paired(x, y);
  }
}

// Each run's grid overrides (an object, empty when none) and the grid keys in order of first
// appearance.
struct Overrides {
  std::vector<json> of_run;
  std::vector<std::string> keys;
};

Overrides parse_overrides(const std::vector<RunRecord>& runs) {
  Overrides o;
  o.of_run.reserve(runs.size());
  for (const RunRecord& r : runs) {
    auto parsed = parse(r.overrides);
    o.of_run.push_back(parsed && parsed->is_object() ? *parsed : json::object());
    for (auto it = o.of_run.back().begin(); it != o.of_run.back().end(); ++it)
      if (std::find(o.keys.begin(), o.keys.end(), it.key()) == o.keys.end())
        o.keys.push_back(it.key());
  }
  return o;
}

// Every name of the spec checked before anything is grouped: the dimensions (`known`), the
// compared columns and the value path.
void check_table_spec(const std::vector<RunRecord>& runs, const TableSpec& spec,
                      const std::vector<std::string>& known) {
  auto check_dims = [&](const std::vector<std::string>& dims, const char* what) {
    if (dims.empty()) throw InputError(std::string("table ") + what + ": no dimension named");
    for (const std::string& d : dims) {
      if (std::find(known.begin(), known.end(), d) != known.end()) continue;
      std::string message = std::string("table ") + what + ": unknown dimension '" + d + "'";
      const std::string guess = did_you_mean(d, known);
      if (!guess.empty()) message += " (did you mean '" + guess + "'?)";
      throw InputError(message + "; known: " + join(known, ", "));
    }
  };
  check_dims(spec.rows, "rows");
  check_dims(spec.columns, "columns");
  if (!spec.compare.empty() && spec.compare.size() != 2) {
    throw InputError("table compare: names " + std::to_string(spec.compare.size()) +
                     " columns; give two, e.g. compare = [\"RBF/EM\", \"RBF/DEM\"]");
  }
  const std::string problem = value_path_problem(spec.value);
  if (!problem.empty()) throw InputError("table value: " + problem);
  check_value_path(runs, spec.value);
}

// The runs grouped into rows and columns, each in order of its per-dimension ranks.
struct Layout {
  std::vector<Dimension> row_dims, column_dims;
  std::map<std::string, Axis> axes;
  std::map<std::vector<std::size_t>, Group> row_groups, column_groups;
  std::vector<std::vector<std::size_t>> run_row, run_column;  // each run's group ranks
};

// Dimensions: rows, columns, then grid keys with several values that neither names.
Layout table_layout(const std::vector<RunRecord>& runs, const TableSpec& spec,
                    const Overrides& overrides, const std::vector<std::string>& known) {
  Layout l;
  for (const auto& d : spec.rows) l.row_dims.push_back({d, true});
  for (const auto& d : spec.columns) l.column_dims.push_back({d, true});
  auto values_of = [&](const std::string& dim) {
    std::vector<std::optional<DimValue>> values;
    for (std::size_t i = 0; i < runs.size(); ++i)
      values.push_back(dim_value(runs[i], overrides.of_run[i], dim));
    return values;
  };
  for (const std::string& d : known) l.axes[d] = make_axis(values_of(d));
  for (const std::string& g : overrides.keys) {
    const bool named = std::find(spec.rows.begin(), spec.rows.end(), g) != spec.rows.end() ||
                       std::find(spec.columns.begin(), spec.columns.end(), g) != spec.columns.end();
    if (!named && l.axes[g].order.size() > 1) l.column_dims.push_back({g, false});
  }

  auto group_of = [&](std::size_t i, const std::vector<Dimension>& dims, bool bare_single) {
    Group g;
    std::vector<std::string> label_parts;
    for (const Dimension& d : dims) {
      const auto v = dim_value(runs[i], overrides.of_run[i], d.name);
      const Axis& axis = l.axes[d.name];
      g.ranks.push_back(v ? axis.rank.at(v->text) : axis.order.size());
      if (v) {
        const std::string p = part(d.name, v->text, bare_single && dims.size() == 1);
        label_parts.push_back(p);
        g.parts[d.name] = v->text;
      }
    }
    g.label = label_parts.empty() ? "-" : join(label_parts, ", ");
    return g;
  };
  l.run_row.resize(runs.size());
  l.run_column.resize(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    Group r = group_of(i, l.row_dims, true), c = group_of(i, l.column_dims, false);
    l.run_row[i] = r.ranks;
    l.run_column[i] = c.ranks;
    l.row_groups.emplace(r.ranks, r);
    l.column_groups.emplace(c.ranks, c);
  }
  return l;
}

// Cells: mean and sample standard deviation over the runs that have the value.
void fill_cells(const std::vector<RunRecord>& runs, const TableSpec& spec,
                const std::vector<std::size_t>& run_r, const std::vector<std::size_t>& run_c,
                Table& table) {
  table.cells.assign(table.row_labels.size(), std::vector<TableCell>(table.column_labels.size()));
  std::vector<std::vector<std::vector<double>>> values(
      table.row_labels.size(), std::vector<std::vector<double>>(table.column_labels.size()));
  for (std::size_t i = 0; i < runs.size(); ++i) {
    TableCell& cell = table.cells[run_r[i]][run_c[i]];
    ++cell.runs;
    if (runs[i].status != "ok") ++cell.failed;
    if (const auto v = run_value(runs[i], spec.value)) values[run_r[i]][run_c[i]].push_back(*v);
  }
  for (std::size_t r = 0; r < table.row_labels.size(); ++r)
    for (std::size_t c = 0; c < table.column_labels.size(); ++c)
      set_mean_and_sd(values[r][c], table.cells[r][c]);
}

}  // namespace

Table make_table(const std::vector<RunRecord>& runs, const TableSpec& spec,
                 const std::string& title) {
  const Overrides overrides = parse_overrides(runs);
  std::vector<std::string> known{"dataset", "pipeline", "seed", "experiment"};
  known.insert(known.end(), overrides.keys.begin(), overrides.keys.end());
  check_table_spec(runs, spec, known);
  Layout layout = table_layout(runs, spec, overrides, known);

  Table table;
  table.title = title;
  table.value = spec.value;
  {
    std::vector<std::string> names;
    for (const auto& d : layout.row_dims) names.push_back(d.name);
    table.row_header = join(names, " / ");
  }
  std::map<std::vector<std::size_t>, std::size_t> row_index, column_index;
  for (const auto& [ranks, g] : layout.row_groups) {
    row_index[ranks] = table.row_labels.size();
    table.row_labels.push_back(g.label);
  }
  std::vector<const Group*> columns;
  for (const auto& [ranks, g] : layout.column_groups) {
    column_index[ranks] = table.column_labels.size();
    table.column_labels.push_back(g.label);
    columns.push_back(&g);
  }
  std::vector<std::size_t> run_r(runs.size()), run_c(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    run_r[i] = row_index.at(layout.run_row[i]);
    run_c[i] = column_index.at(layout.run_column[i]);
  }
  fill_cells(runs, spec, run_r, run_c, table);
  if (spec.compare.empty()) return table;
  add_comparisons(runs, overrides.of_run, spec, layout.column_dims, layout.axes, columns, run_r,
                  run_c, table);
  return table;
}

}  // namespace radial
