// The class-means output layer and its probit rule; see class_means.hpp.
#include "class_means.hpp"

#include <cmath>
#include <string>
#include <vector>

#include <radial/network/design_matrix.hpp>
#include <radial/core/errors.hpp>

namespace class_means_plugin {

std::string ProbitRule::check(const radial::Matrix& weights, std::size_t classes) const {
  if (classes != 2)
    return "the probit output is for 2 classes, the model lists " + std::to_string(classes);
  if (weights.shape(1) != 1)
    return "the probit output has one column of weights, the model has " +
           std::to_string(weights.shape(1));
  for (const double w : weights)
    if (!std::isfinite(w)) return "probit weights must be finite";
  return {};
}

void ProbitRule::predict(const radial::Matrix& design, const radial::Matrix& weights,
                         radial::Matrix& outputs) const {
  const std::size_t rows = design.shape(0), cols = design.shape(1);
  outputs.resize({rows, 2});
  for (std::size_t r = 0; r < rows; ++r) {
    double a = 0;
    for (std::size_t j = 0; j < cols; ++j) a += design(r, j) * weights(j, 0);
    // Each tail from erfc, so neither loses digits to 1 - y.
    outputs(r, 0) = 0.5 * std::erfc(a / std::sqrt(2.0));
    outputs(r, 1) = 0.5 * std::erfc(-a / std::sqrt(2.0));
  }
}

radial::OptionTable<ClassMeansOptions> class_means_table() {
  radial::OptionTable<ClassMeansOptions> t;
  t.bind("scale", &ClassMeansOptions::scale, "factor on the difference of the class means").above(0);
  return t;
}

radial::OutputWeights ClassMeansOutput::fit(const radial::TrainingProblem& problem,
                                            const radial::WeightPenalty*, radial::FitContext& ctx) {
  const radial::Dataset& data = problem.data;
  const radial::DesignMatrix& design = problem.design;
  if (design.rows() != data.rows())
    throw radial::ShapeError("output class-means: the design matrix has " +
                             std::to_string(design.rows()) + " rows but the data have " +
                             std::to_string(data.rows()));
  if (data.task != radial::Task::Classification || data.num_classes != 2)
    throw radial::InputError("output class-means: it separates 2 classes; the data have " +
                             std::to_string(data.num_classes) + " (use output.plugin = \"irls\")");
  const std::size_t cols = design.cols(), m = cols - 1;
  std::vector<double> sum[2] = {std::vector<double>(cols, 0.0), std::vector<double>(cols, 0.0)};
  double count[2] = {0, 0};
  design.for_each_block([&](std::size_t first, const radial::Matrix& block) {
    for (std::size_t r = 0; r < block.shape(0); ++r) {
      const auto k = std::size_t(data.classes(first + r));
      count[k] += 1;
      for (std::size_t j = 0; j < cols; ++j) sum[k][j] += block(r, j);
    }
  });
  if (count[0] == 0 || count[1] == 0)
    throw radial::InputError("output class-means: the training data hold no rows of class " +
                             std::to_string(count[0] == 0 ? 0 : 1));
  const double scale = options_.scale;
  radial::Matrix w = radial::Matrix::from_shape({cols, 1});
  double bias = 0;
  for (std::size_t j = 0; j < m; ++j) {
    const double m0 = sum[0][j] / count[0], m1 = sum[1][j] / count[1];
    w(j, 0) = scale * (m1 - m0);
    bias -= w(j, 0) * 0.5 * (m1 + m0);
  }
  w(m, 0) = bias;
  ctx.report.iterations = 0;
  ctx.report.stop(radial::Termination::Converged, "class means in closed form (not iterated)");
  return radial::OutputWeights{w, radial::Link("probit")};
}

}  // namespace class_means_plugin
