// The plots of one training run, written beside its report.
#include "train_plots.hpp"

#include <sys/stat.h>

#include <iostream>

#include "../commands.hpp"
#include "figure.hpp"
#include "gnuplot.hpp"
#include "kinds.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"

namespace radial::cli {

using namespace plot;

TrainPlots::TrainPlots(const std::string& folder, const Pipeline& pipeline,
                       const std::vector<NamedFile>& inputs, const std::vector<NamedOutput>& outputs) {
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw InputError("--plots " + folder + ": not a folder; create it first (mkdir -p " + folder + ")");
  }
  find_gnuplot();
  const std::string stem = pipeline.file.stem().string();
  curve_name_ = (std::filesystem::path(folder) / (stem + ".learning-curve.svg")).string();
  regions_name_ = (std::filesystem::path(folder) / (stem + ".decision-regions.svg")).string();
  curve_target_ = check_figure_output("--plots", curve_name_, inputs, outputs).target;
  regions_target_ = check_figure_output("--plots", regions_name_, inputs, outputs).target;
  fitted_name_ = (std::filesystem::path(folder) / (stem + ".fitted-curve.svg")).string();
  fitted_target_ = check_figure_output("--plots", fitted_name_, inputs, outputs).target;
}

void TrainPlots::render(const Registry& registry, const Pipeline& pipeline,
                        const TrainingResult& result, bool quiet) {
  const auto note = [&](const std::string& line) {
    if (!quiet) std::cerr << "radial: --plots: " << line << "\n";
  };
  const ReportFile report = report_from_text(report_json(result.report), "the run's report");
  // The output layer's curve, else the centre learner's (a closed-form output has none).
  for (const char* stage : {"output", "centres"}) {
    const auto& curve = report.json[stage]["learning_curve"];
    if (!curve.is_array() || curve.empty()) continue;
    const PlotBody body = learning_curve_plot({report}, {}, stage, "iteration", false, false);
    const std::string title = result.report.pipeline_name + ": " + body.title;
    pending_.emplace_back(curve_name_, std::make_unique<PendingOutput>(
                                           curve_target_, render_figure(ImageFormat::Svg, 800, 600,
                                                                        title, body.script)));
    break;
  }
  if (pending_.empty()) note("no learning curve: neither stage recorded iterations");

  const Model& model = result.model;
  const std::size_t d = model.feature_names.size();
  if ((model.task == Task::Classification && d == 2) || (model.task == Task::Regression && d == 1)) {
    const Dataset data = read_dataset(pipeline.data.train, model_data_options(model));
    const PlotBody body = decision_regions_plot(model, restore_basis(registry, model, "the trained model"),
                                                "the trained model", data, false);
    const bool regions = model.task == Task::Classification;
    pending_.emplace_back(regions ? regions_name_ : fitted_name_,
                          std::make_unique<PendingOutput>(
                                             regions ? regions_target_ : fitted_target_, render_figure(ImageFormat::Svg, 800, 600,
                                                                            body.title, body.script)));
  } else {
    note("no decision regions: the model has " + std::to_string(d) +
         " inputs (drawn for two-input classification and one-input regression)");
  }
}

std::vector<std::string> TrainPlots::commit() {
  std::vector<std::string> names;
  for (auto& [name, output] : pending_) {
    output->commit();
    names.push_back(name);
  }
  return names;
}

}  // namespace radial::cli
