#pragma once
// `radial plot KIND INPUT... --output FILE.{svg,png,pdf}`: learning curves, series, decision
// regions and experiment results drawn by gnuplot (docs/plotting.md).

#include <string>
#include <vector>

#include "radial/plugin/loader.hpp"

namespace radial::cli {

struct PlotArgs {
  std::string kind;                 // learning-curve, series, decision-regions, results
  std::vector<std::string> inputs;  // reports; MODEL DATA; DB
  std::string output, title;
  int width = 800, height = 600;
  // learning-curve and series
  std::string stage = "output", x = "iteration";
  bool logx = false, logy = false;
  std::vector<std::string> labels, names;
  // decision-regions
  bool probabilities = false;
  std::string xrange, yrange;  // LO:HI
  // results
  std::string rows, columns, value;
};

int plot_command(const Registry& registry, const PlotArgs& args);

}  // namespace radial::cli
