// train, validate, predict and evaluate.
#include "commands.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <unistd.h>

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

// The model's basis, restored from its saved state: the only plugin prediction needs.
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

}  // namespace

void emit(const std::string& text, const std::string& file) {
  if (file.empty()) {
    std::cout << text << std::flush;
  } else {
    write_file_atomically(file, text);
  }
}

int train_command(const Registry& registry, const TrainArgs& args) {
  const Pipeline pipeline = read_pipeline(args.pipeline, registry, args.overrides);
  TrainOptions options;
  options.seed = args.seed;
  options.threads = args.threads;
  if (!args.quiet) options.log = [](const std::string& line) { std::cerr << "radial: " << line << "\n"; };
  const TrainingResult result = train(pipeline, registry, options);
  // Model first: if it cannot be written, no report claims success.
  if (!args.model.empty()) {
    save_model(result.model, args.model);
    if (!args.quiet) std::cerr << "radial: model written to " << args.model << "\n";
  }
  for (const Warning& w : result.report.warnings) {
    if (!args.quiet) {
      std::cerr << "radial: warning: " << w.component << ": " << w.message
                << (w.setting.empty() ? "" : " (to change: " + w.setting + ")") << "\n";
    }
  }
  emit(report_json(result.report), args.report);
  return 0;
}

int validate_command(const Registry& registry, const std::string& file,
                     const std::vector<std::string>& overrides) {
  const Pipeline p = read_pipeline(file, registry, overrides);
  std::cout << file << ": ok — basis " << p.basis.plugin << ", centres " << p.centres.plugin
            << ", output " << p.output.plugin
            << (p.regularizer ? ", regularizer " + p.regularizer->plugin : std::string())
            << "\n";
  return 0;
}

int predict_command(const Registry& registry, const PredictArgs& args) {
  const Model model = load_model(args.model);
  const bool probabilistic = model.link != Link::Identity;
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
  const std::string target = model.target_name.empty() ? "prediction" : model.target_name;
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
  emit(out.str(), args.output);
  return 0;
}

int evaluate_command(const Registry& registry, const EvaluateArgs& args) {
  const Model model = load_model(args.model);
  auto basis = restore_basis(registry, model, args.model);
  DataOptions options;
  options.target = model.target_name;
  options.task = model.task;
  if (model.task == Task::Classification) options.class_values = model.class_values;
  Dataset data = read_dataset(args.data, options);
  if (data.feature_names != model.feature_names) {
    // Reorder by name so a file with the same columns in another order still evaluates.
    Matrix inputs = read_inputs_csv(args.data, model.feature_names);
    data.inputs = std::move(inputs);
    data.feature_names = model.feature_names;
  }
  // Predicted in row chunks: no standardised copy, no N x K outputs (issue 6).
  const Metrics metrics = evaluate_metrics(model, basis, data);
  const std::string json = metrics_json(metrics);
  if (!args.report.empty()) write_file_atomically(args.report, json);
  std::cout << json << std::flush;
  return 0;
}

}  // namespace radial::cli
