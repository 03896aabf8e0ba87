// Training reports as JSON. Non-finite numbers become null (JSON has no NaN).
#include <cmath>

#include <nlohmann/json.hpp>

#include "radial/training/trainer.hpp"

namespace radial {
namespace {

using nlohmann::json;

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json numbers(const std::vector<double>& v) {
  json out = json::array();
  for (const double x : v) out.push_back(number(x));
  return out;
}

template <class T>
json optional_number(const std::optional<T>& v) {
  if (!v) return nullptr;
  if constexpr (std::is_floating_point_v<T>) return number(*v);
  else return json(*v);
}

// `parameters`: the weights besides the bias, for adjusted R^2 (regression only).
json to_json(const Metrics& m, std::size_t parameters = 0) {
  json j{{"rows", m.rows},
         {"error_rate", optional_number(m.error_rate)},
         {"misclassified", optional_number(m.misclassified)},
         {"cross_entropy", optional_number(m.cross_entropy)},
         {"mse", number(m.mse)}};
  if (m.missing_targets > 0) j["missing_targets"] = m.missing_targets;
  if (m.sample_of > 0) j["sample_of"] = m.sample_of;
  if (m.r2) {
    j["r2"] = number(*m.r2);
    if (parameters > 0) j["adjusted_r2"] = optional_number(adjusted_r2(m, parameters));
  }
  return j;
}

json to_json(const FitReport& r) {
  json j{{"iterations", r.iterations},
         {"converged", r.converged()},
         {"termination", to_string(r.termination)},
         {"termination_message", r.message},
         {"final_error", number(r.final_error)},
         {"seconds", number(r.seconds)},
         {"flops", number(r.flops)},
         {"function_evaluations", r.function_evaluations},
         {"gradient_evaluations", r.gradient_evaluations}};
  json curve = json::array();
  for (const CurvePoint& c : r.curve) {
    curve.push_back({{"iteration", c.iteration}, {"error", number(c.error)},
                     {"flops", number(c.flops)}, {"seconds", number(c.seconds)}});
  }
  j["learning_curve"] = std::move(curve);
  json figures = json::object();
  for (const auto& [k, v] : r.figures) figures[k] = number(v);
  j["figures"] = std::move(figures);
  json series = json::object();
  for (const auto& [k, v] : r.series) {
    json a = json::array();
    for (double x : v) a.push_back(number(x));
    series[k] = std::move(a);
  }
  j["series"] = std::move(series);
  return j;
}

json to_json(const StageReport& s, const char* count_name) {
  json j = to_json(s.fit);
  j["plugin"] = s.plugin;
  j[count_name] = s.count;
  return j;
}

json to_json(const Warning& w) {
  return json{{"component", w.component}, {"guard", w.guard}, {"message", w.message},
              {"setting", w.setting}};
}

json to_json(const ParamValue& v) {
  switch (v.index()) {
    case 0: return json(std::get<std::int64_t>(v));
    case 1: return number(std::get<double>(v));
    case 2: return json(std::get<bool>(v));
    default: return json(std::get<std::string>(v));
  }
}

// {"centres.count": 2, ...}
json to_json(const SearchValues& values) {
  json j = json::object();
  for (const auto& [key, value] : values) j[key] = to_json(value);
  return j;
}

json to_json(const SearchReport& s) {
  json candidates = json::array();
  for (const SearchCandidateReport& c : s.candidates) {
    json per_fold = json::array();
    for (double v : c.per_fold) per_fold.push_back(number(v));
    json cj{{"values", to_json(c.values)},
            {"mean", optional_number(c.mean)},
            {"sd", optional_number(c.sd)},
            {"per_fold", std::move(per_fold)},
            {"seconds", number(c.seconds)}};
    if (!c.error.empty()) cj["error"] = c.error;
    candidates.push_back(std::move(cj));
  }
  return json{{"metric", s.metric},
              {"folds", s.folds},
              {"best", s.candidates.empty() ? json::object() : to_json(s.candidates[s.best].values)},
              {"edges", s.edges},
              {"candidates", std::move(candidates)}};
}

// Closed-form selection curves: per count and width scale, the penalties' LOO, GCV and dof.
json curves_json(const std::vector<SelectionCurve>& from) {
  json curves = json::array();
  for (const SelectionCurve& c : from) {
    json alphas = json::array(), loo = json::array(), gcv = json::array(), dof = json::array();
    json loo_error = json::array();
    for (std::size_t l = 0; l < c.alphas.size(); ++l) {
      alphas.push_back(number(c.alphas[l]));
      loo.push_back(number(c.loo[l]));
      if (l < c.loo_error.size()) loo_error.push_back(number(c.loo_error[l]));
      gcv.push_back(number(c.gcv[l]));
      dof.push_back(number(c.dof[l]));
    }
    curves.push_back({{"count", c.count}, {"width_scale", number(c.width_scale)},
                      {"alpha", std::move(alphas)}, {"loo", std::move(loo)},
                      {"loo_error", c.loo_error.empty() ? json(nullptr) : std::move(loo_error)},
                      {"gcv", std::move(gcv)}, {"dof", std::move(dof)}});
  }
  return curves;
}

json to_json(const SelectionReport& s) {
  json curves = curves_json(s.curves);
  json path = nullptr;
  if (!s.path_alphas.empty()) {
    json alphas = json::array(), errors = json::array();
    for (std::size_t i = 0; i < s.path_alphas.size(); ++i) {
      alphas.push_back(number(s.path_alphas[i]));
      errors.push_back(number(s.path_errors[i]));
    }
    path = {{"metric", s.path_metric}, {"folds", s.path_folds}, {"alpha", std::move(alphas)},
            {"error", std::move(errors)}, {"fitted_folds", s.path_fitted_folds}};
  }
  return json{{"criterion", s.criterion},
              {"output_path", std::move(path)},
              {"chosen", to_json(s.chosen)},
              {"score", number(s.score)},
              {"loo", number(s.loo)},
              {"penalty_added", s.penalty_added},
              {"rows", s.rows},
              {"sample_of", s.sample_of == 0 ? json(nullptr) : json(s.sample_of)},
              {"scored_rows", s.scored_rows},
              {"centres", s.centres == 0 ? json(nullptr) : json(s.centres)},
              {"centres_of", s.centres_of == 0 ? json(nullptr) : json(s.centres_of)},
              {"width_transfer", s.width_transfer},
              {"alpha_transfer", s.alpha_transfer},
              {"prescreen", s.prescreen_centres == 0
                                ? json(nullptr)
                                : json{{"centres", s.prescreen_centres},
                                       {"curves", curves_json(s.prescreen_curves)}}},
              {"count_curve", s.count_curve_counts.empty()
                                  ? json(nullptr)
                                  : json{{"count", s.count_curve_counts},
                                         {"error", numbers(s.count_curve_errors)},
                                         {"standard_error",
                                          numbers(s.count_curve_standard_errors)},
                                         {"rows", s.count_curve_rows},
                                         {"held_out", s.count_curve_held_out}}},
              {"pilot", s.pilot_centres == 0
                            ? json(nullptr)
                            : json{{"centres", s.pilot_centres},
                                   {"loo_error", number(s.pilot_error)},
                                   {"standard_error", number(s.pilot_standard_error)},
                                   {"rows", s.pilot_rows},
                                   {"count", s.pilot_count}}},
              {"edges", s.edges},
              {"seconds", number(s.seconds)},
              {"curves", std::move(curves)}};
}

}  // namespace

std::string metrics_json(const Metrics& metrics) { return to_json(metrics).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"; }

std::string report_json(const TrainingReport& r) {
  json j;
  j["name"] = r.pipeline_name;
  j["seed"] = r.seed;
  j["threads"] = r.threads;
  j["seconds"] = number(r.seconds);
  j["cpu_seconds"] = number(r.cpu_seconds);
  j["data"] = {{"train_rows", r.train_rows}, {"test_rows", r.test_rows},
               {"features", r.features}, {"classes", r.classes},
               {"task", r.task}, {"task_from", r.task_from},
               {"constant_columns", r.constant_columns}};
  if (!r.missing_policy.empty()) {
    json missing = json::object();
    for (const auto& [name, count] : r.missing) missing[name] = count;
    j["data"]["missing_policy"] = r.missing_policy;
    j["data"]["missing"] = missing;
    j["data"]["dropped_rows"] = r.dropped_rows;
    j["data"]["dropped_test_rows"] = r.dropped_test_rows;
    j["data"]["missing_targets"] = r.missing_targets;
    j["data"]["missing_test_targets"] = r.missing_test_targets;
  }
  j["centres"] = to_json(r.centres, "count");
  j["basis"] = {{"plugin", r.basis.plugin}, {"seconds", number(r.basis.fit.seconds)}};
  j["output"] = to_json(r.output, "outputs");
  if (r.refine) j["refine"] = to_json(*r.refine, "count");
  j["train"] = to_json(r.train, r.centres.count);
  if (r.test) j["test"] = to_json(*r.test, r.centres.count);
  if (r.cv) {
    json folds = json::array();
    for (const FoldReport& f : r.cv->per_fold) {
      json fj = to_json(f.test, r.centres.count);
      fj["fold"] = f.fold;
      fj["train_rows"] = f.train_rows;
      fj["test_rows"] = f.test_rows;
      if (!f.chosen.empty()) fj["chosen"] = to_json(f.chosen);
      folds.push_back(std::move(fj));
    }
    j["cv"] = {{"folds", r.cv->folds},
               {"committee", r.cv->committee},
               {"error_rate", number(r.cv->error_rate)},
               {"error_rate_sd", number(r.cv->error_rate_sd)},
               {"cross_entropy", optional_number(r.cv->cross_entropy)},
               {"mse", number(r.cv->mse)},
               {"per_fold", std::move(folds)}};
    if (r.cv->r2) j["cv"]["r2"] = number(*r.cv->r2);
  }
  if (r.search) j["search"] = to_json(*r.search);
  if (r.selection) j["selection"] = to_json(*r.selection);
  json warnings = json::array();
  for (const Warning& w : r.warnings) warnings.push_back(to_json(w));
  j["warnings"] = std::move(warnings);
  // Names from data files may hold bytes that are not UTF-8: written as U+FFFD, not thrown.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace radial
