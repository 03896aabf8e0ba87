#pragma once
// The kinds of plot, each as a gnuplot body (inline data, settings, plot commands) and a default
// title; figure.hpp adds the terminal and the house style.

#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "radial/network/basis.hpp"
#include "radial/core/dataset.hpp"
#include "radial/model/model.hpp"
#include "radial/experiment/results_table.hpp"
#include "report_file.hpp"

namespace radial::cli::plot {

struct PlotBody {
  std::string title;   // used when --title is not given
  std::string script;
};

// Error against --x iteration|flops|seconds, one line per report, labelled by `labels` (one per
// report, or empty: the stage's plugin). Points that a log axis cannot show (<= 0) are dropped;
// a report left with none is an InputError.
PlotBody learning_curve_plot(const std::vector<ReportFile>& reports,
                             const std::vector<std::string>& labels, const std::string& stage,
                             const std::string& x, bool logx, bool logy);

// Named per-iteration series of one stage against the iteration; exactly two names get two y
// axes (the second on the right), as in Klautau's figure 4.
PlotBody series_plot(const ReportFile& report, const std::string& stage,
                     const std::vector<std::string>& names);

// The plot area of decision-regions in screen fractions (0 = left/bottom edge of the image, 1 =
// right/top), and the region raster: cells x cells predictions covering it exactly, cell (i, j)
// centred at (xmin + (i + 0.5) dx, ymin + (j + 0.5) dy). A pixel at column u, row v of a W x H
// image (v from the top) shows the point x = xmin + (u + 0.5 - left W) / ((right - left) W) *
// (xmax - xmin), y = ymin + ((1 - bottom) H - v - 0.5) / ((top - bottom) H) * (ymax - ymin).
struct RegionGeometry {
  static constexpr double left = 0.11, right = 0.70, bottom = 0.12, top = 0.90;
  static constexpr int cells = 240;
};

// A classification model with two inputs: the plane coloured by predicted class (shaded by the
// posterior with `probabilities`), the data coloured by true class with the misclassified ones
// ringed, the centres, and for a Gaussian basis each centre's one-sd ellipse; the error rate in
// the legend. A regression model with one input: the fitted curve over the data. Ranges: the
// data and centres, padded by 5 % (or `view`).
// InputError naming `model_file` for other models (more than two inputs, ...).
// `view`: --xrange/--yrange as given (lo < hi), replacing the padded data ranges.
struct View {
  std::optional<std::pair<double, double>> x, y;
};
PlotBody decision_regions_plot(const Model& model, std::shared_ptr<const Basis> basis,
                               const std::string& model_file, const Dataset& data,
                               bool probabilities, const View& view = {});

// The leave-one-out curves of a report's `selection` against alpha (log axis), one line per
// (count, width scale), the chosen point marked. InputError naming the file when it has none.
PlotBody selection_plot(const ReportFile& report);

// An experiment's table: a line per column over numeric row labels (error bars: +-1 sd over
// seeds), or grouped bars with error bars over other labels.
PlotBody results_plot(const Table& table, const std::string& database);

}  // namespace radial::cli::plot
