// train, validate, predict and evaluate.
#include "commands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include <unistd.h>

#include "outputs.hpp"
#include "plot/train_plots.hpp"
#include "summary.hpp"

#include "radial/data_reader.hpp"
#include "radial/errors.hpp"
#include "radial/model_store.hpp"
#include "radial/output_file.hpp"
#include "radial/network.hpp"
#include "radial/pipeline.hpp"
#include "radial/trainer.hpp"

namespace radial::cli {
namespace {

std::string format_number(double v) {
  char buf[32];
  if (std::floor(v) == v && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", v);
  }
  return buf;
}

// A name as one CSV cell: quoted ("" for a quote) when it holds a separator, a quote, a line
// end or edge spaces, so a column named "a,b" stays one column.
std::string csv_cell(const std::string& name) {
  const bool plain = name.find_first_of(",\"\r\n") == std::string::npos &&
                     (name.empty() || (name.front() != ' ' && name.back() != ' '));
  if (plain) return name;
  std::string out = "\"";
  for (const char ch : name) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

// Every file a training run reads: no output may replace one of them.
std::vector<NamedFile> training_inputs(const Registry& registry, const Pipeline& pipeline) {
  std::vector<NamedFile> inputs{{"pipeline file", pipeline.file},
                                {"training data", pipeline.data.train}};
  if (pipeline.data.test) inputs.push_back({"test data", *pipeline.data.test});
  std::vector<std::pair<Slot, const ComponentSpec*>> specs{
      {Slot::Basis, &pipeline.basis}, {Slot::Centres, &pipeline.centres}, {Slot::Output, &pipeline.output}};
  if (pipeline.weight_penalty) specs.push_back({Slot::WeightPenalty, &*pipeline.weight_penalty});
  if (pipeline.kernel_prior) specs.push_back({Slot::KernelPrior, &*pipeline.kernel_prior});
  for (const auto& [slot, spec] : specs) {
    const ComponentInfo* info = registry.find(slot, spec->plugin);
    if (!info) continue;
    for (const ParamSpec& param : info->params) {
      if (param.type != ParamType::Path || !spec->params.has(param.name)) continue;
      const std::string& file = spec->params.string(param.name);
      if (!file.empty()) inputs.push_back({std::string("file named by [") + to_string(slot) + "] " + param.name, file});
    }
  }
  return inputs;
}

}  // namespace

std::shared_ptr<Basis> restore_basis(const Registry& registry, const Model& model,
                                     const std::string& file) {
  const ComponentInfo* info = registry.find(Slot::Basis, model.basis_id);
  if (!info) {
    throw PluginError(file + ": the model needs the basis plugin '" + model.basis_id +
                      "', which is not installed (searched RADIAL_PLUGIN_PATH and the plugin folders)");
  }
  auto basis = registry.make_basis(model.basis_id, validate_params(info->params, model.basis_params,
                                                                   "basis " + model.basis_id + " in " + file));
  basis->load_state(model.basis_state);
  return basis;
}

int train_command(const Registry& registry, const TrainArgs& args) {
  const Pipeline pipeline = read_pipeline(args.pipeline, registry, args.overrides);
  // Outputs are checked before training, so a refused one costs nothing.
  const std::vector<NamedFile> inputs = training_inputs(registry, pipeline);
  std::optional<OutputTarget> model_target;
  std::vector<NamedOutput> outputs;
  if (!args.model.empty()) {
    model_target = checked_output("--model", args.model, "model file", inputs);
    outputs.push_back({"--model", *model_target});
  }
  const OutputTarget report_target =
      args.report.empty() ? OutputTarget{} : checked_output("--report", args.report, "report file", inputs, outputs);
  if (model_target && model_target->kind == OutputTarget::Kind::Stdout &&
      report_target.kind == OutputTarget::Kind::Stdout) {
    throw InputError("--model - and the report would both go to stdout; give --report FILE");
  }
  // At a terminal a person reads a summary instead of the JSON; scripts (stdout not a
  // terminal), --json and --report FILE get the JSON as before.
  const bool to_stdout_anyway = args.report == "-" ||
                                (model_target && model_target->kind == OutputTarget::Kind::Stdout);
  const bool summary = ::isatty(1) == 1 && !args.json && !to_stdout_anyway;
  std::optional<TrainPlots> plots;
  if (!args.plots.empty()) {
    std::vector<NamedOutput> earlier = outputs;
    if (!args.report.empty()) earlier.push_back({"--report", report_target});
    plots.emplace(args.plots, pipeline, inputs, earlier);
  }

  TrainOptions options;
  options.seed = args.seed;
  options.threads = args.threads;
  if (!args.quiet) options.log = [](const std::string& line) { std::cerr << "radial: " << line << "\n"; };
  const TrainingResult result = train(pipeline, registry, options);
  for (const Warning& w : result.report.warnings) {
    if (!args.quiet) {
      std::cerr << "radial: warning: " << w.component << ": " << w.message
                << (w.setting.empty() ? "" : " (to change: " + w.setting + ")") << "\n";
    }
  }
  // Both results are prepared (complete temporaries) before either is committed, and the model
  // is committed last: a run that fails to write its report leaves the old model in place.
  std::optional<PendingOutput> model;
  if (model_target) model.emplace(*model_target, serialize_model(result.model));
  const std::string json = report_json(result.report);
  std::optional<PendingOutput> report;
  if (!args.report.empty() || !summary) report.emplace(report_target, json);
  if (plots) plots->render(registry, pipeline, result, args.quiet);
  if (args.json && !args.report.empty() && report_target.kind != OutputTarget::Kind::Stdout) write_stdout(json);
  if (report) report->commit();
  std::vector<std::string> written;
  if (plots) {
    for (const std::string& name : plots->commit()) {
      written.push_back("plot    " + name);
      if (!args.quiet && !summary) std::cerr << "radial: plot written to " << name << "\n";
    }
  }
  if (!args.report.empty() && report_target.kind != OutputTarget::Kind::Stdout) {
    written.push_back("report  " + args.report);
  }
  if (model_target) written.push_back("model   " + args.model);
  if (model) {
    // An interrupt now either lands before the rename (no new model, exit 130/143) or is
    // held until exit (the new model stands, exit 0): never a new model with a failure status.
    hold_termination_signals();
    model->commit();
    if (!args.quiet && !summary) std::cerr << "radial: model written to " << args.model << "\n";
  }
  if (summary) {
    try {
      write_stdout(training_summary(result.report, written));
    } catch (const OutputError&) {
      // A courtesy for the person at the terminal: the results are in place, the run succeeded.
    }
  }
  return 0;
}

int validate_command(const Registry& registry, const std::string& file,
                     const std::vector<std::string>& overrides) {
  const Pipeline p = read_pipeline(file, registry, overrides);
  std::ostringstream out;
  out << file << ": ok — basis " << p.basis.plugin << ", centres " << p.centres.plugin
      << ", output " << p.output.plugin
      << (p.weight_penalty ? ", weight penalty " + p.weight_penalty->plugin : std::string())
      << (p.kernel_prior ? ", kernel prior " + p.kernel_prior->plugin : std::string()) << "\n";
  write_stdout(out.str());
  return 0;
}

int predict_command(const Registry& registry, const PredictArgs& args) {
  const OutputTarget output_target =
      args.output.empty() ? OutputTarget{}
                          : checked_output("--output", args.output, "output file",
                                           {{"model being read", args.model}, {"data file", args.data}});
  const Model model = load_model(args.model);
  const bool probabilistic = gives_probabilities(model.link);
  if (args.probabilities && (!probabilistic || model.task != Task::Classification)) {
    throw InputError(args.model + ": --probabilities needs a model with probabilistic outputs "
                     "(link logistic, softmax or bayes); this one has link " + to_string(model.link) +
                     " (train it with output plugin irls, scg, bfgs or bayes)");
  }
  auto basis = restore_basis(registry, model, args.model);
  const Matrix inputs = read_inputs_csv(args.data, model.feature_names);
  Network network(model, basis);
  const Matrix outputs = network.predict(inputs);

  std::ostringstream out;
  const std::string target = csv_cell(model.target_name.empty() ? "prediction" : model.target_name);
  if (model.task == Task::Classification) {
    const Labels predicted = Network::classify(outputs);
    out << target;
    if (args.probabilities) {
      for (double v : model.class_values) out << ",p_" << format_number(v);
    }
    out << "\n";
    for (std::size_t i = 0; i < outputs.shape(0); ++i) {
      out << format_number(model.class_values[static_cast<std::size_t>(predicted(i))]);
      if (args.probabilities) {
        for (std::size_t k = 0; k < outputs.shape(1); ++k) out << "," << format_number(outputs(i, k));
      }
      out << "\n";
    }
  } else {
    out << target << "\n";
    for (std::size_t i = 0; i < outputs.shape(0); ++i) out << format_number(outputs(i, 0)) << "\n";
  }
  PendingOutput(output_target, out.str()).commit();
  return 0;
}

int evaluate_command(const Registry& registry, const EvaluateArgs& args) {
  const std::optional<OutputTarget> report_target =
      args.report.empty() ? std::nullopt
                          : std::optional<OutputTarget>(checked_output(
                                "--report", args.report, "report file",
                                {{"model being read", args.model}, {"data file", args.data}}));
  const Model model = load_model(args.model);
  auto basis = restore_basis(registry, model, args.model);
  DataOptions options;
  options.target = model.target_name;
  options.task = model.task;
  if (model.task == Task::Classification) options.class_values = model.class_values;
  Dataset data = read_dataset(args.data, options);
  if (data.feature_names != model.feature_names) {
    // Reorder by name so a file with the same columns in another order still evaluates: in
    // memory when every feature is there (a pipe cannot be read twice), else by the inputs
    // reader, which names the missing column (or maps .npy columns by position).
    const auto& names = data.feature_names;
    const std::size_t rows = data.inputs.shape(0), d = model.feature_names.size();
    std::vector<std::size_t> from(d);
    bool all_found = true;
    for (std::size_t j = 0; j < d && all_found; ++j) {
      const auto found = std::find(names.begin(), names.end(), model.feature_names[j]);
      all_found = found != names.end();
      from[j] = std::size_t(found - names.begin());
    }
    Matrix inputs;
    if (all_found) {
      inputs = Matrix::from_shape({rows, d});
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < d; ++j) inputs(i, j) = data.inputs(i, from[j]);
    } else {
      inputs = read_inputs_csv(args.data, model.feature_names);
    }
    data.inputs = std::move(inputs);
    data.feature_names = model.feature_names;
  }
  // Predicted in row chunks: no standardised copy, no N x K outputs, so memory stays O(chunk).
  const Metrics metrics = evaluate_metrics(model, basis, data);
  const std::string json = metrics_json(metrics);
  // As in train: the file is prepared, stdout written, the file committed last, so a run that
  // fails leaves no new report behind. Printed as well, unless the report file is stdout itself.
  std::optional<PendingOutput> report;
  if (report_target) report.emplace(*report_target, json);
  if (!report_target || report_target->kind != OutputTarget::Kind::Stdout) write_stdout(json);
  if (report) {
    hold_termination_signals();  // as in train: a committed report means exit 0
    report->commit();
  }
  return 0;
}

}  // namespace radial::cli
