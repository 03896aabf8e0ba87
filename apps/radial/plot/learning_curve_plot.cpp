// learning-curve: Nabney's comparison of optimisers, error against iterations, flops or time.
#include <algorithm>
#include <cmath>

#include "figure.hpp"
#include "kinds.hpp"
#include "radial/core/errors.hpp"

namespace radial::cli::plot {

PlotBody learning_curve_plot(const std::vector<ReportFile>& reports,
                             const std::vector<std::string>& labels, const std::string& stage,
                             const std::string& x, bool logx, bool logy) {
  std::string xlabel;
  if (x == "iteration") xlabel = "iteration";
  else if (x == "flops") xlabel = "floating-point operations (cumulative)";
  else if (x == "seconds") xlabel = "time (s, cumulative)";
  else throw InputError("--x " + x + ": choose iteration, flops or seconds");
  if (!labels.empty() && labels.size() != reports.size()) {
    throw InputError("--label was given " + std::to_string(labels.size()) + " times for " +
                     std::to_string(reports.size()) + " reports; give one label per report, in order");
  }

  // Flops in millions on a linear axis: '%g' would label 500000 next to 1e+06.
  double x_scale = 1;
  if (x == "flops" && !logx) {
    double largest = 0;
    for (const ReportFile& report : reports) {
      for (double v : report_curve(report, stage).flops) {
        if (std::isfinite(v)) largest = std::max(largest, v);
      }
    }
    if (largest >= 1e5) {
      x_scale = 1e-6;
      xlabel = "floating-point operations (millions, cumulative)";
    }
  }

  PlotBody body;
  std::string blocks, plots;
  for (std::size_t r = 0; r < reports.size(); ++r) {
    const CurvePoints curve = report_curve(reports[r], stage);
    const std::vector<double>& xs = x == "iteration" ? curve.iteration
                                    : x == "flops"   ? curve.flops
                                                     : curve.seconds;
    std::vector<std::string> rows;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double xv = xs[i], yv = curve.error[i];
      if (!std::isfinite(xv) || !std::isfinite(yv) || (logx && xv <= 0) || (logy && yv <= 0)) continue;
      rows.push_back(number(xv * x_scale) + " " + number(yv));
    }
    if (rows.empty()) {
      throw InputError(reports[r].file + ": " + stage + ".learning_curve has no point with a finite " + x +
                       " and error" + (logx || logy ? " that a log axis can show (> 0)" : "") +
                       "; drop --logx/--logy or choose another --x");
    }
    const std::string name = "CURVE" + std::to_string(r + 1);
    blocks += data_block(name, rows);
    std::string label = labels.empty() ? stage_plugin(reports[r], stage) : labels[r];
    if (label.empty()) label = reports[r].file;
    // Markers only while they can be told apart.
    const std::string with = rows.size() > 40 ? "lines" : "linespoints";
    plots += std::string(plots.empty() ? "plot " : ", \\\n     ") + "$" + name +
             " using 1:2 with " + with + " lt " + std::to_string(r + 1) + " title " + quote(label);
  }
  body.title = (stage == "output"   ? "Output layer"
                : stage == "refine" ? "Whole-network training"
                                    : "Centre learner") +
               std::string(" learning curve");
  body.script = blocks + "set xlabel " + quote(xlabel) + "\n" +
                "set ylabel " +
                quote(stage == "output" || stage == "refine"
                          ? "training error (summed over rows, + penalty)"
                          : "centre learner's error (see its plugin page)") + "\n" +
                (logx ? "set logscale x\n" : "") + (logy ? "set logscale y\n" : "") +
                // A log x axis (flops, seconds) labels powers of ten alike: 1e+05, 1e+06, not 100000, 1e+06.
                (logx ? "set format x '%.0e'\n" : "set format x '%g'\n") +
                "set format y '%g'\n" + plots + "\n";
  return body;
}

}  // namespace radial::cli::plot
