// radial plot: checks everything it can before drawing (kind, inputs, output, gnuplot), then
// renders in a private folder and writes the image atomically.
#include "plot_command.hpp"

#include <cmath>
#include <sstream>

#include "../commands.hpp"
#include "figure.hpp"
#include "gnuplot.hpp"
#include "kinds.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"
#include "radial/io/input_file.hpp"
#include "radial/model/model_store.hpp"
#include "radial/experiment/results_store.hpp"

namespace radial::cli {
namespace {

using namespace plot;

const char* const kinds = "learning-curve, series, selection, decision-regions, results";

void expect_inputs(const PlotArgs& args, std::size_t least, std::size_t most, const std::string& what) {
  const std::size_t n = args.inputs.size();
  if (n < least || n > most) {
    throw InputError("plot " + args.kind + " takes " + what + "; " + std::to_string(n) + " given");
  }
}

// "a+b" or "a,b" -> {"a", "b"}.
std::vector<std::string> dimensions(const std::string& text) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, text.find('+') != std::string::npos ? '+' : ',')) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

// The data beside the model, its columns matched to the model's features by name.
Dataset read_model_data(const Model& model, const std::string& file) {
  DataOptions options = model_data_options(model);
  if (!model.input_coding.empty()) options.coding = model.input_coding;
  Dataset data = read_dataset(file, options);
  if (data.feature_names != model.feature_names) {
    data.inputs = read_model_inputs(file, model.feature_names, model.input_coding);
    data.feature_names = model.feature_names;
  }
  return data;
}

// --xrange LO:HI -> (LO, HI), LO < HI, both finite.
std::optional<std::pair<double, double>> parse_range(const std::string& option, const std::string& text) {
  if (text.empty()) return std::nullopt;
  const std::size_t colon = text.find(':');
  try {
    if (colon != std::string::npos) {
      std::size_t used_lo = 0, used_hi = 0;
      const double lo = std::stod(text.substr(0, colon), &used_lo);
      const double hi = std::stod(text.substr(colon + 1), &used_hi);
      if (used_lo == colon && used_hi == text.size() - colon - 1 && std::isfinite(lo) &&
          std::isfinite(hi) && lo < hi) {
        return std::make_pair(lo, hi);
      }
    }
  } catch (const std::exception&) {
  }
  throw InputError(option + " " + text + ": give LO:HI, two finite numbers with LO < HI (e.g. -1.5:1)");
}

}  // namespace

int plot_command(const Registry& registry, const PlotArgs& args) {
  if (args.kind != "learning-curve" && args.kind != "series" && args.kind != "decision-regions" &&
      args.kind != "results" && args.kind != "selection") {
    throw InputError("plot: unknown kind '" + args.kind + "'; kinds: " + kinds);
  }
  if (args.kind == "learning-curve") expect_inputs(args, 1, 64, "one or more REPORT files");
  if (args.kind == "series") expect_inputs(args, 1, 1, "one REPORT file");
  if (args.kind == "selection") expect_inputs(args, 1, 1, "one REPORT file");
  if (args.kind == "decision-regions") expect_inputs(args, 2, 2, "MODEL DATA");
  if (args.kind == "results") expect_inputs(args, 1, 1, "one results database (DB)");
  if (args.output.empty()) throw InputError("plot " + args.kind + ": give --output FILE.svg, .png or .pdf");
  std::vector<NamedFile> inputs;
  for (const std::string& input : args.inputs) inputs.push_back({"input " + input, input});
  const FigureTarget target = check_figure_output("--output", args.output, inputs);
  check_figure_size(args.width, args.height);
  const View view{parse_range("--xrange", args.xrange), parse_range("--yrange", args.yrange)};
  find_gnuplot();  // a missing engine is refused before any input is read

  PlotBody body;
  if (args.kind == "learning-curve") {
    std::vector<ReportFile> reports;
    for (const std::string& file : args.inputs) reports.push_back(read_report(file));
    body = learning_curve_plot(reports, args.labels, args.stage, args.x, args.logx, args.logy);
  } else if (args.kind == "series") {
    body = series_plot(read_report(args.inputs[0]), args.stage, args.names);
  } else if (args.kind == "selection") {
    body = selection_plot(read_report(args.inputs[0]));
  } else if (args.kind == "decision-regions") {
    const Model model = load_model(args.inputs[0]);
    auto basis = restore_basis(registry, model, args.inputs[0]);
    body = decision_regions_plot(model, basis, args.inputs[0], read_model_data(model, args.inputs[1]),
                                 args.probabilities, view);
  } else {
    TableSpec spec;
    if (!args.rows.empty()) spec.rows = dimensions(args.rows);
    if (!args.columns.empty()) spec.columns = dimensions(args.columns);
    if (!args.value.empty()) spec.value = args.value;
    // Opened as an input first: a missing database is an error, never a new empty one.
    InputFile::open(args.inputs[0], "results database");
    const ResultsStore store(args.inputs[0], ResultsStore::Access::ReadOnly);
    const std::vector<RunRecord> runs = runs_for_table(
        [&](const std::function<void(RunRecord&&)>& visit) { store.for_each_run(visit); }, spec);
    const std::string title = runs.empty() ? std::string() : runs.front().experiment;
    body = results_plot(make_table(runs, spec, title), args.inputs[0]);
  }
  write_figure(target, render_figure(target.format, args.width, args.height,
                                     args.title.empty() ? body.title : args.title, body.script));
  return 0;
}

}  // namespace radial::cli
