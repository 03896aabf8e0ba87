#pragma once
// Declarations shared by the binding files of the `radial` Python module. The module is a thin
// layer over the framework's public API: no algorithm lives here or in the Python parts.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "radial/network/basis.hpp"
#include "radial/core/dataset.hpp"
#include "radial/model/model.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/training/trainer.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/core/types.hpp"

namespace radial::python {

namespace py = pybind11;

// The process's registry, loaded on first use (under the GIL) from the same search path as the
// CLI plus the plugin folder beside the module. Never unloaded: plugin code may run until exit.
const Registry& registry();
void set_module_folder(const std::string& folder);

// A parsed pipeline. `in_memory`: the text had no [data] train, so it was parsed with its data
// replaced by arrays to come (fit(X, y)); fitting it from files is refused.
struct PipelineHandle {
  std::shared_ptr<const Pipeline> pipeline;
  bool in_memory = false;
};

// The training report as JSON text, made from the fit's report on first use (a fit's report
// is mostly never read: report_json took a third of a 20-row fit) or a loaded model's stored
// summary. Shared by the handle's copies; safe from any thread.
class ReportText {
 public:
  explicit ReportText(std::string json);
  explicit ReportText(TrainingReport report);
  const std::string& json() const;

 private:
  mutable std::once_flag made_;
  mutable std::optional<TrainingReport> report_;
  mutable std::string json_;
};

// A trained or loaded model with its restored basis, ready to predict.
struct ModelHandle {
  std::shared_ptr<const Model> model;
  std::shared_ptr<const Basis> basis;
  std::shared_ptr<const ReportText> report;  // of the fit that made it, or the stored summary
  // The model as a file holds it: with its training summary.
  Model with_summary() const;
};

ModelHandle make_model_handle(Model model, std::shared_ptr<const ReportText> report,
                              const std::string& where);

// NumPy -> framework matrices. Refuse (InputError naming `name`) anything but float64 with the
// expected dimensions, and NaN/Inf (DataError, as the CSV reader does); with allow_nan a NaN is
// a missing cell ([data] missing other than "error").
Matrix to_matrix(const py::handle& array, const std::string& name, bool allow_nan = false);
Vector to_vector(const py::handle& array, const std::string& name, std::size_t rows);
py::array_t<double> to_numpy(const Matrix& matrix);

// The data set the CSV reader would have made from these columns: the task from `task` or the
// target's values (integers: classification), classes coded in increasing label order.
Dataset make_dataset(Matrix inputs, Vector target, std::optional<Task> task,
                     std::vector<std::string> feature_names, std::string target_name,
                     const std::optional<std::vector<double>>& class_values,
                     const std::string& target_label);

// Text class labels: a Python list of str (the module's wrapper turns arrays of str into one);
// empty when `y` is anything else.
std::optional<std::vector<std::string>> text_labels(const py::handle& y);

// make_dataset for text class labels (DataOptions::class_names when given).
Dataset make_text_dataset(Matrix inputs, std::vector<std::string> target, std::optional<Task> task,
                          std::vector<std::string> feature_names, std::string target_name,
                          const std::optional<std::vector<double>>& class_values,
                          const std::optional<std::vector<std::string>>& class_names,
                          const std::string& target_label);

void bind_errors(py::module_& m);
void bind_plugins(py::module_& m);
void bind_pipeline(py::module_& m);
void bind_model(py::module_& m);

}  // namespace radial::python
