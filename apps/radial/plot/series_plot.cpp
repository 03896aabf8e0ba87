// series: any named per-iteration trace of a stage (DEM's log R^d and eta, PRBF's L(theta)).
#include <cmath>

#include "figure.hpp"
#include "kinds.hpp"
#include "radial/core/errors.hpp"

namespace radial::cli::plot {

PlotBody series_plot(const ReportFile& report, const std::string& stage,
                     const std::vector<std::string>& names) {
  if (names.empty()) {
    throw InputError("series needs --names NAME[,NAME]: the series of the report's " + stage +
                     " stage to draw (e.g. --names log_Rd,eta)");
  }
  const bool two_axes = names.size() == 2;
  std::string blocks, plots;
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::vector<double> values = report_series(report, stage, names[k]);
    // Checked first: null, text or +-1e308 would reach gnuplot as points it cannot draw.
    bool any = false;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!std::isfinite(values[i])) continue;  // drawn as a gap
      require_drawable(values[i], report.file + ": " + stage + ".series." + names[k] + "[" +
                                      std::to_string(i) + "]");
      any = true;
    }
    if (!any) {
      throw InputError(report.file + ": " + stage + ".series." + names[k] +
                       " holds no finite number (null or text in every place); nothing to draw");
    }
    std::vector<std::string> rows;
    // A series one longer than the stage's iterations starts with the value before the first.
    const nlohmann::json iterations = report_stage(report, stage).value("iterations", nlohmann::json());
    const std::size_t first =
        iterations.is_number_unsigned() && values.size() == iterations.get<std::size_t>() + 1 ? 0 : 1;
    for (std::size_t i = 0; i < values.size(); ++i) {
      rows.push_back(std::to_string(i + first) + " " + number(values[i]));
    }
    const std::string block = "SERIES" + std::to_string(k + 1);
    blocks += data_block(block, rows);
    const std::string with = rows.size() > 40 ? "lines" : "linespoints";
    std::string title = names[k];
    if (two_axes) title += k == 0 ? " (left axis)" : " (right axis)";
    plots += std::string(plots.empty() ? "plot " : ", \\\n     ") + "$" + block + " using 1:2" +
             (two_axes && k == 1 ? " axes x1y2" : "") + " with " + with + " lt " +
             std::to_string(k + 1) + " title " + quote(title);
  }
  // Series rise and fall anywhere: the key goes below the plot, never over a line.
  std::string settings = "set xlabel 'iteration'\nset format y '%g'\n"
                         "set key outside bottom center horizontal Left reverse noopaque nobox\n";
  if (two_axes) {
    const auto& colours = colour_cycle();
    settings += "set border 11 lw 1 lc rgb '#333333'\nset ytics nomirror\nset y2tics nomirror\n"
                "set format y2 '%g'\n"
                "set ylabel " + quote(names[0]) + " textcolor rgb '" + colours[0] + "'\n" +
                "set y2label " + quote(names[1]) + " textcolor rgb '" + colours[1] + "'\n";
  } else {
    settings += "set ylabel " + quote(names.size() == 1 ? names[0] : "value") + "\n";
  }
  const std::string plugin = stage_plugin(report, stage);
  std::string joined;
  for (const std::string& n : names) joined += (joined.empty() ? "" : ", ") + n;
  return {joined + " per iteration (" + stage + (plugin.empty() ? "" : ": " + plugin) + ")",
          blocks + settings + plots + "\n"};
}

}  // namespace radial::cli::plot
