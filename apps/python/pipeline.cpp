// radial._Pipeline: a pipeline file, TOML text or (via radial._toml) dict, parsed and validated
// by the framework's reader; fit() runs the framework's trainer on NumPy arrays or on [data].
#include <pybind11/stl.h>
#include <toml++/toml.h>

#include <fstream>
#include <sstream>

#include "bindings.hpp"
#include "interrupt.hpp"
#include "radial/core/errors.hpp"
#include "radial/io/input_file.hpp"
#include "radial/training/trainer.hpp"

namespace radial::python {
namespace {

// Text without [data] train is parsed with its data replaced by the arrays fit() will get (an
// empty DataReplacement::train). A text that does not parse goes to the reader, which reports it.
std::optional<DataReplacement> replacement_for(const std::string& text) {
  try {
    const toml::table root = toml::parse(text);
    const toml::table* data = root["data"].as_table();
    if (data != nullptr && data->contains("train")) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  DataReplacement r;
  r.label = "<arrays given to fit()>";
  return r;
}

PipelineHandle parse(const std::string& text, const std::string& label,
                     const std::vector<std::string>& overrides) {
  PipelineHandle h;
  const auto r = replacement_for(text);
  h.in_memory = r.has_value();
  h.pipeline =
      std::make_shared<const Pipeline>(r ? parse_pipeline(text, label, registry(), overrides, *r)
                                         : parse_pipeline(text, label, registry(), overrides));
  return h;
}

PipelineHandle read(const std::string& file, const std::vector<std::string>& overrides) {
  // Read once, as the CLI does: at most max_pipeline_bytes, a larger or endless file refused
  // before it is held (not read whole first).
  InputFile in = InputFile::open<PipelineError>(file, "pipeline file");
  const std::string text = in.read_all<PipelineError>(max_pipeline_bytes);
  PipelineHandle h;
  const auto r = text.empty() ? std::nullopt : replacement_for(text);
  h.in_memory = r.has_value();
  h.pipeline = std::make_shared<const Pipeline>(
      r ? parse_pipeline(text, file, registry(), overrides, *r)
        : parse_pipeline(text, file, registry(), overrides));
  return h;
}

py::object param_value(const ParamValue& v) {
  return std::visit([](const auto& x) -> py::object { return py::cast(x); }, v);
}

py::dict component(const ComponentSpec& spec) {
  py::dict params;
  for (const auto& [key, value] : spec.params.values()) params[py::str(key)] = param_value(value);
  py::dict d;
  d["plugin"] = spec.plugin;
  d["params"] = params;
  return d;
}

ModelHandle fit(const PipelineHandle& h, const py::object& X, const py::object& y,
                const py::object& X_test, const py::object& y_test,
                std::optional<std::uint64_t> seed, std::optional<int> threads,
                std::vector<std::string> feature_names, std::string target_name) {
  const std::shared_ptr<const Pipeline> pipeline = h.pipeline;
  const Registry& reg = registry();
  if (threads && *threads < 0) {
    throw ParameterError("threads = " + std::to_string(*threads) +
                         " is negative; give 0 (all cores) or a number of threads");
  }
  TrainOptions options;
  options.seed = seed;
  options.threads = threads;

  std::optional<Dataset> train_data, test_data;
  if (X.is_none()) {
    if (!y.is_none() || !X_test.is_none())
      throw InputError("fit() got y or X_test without X; pass X too");
    if (h.in_memory) {
      throw InputError("this pipeline has no [data] train file: pass the data, fit(X, y)");
    }
  } else {
    if (y.is_none()) throw InputError("fit(X, y) needs y (one target value per row of X)");
    const bool missing = pipeline->data.missing != MissingPolicy::Error;
    Matrix inputs = to_matrix(X, "X", missing);
    const std::size_t rows = inputs.shape(0);
    if (auto texts = text_labels(y)) {
      train_data = make_text_dataset(std::move(inputs), std::move(*texts), pipeline->data.task,
                                     feature_names, target_name, std::nullopt, std::nullopt, "y");
    } else {
      train_data = make_dataset(std::move(inputs), to_vector(y, "y", rows), pipeline->data.task,
                                feature_names, target_name, std::nullopt, "y");
    }
    if (X_test.is_none() != y_test.is_none()) {
      throw InputError("pass X_test and y_test together, or neither");
    }
    if (!X_test.is_none()) {
      Matrix test_inputs = to_matrix(X_test, "X_test", missing);
      if (test_inputs.shape(1) != train_data->features()) {
        throw ShapeError("X_test has " + std::to_string(test_inputs.shape(1)) +
                         " columns but X has " + std::to_string(train_data->features()) +
                         " (same features, same order required)");
      }
      const std::size_t test_rows = test_inputs.shape(0);
      std::optional<std::vector<double>> classes;
      std::optional<std::vector<std::string>> names;
      if (train_data->task == Task::Classification) classes = train_data->class_values;
      if (!train_data->class_names.empty()) names = train_data->class_names;
      if (auto texts = text_labels(y_test)) {
        test_data = make_text_dataset(std::move(test_inputs), std::move(*texts), train_data->task,
                                      train_data->feature_names, train_data->target_name, classes,
                                      names, "y_test");
      } else if (names) {
        throw InputError("y_test holds numbers but y held text class labels; give y_test as "
                         "text labels too");
      } else {
        test_data = make_dataset(std::move(test_inputs), to_vector(y_test, "y_test", test_rows),
                                 train_data->task, train_data->feature_names,
                                 train_data->target_name, classes, "y_test");
      }
    }
  }

  auto result = std::make_shared<std::optional<TrainingResult>>();
  auto train_shared = std::make_shared<std::optional<Dataset>>(std::move(train_data));
  auto test_shared = std::make_shared<std::optional<Dataset>>(std::move(test_data));
  run_interruptible([=, &reg](const std::atomic<bool>& cancelled) {
    TrainOptions opts = options;
    opts.summary = false;  // made from the report when asked (ReportText)
    opts.log = [&cancelled](const std::string&) {
      if (cancelled) throw Error("training interrupted (KeyboardInterrupt)");
    };
    if (*train_shared) {
      *result = train(*pipeline, reg, std::move(**train_shared), std::move(*test_shared), opts);
    } else {
      *result = train(*pipeline, reg, opts);
    }
  });
  // The report's JSON is made when asked for (report_, save, to_bytes, pickle).
  auto report = std::make_shared<const ReportText>(std::move((*result)->report));
  return make_model_handle(std::move((*result)->model), std::move(report), "the fitted model");
}

}  // namespace

void bind_pipeline(py::module_& m) {
  py::class_<PipelineHandle>(m, "_Pipeline")
      .def_static("read", &read, py::arg("file"), py::arg("overrides") = std::vector<std::string>{})
      .def_static("parse", &parse, py::arg("text"), py::arg("label"),
                  py::arg("overrides") = std::vector<std::string>{})
      .def_property_readonly("in_memory", [](const PipelineHandle& h) { return h.in_memory; })
      .def_property_readonly("name", [](const PipelineHandle& h) { return h.pipeline->name; })
      .def_property_readonly("seed", [](const PipelineHandle& h) { return h.pipeline->seed; })
      .def_property_readonly("threads", [](const PipelineHandle& h) { return h.pipeline->threads; })
      .def_property_readonly("text", [](const PipelineHandle& h) { return h.pipeline->text; })
      .def_property_readonly("settings",
                             [](const PipelineHandle& h) { return h.pipeline->settings; })
      .def_property_readonly("standardize",
                             [](const PipelineHandle& h) { return h.pipeline->data.standardize; })
      .def_property_readonly(
          "task",
          [](const PipelineHandle& h) -> py::object {
            const auto& task = h.pipeline->data.task;
            if (!task) return py::none();
            return py::str(*task == Task::Classification ? "classification" : "regression");
          })
      .def_property_readonly("components",
                             [](const PipelineHandle& h) {
                               const Pipeline& p = *h.pipeline;
                               py::dict d;
                               for (const Slot slot : all_slots)
                                 if (const ComponentSpec* spec = p.component(slot))
                                   d[to_string(slot)] = component(*spec);
                               return d;
                             })
      .def("fit", &fit, py::arg("X") = py::none(), py::arg("y") = py::none(),
           py::arg("X_test") = py::none(), py::arg("y_test") = py::none(),
           py::arg("seed") = py::none(), py::arg("threads") = py::none(),
           py::arg("feature_names") = std::vector<std::string>{},
           py::arg("target_name") = std::string());
}

}  // namespace radial::python
