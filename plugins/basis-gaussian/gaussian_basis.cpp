#include "gaussian_basis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <radial/core/errors.hpp>
#include <radial/numerics/distances.hpp>
#include <radial/numerics/vector_math.hpp>
#include <radial/core/text.hpp>

namespace radial::plugins {

namespace {

const char* const where = "basis gaussian";

using text::number;

}  // namespace

OptionTable<GaussianOptions> gaussian_table() {
  OptionTable<GaussianOptions> t;
  t.include(&GaussianOptions::width, width_table("gaussian"));
  t.bind("density", &GaussianOptions::density,
         "normalised density N(x|c_j,S_j) instead of exp(-r^2/2); needed by PRBF / Bayes outputs");
  return t;
}

bool GaussianBasis::width_scale_selectable() const {
  return width_scale_choosable(width_, density_);
}

void GaussianBasis::prepare(Centres& centres, FitContext& ctx) {
  if (centres.means.dimension() != 2 || centres.count() == 0)
    throw ShapeError(std::string(where) + ": there are no centres to place Gaussians on");
  const WidthResult widths = apply_width_rule(centres, width_, density_, ctx);
  width_rule_ = to_string(widths.rule);
  common_variance_ = widths.common_variance;
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

void GaussianBasis::check_columns(const Matrix& r2) const {
  const std::size_t m = log_scale_.size();
  if (r2.dimension() != 2 || r2.shape(1) != m)
    throw ShapeError(std::string(where) + ": distances to " +
                     std::to_string(r2.dimension() == 2 ? r2.shape(1) : 0) +
                     " centres given, but the basis was prepared for " + std::to_string(m) +
                     (m == 0 ? " (call prepare() or load_state() first)" : ""));
}

// log phi = log_scale_j - r2 / 2 for rows [first, last).
void GaussianBasis::log_rows(Matrix& r2, std::size_t first, std::size_t last) const {
  const std::size_t m = log_scale_.size();
  const double* s = log_scale_.data();
  for (std::size_t row = first; row < last; ++row) {
    double* v = r2.data() + row * m;
    for (std::size_t j = 0; j < m; ++j) v[j] = s[j] - 0.5 * v[j];
  }
}

void GaussianBasis::log_map(Matrix& r2) const {
  check_columns(r2);
  log_rows(r2, 0, r2.shape(0));
}

// The log, then the exp, a few rows at a time while they are in L1 (the same values as the two
// whole passes).
void GaussianBasis::map(Matrix& r2) const {
  check_columns(r2);
  const std::size_t n = r2.shape(0), m = log_scale_.size();
  const std::size_t step = std::max<std::size_t>(1, 512 / std::max<std::size_t>(1, m));
  for (std::size_t first = 0; first < n; first += step) {
    const std::size_t last = std::min(n, first + step);
    log_rows(r2, first, last);
    exp_in_place(r2.data() + first * m, (last - first) * m);
  }
}

void GaussianBasis::map_derivative(const Matrix&, const Matrix& phi, Matrix& dphi) const {
  if (dphi.shape() != phi.shape()) dphi.resize({phi.shape(0), phi.shape(1)});
  for (std::size_t i = 0, n = phi.size(); i < n; ++i) dphi.data()[i] = -0.5 * phi.data()[i];
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
