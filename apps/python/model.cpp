// radial._Model: a trained or loaded model; predictions through the framework's Network, files
// through its model store (the same bytes the CLI reads and writes).
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "radial/core/errors.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/data/missing_values.hpp"
#include "radial/model/model_store.hpp"
#include "radial/model/network.hpp"

namespace radial::python {
namespace {

using namespace pybind11::literals;

Matrix outputs(const ModelHandle& h, const py::handle& X) {
  // NaN is a missing cell for a model trained with [data] missing = "mean", "median" (filled
  // here) or "em" (integrated out by the network).
  const Model& m = *h.model;
  Matrix inputs = to_matrix(X, "X", m.imputation.size() != 0 || m.missing_em);
  if (inputs.shape(1) != h.model->feature_names.size()) {
    throw ShapeError("X has " + std::to_string(inputs.shape(1)) +
                     " columns but the model was "
                     "trained on " +
                     std::to_string(h.model->feature_names.size()) +
                     " features (same features, same order required)");
  }
  impute(inputs, m.imputation);
  py::gil_scoped_release release;
  return Network(*h.model, h.basis).predict(inputs);
}

// The outputs for the raw rows of a data file (CSV or ARFF: text cells, categories, missing
// cells), read and coded as `radial predict` reads them (radial.Model.predict of a table).
Matrix file_outputs(const ModelHandle& h, const std::string& file) {
  const Model& m = *h.model;
  py::gil_scoped_release release;
  Matrix inputs = read_model_inputs(file, m.feature_names, m.input_coding,
                                    m.imputation.size() != 0 || m.missing_em);
  impute(inputs, m.imputation);
  return Network(m, h.basis).predict(inputs);
}

py::object labels_of(const ModelHandle& h, const Matrix& out);

py::object predict(const ModelHandle& h, const py::handle& X) {
  return labels_of(h, outputs(h, X));
}

py::object labels_of(const ModelHandle& h, const Matrix& out) {
  const std::size_t n = out.shape(0);
  if (h.model->task == Task::Classification && !h.model->class_names.empty()) {
    // Text labels come back as they were given: a NumPy array of str.
    const Labels predicted = Network::classify(out);
    py::list labels(n);
    for (std::size_t i = 0; i < n; ++i)
      labels[i] = py::str(h.model->class_names[static_cast<std::size_t>(predicted(i))]);
    return py::module_::import("numpy").attr("array")(labels, "dtype"_a = "str");
  }
  py::array_t<double> result(n);
  double* values = result.mutable_data();
  if (h.model->task == Task::Classification) {
    const Labels predicted = Network::classify(out);
    for (std::size_t i = 0; i < n; ++i) {
      values[i] = h.model->class_values[static_cast<std::size_t>(predicted(i))];
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) values[i] = out(i, 0);
  }
  return result;
}

void require_probabilities(const ModelHandle& h) {
  if (!gives_probabilities(h.model->link) || h.model->task != Task::Classification) {
    throw InputError(
        "predict_proba needs a model with probabilistic outputs (link logistic, "
        "softmax or bayes); this one has link " +
        std::string(to_string(h.model->link)) +
        " (train it with output plugin irls, scg, bfgs or bayes)");
  }
}

py::array_t<double> predict_proba(const ModelHandle& h, const py::handle& X) {
  require_probabilities(h);
  return to_numpy(outputs(h, X));
}

std::string without_report(const Model& model) {
  Model copy = model;
  copy.training_summary.clear();
  return serialize_model(copy);
}

}  // namespace

ReportText::ReportText(std::string json) : json_(std::move(json)) {}
ReportText::ReportText(TrainingReport report) : report_(std::move(report)) {}

const std::string& ReportText::json() const {
  std::call_once(made_, [this] {
    if (report_) {
      json_ = report_json(*report_);
      report_.reset();
    }
  });
  return json_;
}

Model ModelHandle::with_summary() const {
  Model copy = *model;
  if (report) copy.training_summary = report->json();
  return copy;
}

ModelHandle make_model_handle(Model model, std::shared_ptr<const ReportText> report,
                              const std::string& where) {
  // As the CLI restores a model's basis (apps/radial/commands.cpp, restore_basis).
  const ComponentInfo* info = registry().find(Slot::Basis, model.basis_id);
  if (!info) {
    throw PluginError(
        where + ": the model needs the basis plugin '" + model.basis_id +
        "', which is not installed (searched RADIAL_PLUGIN_PATH and the plugin folders)");
  }
  auto basis = registry().make_basis(model.basis_id,
                                     validate_params(info->params, model.basis_params,
                                                     "basis " + model.basis_id + " in " + where));
  basis->load_state(model.basis_state);
  ModelHandle h;
  h.model = std::make_shared<const Model>(std::move(model));
  h.basis = std::move(basis);
  h.report = std::move(report);
  return h;
}

void bind_model(py::module_& m) {
  py::class_<ModelHandle>(m, "_Model")
      .def("predict", &predict, py::arg("X"))
      .def("predict_proba", &predict_proba, py::arg("X"))
      .def(
          "predict_file",
          [](const ModelHandle& h, const std::string& file) {
            return labels_of(h, file_outputs(h, file));
          },
          py::arg("file"))
      .def(
          "predict_proba_file",
          [](const ModelHandle& h, const std::string& file) {
            require_probabilities(h);
            return to_numpy(file_outputs(h, file));
          },
          py::arg("file"))
      .def(
          "outputs_file",
          [](const ModelHandle& h, const std::string& file) {
            return to_numpy(file_outputs(h, file));
          },
          py::arg("file"))
      .def_property_readonly("raw_names",
                             [](const ModelHandle& h) {
                               // The columns a data file gives: the coding's raw columns.
                               const InputCoding& c = h.model->input_coding;
                               return c.empty() ? h.model->feature_names : c.raw_names;
                             })
      .def_property_readonly("nominal_names",
                             [](const ModelHandle& h) {
                               const InputCoding& c = h.model->input_coding;
                               std::vector<std::string> names;
                               for (const NominalInput& n : c.nominal)
                                 names.push_back(c.raw_names[n.column]);
                               return names;
                             })
      .def_property_readonly("reads_missing",
                             [](const ModelHandle& h) {
                               return h.model->imputation.size() != 0 || h.model->missing_em;
                             })
      .def(
          "outputs",
          [](const ModelHandle& h, const py::handle& X) { return to_numpy(outputs(h, X)); },
          py::arg("X"))
      .def(
          "save",
          [](const ModelHandle& h, const std::string& file) { save_model(h.with_summary(), file); },
          py::arg("file"))
      .def("to_bytes",
           [](const ModelHandle& h) { return py::bytes(serialize_model(h.with_summary())); })
      .def("bytes_without_report",
           [](const ModelHandle& h) { return py::bytes(without_report(*h.model)); })
      .def_property_readonly("report_json", [](const ModelHandle& h) { return h.report->json(); })
      .def_property_readonly("task",
                             [](const ModelHandle& h) {
                               return h.model->task == Task::Classification ? "classification"
                                                                            : "regression";
                             })
      .def_property_readonly("class_values",
                             [](const ModelHandle& h) { return h.model->class_values; })
      .def_property_readonly("class_names",
                             [](const ModelHandle& h) { return h.model->class_names; })
      .def_property_readonly("feature_names",
                             [](const ModelHandle& h) { return h.model->feature_names; })
      .def_property_readonly("target_name",
                             [](const ModelHandle& h) { return h.model->target_name; })
      .def_property_readonly(
          "link", [](const ModelHandle& h) { return std::string(to_string(h.model->link)); })
      .def_property_readonly("basis_id", [](const ModelHandle& h) { return h.model->basis_id; })
      .def_property_readonly("output_id", [](const ModelHandle& h) { return h.model->output_id; })
      .def_property_readonly("pipeline_text",
                             [](const ModelHandle& h) { return h.model->pipeline_text; })
      .def_property_readonly("seed", [](const ModelHandle& h) { return h.model->seed; })
      .def_property_readonly("radial_version",
                             [](const ModelHandle& h) { return h.model->radial_version; })
      .def_property_readonly("plugin_versions",
                             [](const ModelHandle& h) { return h.model->plugin_versions; })
      .def_property_readonly("centres",
                             [](const ModelHandle& h) { return to_numpy(h.model->centres.means); })
      .def_property_readonly("weights",
                             [](const ModelHandle& h) { return to_numpy(h.model->weights); })
      .def_property_readonly(
          "shapes",
          // The centres' shapes as variances: spherical M x 1, diagonal M x d, full M x d x d
          // (flattened to M x d^2), none 0 x 0.
          [](const ModelHandle& h) {
            const Centres& c = h.model->centres;
            const std::size_t m = c.count(), d = c.dim();
            Matrix out = xt::zeros<double>({std::size_t(0), std::size_t(0)});
            if (c.shape == Shape::Spherical) {
              out = Matrix::from_shape({m, std::size_t(1)});
              std::copy(c.variances.begin(), c.variances.end(), out.begin());
            } else if (c.shape == Shape::Diagonal) {
              out = c.diagonal;
            } else if (c.shape == Shape::Full) {
              out = Matrix::from_shape({m, d * d});
              std::copy(c.covariances.begin(), c.covariances.end(), out.begin());
            }
            return to_numpy(out);
          });
  m.def(
      "load",
      [](const std::string& file) {
        Model model = load_model(file);
        auto summary = std::make_shared<const ReportText>(model.training_summary);
        return make_model_handle(std::move(model), std::move(summary), file);
      },
      py::arg("file"));
  m.def(
      "from_bytes",
      [](const py::bytes& bytes, const std::string& where) {
        Model model = deserialize_model(std::string(bytes), where);
        auto summary = std::make_shared<const ReportText>(model.training_summary);
        return make_model_handle(std::move(model), std::move(summary), where);
      },
      py::arg("data"), py::arg("where") = "<bytes>");
}

}  // namespace radial::python
