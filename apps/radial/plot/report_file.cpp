// Reading the series of a training report.
#include "report_file.hpp"

#include <limits>

#include "radial/core/errors.hpp"
#include "radial/io/input_file.hpp"
#include "radial/io/json_depth.hpp"

namespace radial::cli::plot {
namespace {

using nlohmann::json;

constexpr std::size_t max_report_bytes = std::size_t(1) << 30;
const double nan = std::numeric_limits<double>::quiet_NaN();

double as_number(const json& value) { return value.is_number() ? value.get<double>() : nan; }

std::string what(const ReportFile& r, const std::string& stage) {
  const std::string plugin = stage_plugin(r, stage);
  return plugin.empty() ? stage + " stage" : stage + " stage (plugin " + plugin + ")";
}

}  // namespace

ReportFile report_from_text(const std::string& text, const std::string& name) {
  if (!json_depth_ok(text)) {
    throw InputError(name + ": JSON nested more than " + std::to_string(max_json_depth) +
                     " levels deep is not a report; give a file written by radial train --report");
  }
  ReportFile report{name, json::parse(text, nullptr, false)};
  if (report.json.is_discarded()) {
    throw InputError(name + ": not a JSON report; give a file written by radial train --report");
  }
  if (!report.json.is_object()) {
    throw InputError(name + ": the JSON is not an object; give a file written by radial train --report");
  }
  return report;
}

ReportFile read_report(const std::string& file) {
  return report_from_text(InputFile::open(file, "report file").read_all(max_report_bytes), file);
}

const json& report_stage(const ReportFile& report, const std::string& stage) {
  if (stage != "centres" && stage != "output" && stage != "refine") {
    throw InputError("--stage " + stage +
                     ": a report has the stages centres, output and (with [refine]) refine");
  }
  const auto found = report.json.find(stage);
  if (found == report.json.end() || !found->is_object()) {
    throw InputError(report.file + ": the report has no '" + stage +
                     "' stage; give a report written by radial train --report");
  }
  return *found;
}

std::string stage_plugin(const ReportFile& report, const std::string& stage) {
  const auto s = report.json.find(stage);
  if (s == report.json.end() || !s->is_object()) return "";
  const auto p = s->find("plugin");
  return p != s->end() && p->is_string() ? p->get<std::string>() : "";
}

CurvePoints report_curve(const ReportFile& report, const std::string& stage) {
  const json& s = report_stage(report, stage);
  const auto curve = s.find("learning_curve");
  if (curve == s.end() || !curve->is_array() || curve->empty()) {
    throw InputError(report.file + ": the " + what(report, stage) +
                     " has no learning_curve points (a closed-form stage records no iterations); "
                     "plot another stage (--stage centres|output) or a report of an iterative plugin");
  }
  CurvePoints points;
  for (const json& p : *curve) {
    if (!p.is_object()) {
      throw InputError(report.file + ": " + stage + ".learning_curve holds a non-object entry");
    }
    points.iteration.push_back(as_number(p.value("iteration", json())));
    points.error.push_back(as_number(p.value("error", json())));
    points.flops.push_back(as_number(p.value("flops", json())));
    points.seconds.push_back(as_number(p.value("seconds", json())));
  }
  return points;
}

std::vector<double> report_series(const ReportFile& report, const std::string& stage,
                                  const std::string& name) {
  const json& s = report_stage(report, stage);
  const auto series = s.find("series");
  std::string known;
  if (series != s.end() && series->is_object()) {
    const auto found = series->find(name);
    if (found != series->end() && found->is_array() && !found->empty()) {
      std::vector<double> values;
      for (const json& v : *found) values.push_back(as_number(v));
      return values;
    }
    for (const auto& [key, value] : series->items()) known += (known.empty() ? "" : ", ") + key;
  }
  throw InputError(report.file + ": the " + what(report, stage) + " has no series '" + name +
                   "' (" + (known.empty() ? "it has no series" : "it has: " + known) +
                   "); name one of them with --names, or choose the other --stage");
}

}  // namespace radial::cli::plot
