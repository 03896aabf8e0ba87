#include "gaussian_basis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <radial/errors.hpp>
#include <radial/numerics/distances.hpp>
#include <radial/numerics/vector_math.hpp>
#include <radial/text.hpp>

namespace radial::plugins {

namespace {

const char* const where = "basis gaussian";

using text::number;

void set_spherical(Centres& centres, double variance) {
  centres.shape = Shape::Spherical;
  centres.variances = Vector::from_shape({centres.count()});
  centres.variances.fill(variance);
  centres.diagonal = Matrix();
  centres.covariances = Tensor3();
}

}  // namespace

GaussianOptions gaussian_options(const Params& params) {
  const GaussianOptions options{params.real("width"), params.boolean("density")};
  const double width = options.width;
  if (!(width > 0)) return options;  // 0: the centres' shapes or NETLAB's rule
  const double variance = width * width;
  if (std::isnormal(variance)) return options;
  // sqrt of the smallest normal and of the largest double: the widths whose square is usable.
  const double smallest = std::sqrt(std::numeric_limits<double>::min());
  const double largest = std::sqrt(std::numeric_limits<double>::max());
  throw ParameterError(
      "plugin gaussian, parameter width = " + number(width) + ": the variance width^2 " +
      (variance == 0 || variance < std::numeric_limits<double>::min()
           ? "underflows to " + number(variance)
           : std::string("overflows")) +
      ", so squared distances r^2 / width^2 cannot be computed. Give a width between " +
      number(smallest) + " and " + number(largest) +
      " (useful widths are near the distances between centres, in the units of the "
      "(standardised) inputs), or width = 0 for the centres' shapes or NETLAB's rule");
}

void GaussianBasis::prepare(Centres& centres, FitContext& ctx) {
  if (centres.means.dimension() != 2 || centres.count() == 0)
    throw ShapeError(std::string(where) + ": there are no centres to place Gaussians on");
  width_rule_ = "centres";
  common_variance_ = 0;
  if (width_ > 0) {
    width_rule_ = "width";
    common_variance_ = width_ * width_;
    set_spherical(centres, common_variance_);
  } else if (centres.shape == Shape::None) {
    // NETLAB rbfsetfw(net, 0): variance = max_ij ||c_i - c_j||^2 for every centre.
    const Matrix d2 = squared_euclidean(centres.means, centres.means);
    double variance = *std::max_element(d2.begin(), d2.end());
    if (!(variance > 0) || !std::isfinite(variance)) {
      ctx.warn("gaussian", "zero-width",
               "NETLAB's width rule gave variance " + number(variance) + " (" +
                   std::to_string(centres.count()) +
                   " centre(s), all at the same place); used variance 1 instead",
               "basis.width > 0");
      variance = 1.0;
    }
    width_rule_ = "netlab";
    common_variance_ = variance;
    set_spherical(centres, variance);
  }
  // Validates the shapes (ShapeError naming the centre) and gives log |S_j|.
  const SquaredDistances distances(centres, Metric::Shape);
  const std::size_t m = centres.count();
  log_scale_ = xt::zeros<double>({m});
  if (density_) {
    const double d_log_2pi = double(centres.dim()) * std::log(2.0 * M_PI);
    for (std::size_t j = 0; j < m; ++j)
      log_scale_(j) = -0.5 * (d_log_2pi + distances.log_determinants()(j));
  }
}

void GaussianBasis::log_map(Matrix& r2) const {
  const std::size_t m = log_scale_.size();
  if (r2.dimension() != 2 || r2.shape(1) != m)
    throw ShapeError(std::string(where) + ": distances to " +
                     std::to_string(r2.dimension() == 2 ? r2.shape(1) : 0) +
                     " centres given, but the basis was prepared for " + std::to_string(m) +
                     (m == 0 ? " (call prepare() or load_state() first)" : ""));
  const std::size_t n = r2.shape(0);
  const double* s = log_scale_.data();
  for (std::size_t row = 0; row < n; ++row) {
    double* v = r2.data() + row * m;
    for (std::size_t j = 0; j < m; ++j) v[j] = s[j] - 0.5 * v[j];
  }
}

void GaussianBasis::map(Matrix& r2) const {
  log_map(r2);
  exp_in_place(r2);
}

State GaussianBasis::state() const {
  return {{"log_scale", log_scale_},
          {"density", std::int64_t(density_ ? 1 : 0)},
          {"width_rule", width_rule_},
          {"common_variance", common_variance_}};
}

void GaussianBasis::load_state(const State& state) {
  const Vector& log_scale = state_get<Vector>(state, "log_scale", where);
  const std::int64_t density = state_get<std::int64_t>(state, "density", where);
  for (double v : log_scale)
    if (!std::isfinite(v))
      throw ModelFileError(std::string(where) + ": state entry 'log_scale' holds " + number(v) +
                           "; the model file is corrupted");
  if (density != 0 && density != 1)
    throw ModelFileError(std::string(where) + ": state entry 'density' is " +
                         std::to_string(density) + ", expected 0 or 1");
  width_rule_ = state_get<std::string>(state, "width_rule", where);
  common_variance_ = state_get<double>(state, "common_variance", where);
  log_scale_ = log_scale;
  density_ = density == 1;
}

}  // namespace radial::plugins
