// train, validate, predict and evaluate.
#include "commands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include <unistd.h>

#include "distributed.hpp"
#include "outputs.hpp"
#include "plot/train_plots.hpp"
#include "summary.hpp"

#include "radial/distributed/collectives.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"
#include "radial/data/missing_values.hpp"
#include "radial/model/model_store.hpp"
#include "radial/io/output_file.hpp"
#include "radial/model/network.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/training/trainer.hpp"
#include "radial/core/text.hpp"

namespace radial::cli {
namespace {

std::string format_number(double v) {
  if (std::floor(v) == v && std::fabs(v) < 1e15) return text::number(v, 16);  // all its digits
  return text::number(v, 17);
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
  for (const Slot slot : all_slots) {
    const ComponentSpec* spec = pipeline.component(slot);
    if (!spec) continue;
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

DataOptions model_data_options(const Model& model) {
  DataOptions options;
  options.target = model.target_name;
  options.task = model.task;
  if (model.task == Task::Classification)
    use_classes_of(options, model.class_values, model.class_names);
  options.features = model.feature_names.size();
  return options;
}

int train_command(const Registry& registry, const TrainArgs& args) {
  // Distributed: every rank reads the pipeline and its shard of the data and trains; rank 0
  // alone checks and writes the outputs and prints progress (distributed.hpp).
  CommandScope scope;
  const bool writer = writes_results();
  std::optional<Pipeline> read;
  agreed([&] { read = read_pipeline(args.pipeline, registry, args.overrides); });
  const Pipeline& pipeline = *read;
  // Outputs are checked before training, so a refused one costs nothing.
  std::optional<OutputTarget> model_target;
  OutputTarget report_target;
  bool summary = false;
  std::optional<TrainPlots> plots;
  on_writer_agreed([&] {
    const std::vector<NamedFile> inputs = training_inputs(registry, pipeline);
    std::vector<NamedOutput> outputs;
    if (!args.model.empty()) {
      model_target = checked_output("--model", args.model, "model file", inputs);
      outputs.push_back({"--model", *model_target});
    }
    if (!args.report.empty()) report_target = checked_output("--report", args.report, "report file", inputs, outputs);
    if (model_target && model_target->kind == OutputTarget::Kind::Stdout &&
        report_target.kind == OutputTarget::Kind::Stdout) {
      throw InputError("--model - and the report would both go to stdout; give --report FILE");
    }
    // At a terminal a person reads a summary instead of the JSON; scripts (stdout not a
    // terminal), --json and --report FILE get the JSON.
    const bool to_stdout_anyway = args.report == "-" ||
                                  (model_target && model_target->kind == OutputTarget::Kind::Stdout);
    // Under mpirun a rank's stdout is whatever the launcher made it (Open MPI gives ranks a
    // terminal even when mpirun's own output goes to a file): JSON, as for scripts.
    summary = ::isatty(1) == 1 && !args.json && !to_stdout_anyway && !distributed();
    if (!args.plots.empty()) {
      std::vector<NamedOutput> earlier = outputs;
      if (!args.report.empty()) earlier.push_back({"--report", report_target});
      plots.emplace(args.plots, pipeline, inputs, earlier);
    }
  });

  TrainOptions options;
  options.seed = args.seed;
  options.threads = args.threads;
  if (!args.quiet && writer) options.log = [](const std::string& line) { std::cerr << "radial: " << line << "\n"; };
  // Reading errors are agreed among the ranks; a failure in training may be one rank's alone.
  TrainingData data = read_training_data(pipeline);
  std::optional<TrainingResult> trained;
  or_end_job([&] {
    trained = train(pipeline, registry, std::move(data.train), std::move(data.test), options);
  });
  scope.close();
  if (!writer) return 0;  // the other ranks computed the same model; rank 0 writes it
  const TrainingResult& result = *trained;
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
    // From here on an interrupt either lands before the rename (no new model, exit 130/143) or is
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
  for (const Warning& w : p.warnings)
    std::cerr << "radial: warning: " << w.component << ": " << w.message << " (to change: "
              << w.setting << ")\n";
  std::ostringstream out;
  out << file << ": ok — basis " << p.basis.plugin << ", centres " << p.centres.plugin
      << ", output " << p.output.plugin
      << (p.weight_penalty ? ", weight penalty " + p.weight_penalty->plugin : std::string())
      << (p.kernel_prior ? ", kernel prior " + p.kernel_prior->plugin : std::string()) << "\n";
  write_stdout(out.str());
  return 0;
}

namespace {

// Rows [first, end) of the predictions as CSV lines (predict's format).
std::string prediction_rows(const Model& model, const Matrix& outputs, const Labels& predicted,
                            bool probabilities, std::size_t first, std::size_t end) {
  std::ostringstream out;
  for (std::size_t i = first; i < end; ++i) {
    if (model.task == Task::Classification) {
      const auto k = static_cast<std::size_t>(predicted(i));
      out << (model.class_names.empty() ? format_number(model.class_values[k])
                                        : csv_cell(model.class_names[k]));
      if (probabilities) {
        for (std::size_t k = 0; k < outputs.shape(1); ++k) out << "," << format_number(outputs(i, k));
      }
    } else {
      out << format_number(outputs(i, 0));
    }
    out << "\n";
  }
  return out.str();
}

// The file `option` names (none: the launcher's stdout) for a command that reads `model` and
// `data`, checked on the writing rank once every rank agrees.
template <class Target>
void agree_on_output(Target& target, const std::string& option, const std::string& file,
                     const std::string& role, const std::string& model, const std::string& data) {
  on_writer_agreed([&] {
    if (!file.empty())
      target = checked_output(option, file, role, {{"model being read", model}, {"data file", data}});
    else
      require_launcher_stdout();
  });
}

// Rows per message from a rank to rank 0: a bounded buffer (about 2 MB of text for a few
// columns) however many rows the rank holds.
constexpr std::size_t rows_per_message = 65536;

}  // namespace

int predict_command(const Registry& registry, const PredictArgs& args) {
  // Distributed: every rank predicts its shard of the rows; rank 0 writes its own rows, then
  // every other rank's in rank order (input order), and commits the file only once all are in.
  CommandScope scope;
  OutputTarget output_target;
  agree_on_output(output_target, "--output", args.output, "output file", args.model, args.data);
  Model model;
  std::shared_ptr<Basis> basis;
  agreed([&] {
    model = load_model(args.model);
    const bool probabilistic = gives_probabilities(model.link);
    if (args.probabilities && (!probabilistic || model.task != Task::Classification)) {
      throw InputError(args.model + ": --probabilities needs a model with probabilistic outputs "
                       "(link logistic, softmax or bayes); this one has link " + to_string(model.link) +
                       " (train it with output plugin irls, scg, bfgs or bayes)");
    }
    basis = restore_basis(registry, model, args.model);
  });
  Matrix inputs = read_model_inputs(args.data, model.feature_names, model.input_coding,
                                    model.imputation.size() != 0 || model.missing_em);
  impute(inputs, model.imputation);
  Network network(model, basis);
  Matrix outputs;
  agreed([&] { outputs = network.predict(inputs); });  // a bad row on one rank stops every rank
  const Labels predicted =
      model.task == Task::Classification ? Network::classify(outputs) : Labels();
  const std::size_t rows = outputs.shape(0);

  std::string text;
  or_end_job([&] {
    Collectives& comm = collectives();
    if (comm.rank() != 0) {
      // Non-empty messages of rows, then an empty one: the end of this rank's rows.
      for (std::size_t first = 0; first < rows; first += rows_per_message) {
        comm.send(0, prediction_rows(model, outputs, predicted, args.probabilities, first,
                                     std::min(rows, first + rows_per_message)));
      }
      comm.send(0, std::string());
      return;
    }
    const std::string target = csv_cell(model.target_name.empty() ? "prediction" : model.target_name);
    text = target;
    if (model.task == Task::Classification && args.probabilities) {
      for (std::size_t k = 0; k < model.class_values.size(); ++k)
        text += "," + csv_cell("p_" + (model.class_names.empty() ? format_number(model.class_values[k])
                                                               : model.class_names[k]));
    }
    text += "\n";
    text += prediction_rows(model, outputs, predicted, args.probabilities, 0, rows);
    for (int r = 1; r < comm.size(); ++r) {
      for (std::string part = comm.receive(r); !part.empty(); part = comm.receive(r)) text += part;
    }
  });
  if (!writes_results()) return 0;
  PendingOutput(output_target, text).commit();
  return 0;
}

int evaluate_command(const Registry& registry, const EvaluateArgs& args) {
  // Distributed: every rank evaluates its shard of the rows, the metrics are summed over the
  // ranks, rank 0 writes them.
  CommandScope scope;
  std::optional<OutputTarget> report_target;
  agree_on_output(report_target, "--report", args.report, "report file", args.model, args.data);
  Model model;
  std::shared_ptr<Basis> basis;
  agreed([&] {
    model = load_model(args.model);
    basis = restore_basis(registry, model, args.model);
  });
  DataOptions options = model_data_options(model);
  if (!model.input_coding.empty()) options.coding = model.input_coding;
  options.allow_missing = model.imputation.size() != 0 || model.missing_em;
  Dataset data = distributed() ? read_dataset_shard(args.data, options) : read_dataset(args.data, options);
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
    } else if (!distributed()) {
      inputs = read_inputs_csv(args.data, model.feature_names);
    } else {
      // The header is every rank's: all ranks come here, and read the same rows as above.
      inputs = read_inputs_shard(args.data, model.feature_names);
      agreed([&] {
        if (inputs.shape(0) != rows)
          throw Error(args.data + ": the inputs reader gave " + std::to_string(inputs.shape(0)) +
                      " rows of this rank's shard, the data reader " + std::to_string(rows));
      });
    }
    data.inputs = std::move(inputs);
    data.feature_names = model.feature_names;
  }
  impute(data.inputs, model.imputation);
  // Predicted in row chunks: no standardised copy, no N x K outputs, so memory stays O(chunk).
  Metrics metrics;
  or_end_job([&] { metrics = evaluate_metrics(model, basis, data); });
  metrics.missing_targets = std::size_t(count_over_ranks(data.missing_targets));
  if (!writes_results()) return 0;
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
