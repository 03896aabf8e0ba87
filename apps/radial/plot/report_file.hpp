#pragma once
// Training reports (`radial train --report FILE`, docs/pipeline-format.md) read for plotting:
// the stage asked for and its learning curve or named series, or an InputError naming the file
// and what it lacks.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace radial::cli::plot {

struct ReportFile {
  std::string file;
  nlohmann::json json;
};

// The file parsed as a JSON object (InputError: unreadable, not JSON, not an object).
ReportFile read_report(const std::string& file);
ReportFile report_from_text(const std::string& text, const std::string& name);

// "centres" or "output" (InputError for another name, or a report without that stage).
const nlohmann::json& report_stage(const ReportFile& report, const std::string& stage);

struct CurvePoints {
  std::vector<double> iteration, error, flops, seconds;  // non-finite entries kept as NaN
};
// The stage's learning_curve; InputError when it is missing or empty (saying which plugin made
// the stage, since a closed-form stage such as least-squares records no iterations).
CurvePoints report_curve(const ReportFile& report, const std::string& stage);

// The stage's series `name` (NaN for null entries); InputError naming the series the stage has.
std::vector<double> report_series(const ReportFile& report, const std::string& stage,
                                  const std::string& name);

// The plugin that made the stage ("scg"), or "" when the report does not say.
std::string stage_plugin(const ReportFile& report, const std::string& stage);

}  // namespace radial::cli::plot
