// results: an experiment's table as lines over a numeric row dimension (error against M for each
// alpha, Constantinopoulos's table 4) or as grouped bars, each with +-1 sd over seeds.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "figure.hpp"
#include "kinds.hpp"
#include "radial/core/errors.hpp"

namespace radial::cli::plot {
namespace {

bool numeric(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  // "nan" and "inf" read as numbers but are no place on an axis: such rows are bars.
  return end && *end == '\0' && std::isfinite(value) && std::fabs(value) <= largest_drawable;
}

}  // namespace

PlotBody results_plot(const Table& table, const std::string& database) {
  if (table.row_labels.empty() || table.column_labels.empty()) {
    throw InputError(database + ": no runs to plot (the database holds no run with the value " +
                     table.value + "); run the experiment first, or choose another --value");
  }
  // Every value drawn, checked first: gnuplot would fail on it with a message about its script.
  for (std::size_t r = 0; r < table.row_labels.size(); ++r)
    for (std::size_t c = 0; c < table.column_labels.size(); ++c) {
      const TableCell& cell = table.cells[r][c];
      const std::string at = database + ": " + table.value + " of " + table.row_labels[r] + " / " +
                             table.column_labels[c];
      if (cell.mean) require_drawable(*cell.mean, at + " (mean over runs)");
      if (cell.sd) require_drawable(*cell.sd, at + " (sd over runs)");
    }
  bool lines = table.row_labels.size() > 1;
  std::vector<double> xs(table.row_labels.size());
  for (std::size_t r = 0; r < xs.size() && lines; ++r) lines = numeric(table.row_labels[r], xs[r]);

  std::string script, plots;
  const std::string value_label = table.value + " (mean ± 1 sd over runs)";
  if (lines) {
    // Columns are shifted a little apart so that their error bars do not hide each other.
    double lo = xs[0], hi = xs[0];
    for (double v : xs) lo = std::min(lo, v), hi = std::max(hi, v);
    const double columns = double(table.column_labels.size());
    const double step = columns > 1 ? 0.012 * (hi > lo ? hi - lo : 1.0) : 0.0;
    for (std::size_t c = 0; c < table.column_labels.size(); ++c) {
      const double shift = (double(c) - (columns - 1) / 2) * step;
      std::vector<std::string> rows;
      for (std::size_t r = 0; r < xs.size(); ++r) {
        const TableCell& cell = table.cells[r][c];
        if (!cell.mean) continue;
        rows.push_back(number(xs[r] + shift) + " " + number(*cell.mean) + " " + number(cell.sd.value_or(0.0)));
      }
      if (rows.empty()) continue;
      const std::string name = "COLUMN" + std::to_string(c + 1);
      script += data_block(name, rows);
      plots += std::string(plots.empty() ? "plot " : ", \\\n     ") + "$" + name +
               " using 1:2:3 with yerrorlines lt " + std::to_string(c + 1) + " title " +
               quote(table.column_labels[c]);
    }
    script += "set xlabel " + quote(table.row_header) + "\nset format x '%g'\n"
              "set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n"
              "set key outside bottom center horizontal Left reverse noopaque nobox\n";
  } else {
    bool long_labels = false;
    for (const std::string& label : table.row_labels) long_labels = long_labels || label.size() > 12;
    // One row of the data block per table row: label, then mean and sd of each column.
    std::vector<std::string> rows;
    for (std::size_t r = 0; r < table.row_labels.size(); ++r) {
      std::string row = quote(table.row_labels[r]);
      row.front() = row.back() = '"';  // a data-file string is double-quoted
      for (std::size_t c = 0; c < table.column_labels.size(); ++c) {
        const TableCell& cell = table.cells[r][c];
        row += " " + number(cell.mean.value_or(NAN)) + " " + number(cell.sd.value_or(0.0));
      }
      rows.push_back(row);
    }
    script += data_block("TABLE", rows);
    for (std::size_t c = 0; c < table.column_labels.size(); ++c) {
      const std::string mean = std::to_string(2 + 2 * c), sd = std::to_string(3 + 2 * c);
      plots += std::string(plots.empty() ? "plot " : ", \\\n     ") + "$TABLE using " + mean + ":" + sd +
               (c == 0 ? ":xtic(1)" : "") + " lt " + std::to_string(c + 1) + " title " +
               quote(table.column_labels[c]);
    }
    script += "set style data histograms\nset style histogram errorbars gap 1.5 lw 1.2\n"
              "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset yrange [0:*]\n"
              "set xtics nomirror scale 0" + std::string(long_labels ? " rotate by -20 left" : "") +
              "\nset xrange [-0.6:" + number(double(table.row_labels.size()) - 0.4) + "]\n" +
              "set xlabel " + quote(table.row_header) + "\n"
              "set key outside bottom center horizontal Left reverse noopaque nobox\n";
  }
  if (plots.empty()) {
    throw InputError(database + ": no run has the value " + table.value + "; choose another --value");
  }
  script += "set ylabel " + quote(value_label) + "\nset format y '%g'\n" + plots + "\n";
  return {(table.title.empty() ? std::string("Results") : table.title) + ": " + table.value, script};
}

}  // namespace radial::cli::plot
