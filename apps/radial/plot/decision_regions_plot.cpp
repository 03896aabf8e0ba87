// decision-regions: what a two-input classifier does to the plane (or a one-input regression's
// fitted curve), with the data, the centres and the Gaussian shapes drawn over it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "figure.hpp"
#include "kinds.hpp"
#include "radial/network/basis.hpp"
#include "radial/core/errors.hpp"
#include "radial/model/network.hpp"
#include "radial/core/text.hpp"

namespace radial::cli::plot {
namespace {

struct Range {
  double lo = INFINITY, hi = -INFINITY;
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  void pad() {
    if (!(lo <= hi)) lo = -1, hi = 1;
    const double margin = hi > lo ? 0.05 * (hi - lo) : 1.0;
    lo -= margin;
    hi += margin;
  }
  // The padded range, or the one the user asked for.
  void pad_or(const std::optional<std::pair<double, double>>& given) {
    if (given) lo = given->first, hi = given->second;
    else pad();
  }
};

// Centres (and their shapes) live in the standardised space the network was trained in; the
// plot is in the data's units: x = mean + scale z, S_raw = D S D with D = diag(scale).
double raw(const Model& model, std::size_t feature, double z) {
  return model.standardize ? model.standardiser.mean(feature) + model.standardiser.scale(feature) * z : z;
}
double scale(const Model& model, std::size_t feature) {
  return model.standardize ? model.standardiser.scale(feature) : 1.0;
}

// The 2 x 2 covariance of centre j in the data's units, as (a, b, c) = [[a, b], [b, c]].
bool covariance(const Model& model, std::size_t j, double& a, double& b, double& c) {
  const Centres& cs = model.centres;
  switch (cs.shape) {
    case Shape::Spherical: a = c = cs.variances(j), b = 0; break;
    case Shape::Diagonal: a = cs.diagonal(j, 0), c = cs.diagonal(j, 1), b = 0; break;
    case Shape::Full: a = cs.covariances(j, 0, 0), b = cs.covariances(j, 0, 1), c = cs.covariances(j, 1, 1); break;
    default: return false;
  }
  const double s0 = scale(model, 0), s1 = scale(model, 1);
  a *= s0 * s0, b *= s0 * s1, c *= s1 * s1;
  return a > 0 && c > 0 && a * c - b * b > 0;
}

std::string class_name(const Model& model, std::size_t k) {
  if (!model.class_names.empty()) return "class " + model.class_names.at(k);
  const double v = model.class_values.at(k);
  return "class " + (std::floor(v) == v && std::fabs(v) < 1e15 ? std::to_string(std::int64_t(v)) : number(v));
}

std::string file_name(const Dataset& data) {
  return std::filesystem::path(data.source).filename().string();
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * fraction);
  return buf;
}

std::string axis_settings(const Model& model, const Range& x, const Range& y) {
  return "set xlabel " + quote(model.feature_names.at(0)) + "\n" +
         (y.lo <= y.hi && model.feature_names.size() > 1 ? "set ylabel " + quote(model.feature_names[1]) + "\n"
                                                         : std::string()) +
         "set xrange [" + number(x.lo) + ":" + number(x.hi) + "] noextend\n" +
         "set yrange [" + number(y.lo) + ":" + number(y.hi) + "] noextend\n";
}

PlotBody regression_curve(const Model& model, const Network& network, const Dataset& data,
                          const View& view) {
  Range x, y;
  for (std::size_t i = 0; i < data.rows(); ++i) x.add(data.inputs(i, 0)), y.add(data.values(i));
  for (std::size_t j = 0; j < model.centres.count(); ++j) x.add(raw(model, 0, model.centres.means(j, 0)));
  x.pad_or(view.x);
  const std::size_t n = 500;
  Matrix grid = Matrix::from_shape({n, 1});
  for (std::size_t i = 0; i < n; ++i) grid(i, 0) = x.lo + (x.hi - x.lo) * double(i) / double(n - 1);
  const Matrix fit = network.predict(grid);
  Matrix centres = Matrix::from_shape({model.centres.count(), 1});
  for (std::size_t j = 0; j < model.centres.count(); ++j) centres(j, 0) = raw(model, 0, model.centres.means(j, 0));
  const Matrix at_centres = model.centres.count() ? network.predict(centres) : Matrix::from_shape({0, 1});
  const Matrix at_data = network.predict(data.inputs);
  for (std::size_t i = 0; i < n; ++i) y.add(fit(i, 0));
  y.pad_or(view.y);

  std::vector<std::string> points, curve, marks;
  double sse = 0;
  for (std::size_t i = 0; i < data.rows(); ++i) {
    points.push_back(number(data.inputs(i, 0)) + " " + number(data.values(i)));
    sse += (at_data(i, 0) - data.values(i)) * (at_data(i, 0) - data.values(i));
  }
  for (std::size_t i = 0; i < n; ++i) curve.push_back(number(grid(i, 0)) + " " + number(fit(i, 0)));
  for (std::size_t j = 0; j < centres.shape(0); ++j) marks.push_back(number(centres(j, 0)) + " " + number(at_centres(j, 0)));
  const std::string mse = text::number(data.rows() ? sse / double(data.rows()) : 0.0, 4);
  std::string script = data_block("DATA", points) + data_block("FIT", curve) + data_block("CENTRES", marks) +
                       axis_settings(model, x, y) + "set ylabel " + quote(model.target_name) + "\n" +
                       "set key top right\n"
                       "plot $DATA using 1:2 with points lt 1 pt 7 ps 0.5 title " +
                       quote("data (" + std::to_string(data.rows()) + " rows)") +
                       ", \\\n     $FIT using 1:2 with lines lt 2 lw 2.5 title " + quote(std::string("fitted, mse ") + mse) +
                       ", \\\n     $CENTRES using 1:2 with points pt 2 ps 1.3 lw 2 lc rgb 'black' title " +
                       quote("centres (" + std::to_string(centres.shape(0)) + ")") + "\n";
  return {"Fitted curve: " + model.basis_id + ", " + std::to_string(model.centres.count()) + " centres, " +
              model.output_id + " (" + file_name(data) + ")",
          script};
}

// The region raster: one prediction per cell of the view, coloured by the predicted class's
// tint (deeper with the class's probability when `probabilities`).
std::vector<std::string> region_raster(const Network& network, const Range& x, const Range& y,
                                       std::size_t K, bool probabilities) {
  const std::size_t G = RegionGeometry::cells;
  const double dx = (x.hi - x.lo) / double(G), dy = (y.hi - y.lo) / double(G);
  Matrix grid = Matrix::from_shape({G * G, 2});
  for (std::size_t j = 0; j < G; ++j)
    for (std::size_t i = 0; i < G; ++i) {
      grid(j * G + i, 0) = x.lo + (double(i) + 0.5) * dx;
      grid(j * G + i, 1) = y.lo + (double(j) + 0.5) * dy;
    }
  const Matrix outputs = network.predict(grid);
  const Labels predicted = Network::classify(outputs);
  std::vector<std::string> raster;
  raster.reserve(G * G);
  for (std::size_t r = 0; r < G * G; ++r) {
    const std::size_t k = std::size_t(predicted(r));
    double strength = 0.3;
    if (probabilities) {
      const double p = outputs(r, k), floor = 1.0 / double(K);
      strength = 0.06 + 0.5 * std::clamp((p - floor) / (1 - floor), 0.0, 1.0);
    }
    const unsigned rgb = rgb_value(tint(k, strength));
    raster.push_back(number(grid(r, 0)) + " " + number(grid(r, 1)) + " " + std::to_string((rgb >> 16) & 0xff) +
                     " " + std::to_string((rgb >> 8) & 0xff) + " " + std::to_string(rgb & 0xff));
  }
  return raster;
}

}  // namespace

PlotBody decision_regions_plot(const Model& model, std::shared_ptr<const Basis> basis,
                               const std::string& model_file, const Dataset& data,
                               bool probabilities, const View& view) {
  const std::size_t d = model.feature_names.size();
  Network network(model, basis);
  if (model.task == Task::Regression) {
    if (d != 1) {
      throw InputError(model_file + ": a regression model with " + std::to_string(d) +
                       " inputs; decision-regions draws the fitted curve of a regression model with one "
                       "input, or the regions of a classification model with two");
    }
    if (probabilities) throw InputError(model_file + ": --probabilities needs a classification model");
    return regression_curve(model, network, data, view);
  }
  if (d != 2) {
    throw InputError(model_file + ": a classification model with " + std::to_string(d) +
                     " inputs; decision-regions draws classification models with exactly two inputs "
                     "(train one on two features to see its regions)");
  }
  if (probabilities && !gives_probabilities(model.link)) {
    throw InputError(model_file + ": --probabilities needs a model with probabilistic outputs (link "
                     "logistic, softmax or bayes); this one has linear outputs (train it with output "
                     "plugin irls, scg, bfgs or bayes)");
  }
  const std::size_t K = model.class_values.size();

  Range x, y;
  for (std::size_t i = 0; i < data.rows(); ++i) x.add(data.inputs(i, 0)), y.add(data.inputs(i, 1));
  for (std::size_t j = 0; j < model.centres.count(); ++j) {
    x.add(raw(model, 0, model.centres.means(j, 0)));
    y.add(raw(model, 1, model.centres.means(j, 1)));
  }
  x.pad_or(view.x);
  y.pad_or(view.y);

  const std::vector<std::string> raster = region_raster(network, x, y, K, probabilities);

  // The data by true class, and the misclassified ones.
  const Labels data_predicted = Network::classify(network.predict(data.inputs));
  std::vector<std::vector<std::string>> by_class(K);
  std::vector<std::string> wrong;
  for (std::size_t i = 0; i < data.rows(); ++i) {
    const std::string point = number(data.inputs(i, 0)) + " " + number(data.inputs(i, 1));
    by_class.at(std::size_t(data.classes(i))).push_back(point);
    if (data_predicted(i) != data.classes(i)) wrong.push_back(point);
  }

  std::string script = data_block("REGIONS", raster);
  std::string plots = "plot $REGIONS using 1:2:3:4:5 with rgbimage notitle";
  for (std::size_t k = 0; k < K; ++k) {
    if (by_class[k].empty()) continue;
    const std::string name = "CLASS" + std::to_string(k + 1);
    script += data_block(name, by_class[k]);
    plots += ", \\\n     $" + name + " using 1:2 with points pt 7 ps 0.55 lc rgb '" +
             colour_cycle()[k % colour_cycle().size()] + "' title " + quote(class_name(model, k));
  }
  const double rate = data.rows() ? double(wrong.size()) / double(data.rows()) : 0.0;
  script += data_block("WRONG", wrong.empty() ? std::vector<std::string>{"NaN NaN"} : wrong);
  plots += ", \\\n     $WRONG using 1:2 with points pt 6 ps 1.2 lw 1 lc rgb 'black' title " +
           quote("misclassified (" + std::to_string(wrong.size()) + "/" + std::to_string(data.rows()) + ")") +
           ", \\\n     keyentry with points pt -1 lc rgb 'white' title " + quote("error rate " + percent(rate));

  std::vector<std::string> centres, ellipses;
  // The shapes are drawn when they are part of the network: its basis measures distances under
  // them (a basis of Euclidean distances ignores whatever shapes the centres carry).
  const bool shaped = basis->metric() == Metric::Shape;
  for (std::size_t j = 0; j < model.centres.count(); ++j) {
    const double cx = raw(model, 0, model.centres.means(j, 0)), cy = raw(model, 1, model.centres.means(j, 1));
    centres.push_back(number(cx) + " " + number(cy));
    double a, b, c;
    if (!shaped || !covariance(model, j, a, b, c)) continue;
    // x = c_j + L (cos t, sin t) with L L^T = S_j traces (x - c)^T S^-1 (x - c) = 1.
    const double l11 = std::sqrt(a), l21 = b / l11, l22 = std::sqrt(c - l21 * l21);
    for (int s = 0; s <= 72; ++s) {
      const double t = 2 * M_PI * s / 72, u = std::cos(t), v = std::sin(t);
      ellipses.push_back(number(cx + l11 * u) + " " + number(cy + l21 * u + l22 * v));
    }
    ellipses.push_back("");  // a blank line ends one ellipse
  }
  script += data_block("CENTRES", centres.empty() ? std::vector<std::string>{"NaN NaN"} : centres);
  plots += ", \\\n     $CENTRES using 1:2 with points pt 2 ps 1.6 lw 2.5 lc rgb 'black' title " +
           quote("centres (" + std::to_string(centres.size()) + ")");
  if (!ellipses.empty()) {
    script += data_block("ELLIPSES", ellipses);
    plots += ", \\\n     $ELLIPSES using 1:2 with lines lw 1.5 lc rgb '#222222' title " +
             quote(std::string("one-sd ellipses (") + to_string(model.centres.shape) + ")");
  }

  char margins[200];
  std::snprintf(margins, sizeof margins,
                "set lmargin at screen %g\nset rmargin at screen %g\nset bmargin at screen %g\n"
                "set tmargin at screen %g\n",
                RegionGeometry::left, RegionGeometry::right, RegionGeometry::bottom, RegionGeometry::top);
  script += axis_settings(model, x, y) + margins +
            "set border 15 lw 1 lc rgb '#333333'\nset tics out nomirror\nunset grid\n"
            "set key at screen " + number(RegionGeometry::right + 0.015) + ", screen " +
            number(RegionGeometry::top) + " left top vertical Left reverse noopaque nobox samplen 1\n" +
            plots + "\n";
  return {std::string(probabilities ? "Posterior" : "Decision regions") + ": " + model.basis_id + ", " +
              std::to_string(model.centres.count()) + " centres, " + model.output_id + " (" + file_name(data) + ")",
          script};
}

}  // namespace radial::cli::plot
