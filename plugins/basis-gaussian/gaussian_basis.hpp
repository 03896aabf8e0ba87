#pragma once
// Gaussian basis on Mahalanobis distances under the centres' shapes:
//   density = false: phi_j(x) = exp(-r_j^2 / 2)                (NETLAB rbffwd 'gaussian':
//                    exp(-||x - c_j||^2 / (2 w_j)), w_j a variance, for spherical shapes)
//   density = true:  phi_j(x) = N(x | c_j, S_j)                (PRBF kernels, paper 004 eq. 5)
// Widths: the framework's width rules (radial/network/width_rule.hpp). By default a density keeps the
// centres' learned shapes, and activations get NETLAB's nearest-centre rule with a scale the
// trainer selects; `width` > 0 sets every centre to the spherical variance width^2.

#include <string>

#include <radial/network/basis.hpp>
#include <radial/core/params.hpp>
#include <radial/network/width_rule.hpp>

namespace radial::plugins {

struct GaussianOptions {
  WidthSpec width;       // the width rule and its scale (radial/network/width_rule.hpp)
  bool density = false;  // N(x|c_j,S_j) instead of exp(-r^2/2)
};

// The parameters, with the checks a range cannot state (width_table): reading them throws
// ParameterError when width > 0 but width^2 is not a normal double, or width_rule = "fixed"
// has no width.
OptionTable<GaussianOptions> gaussian_table();

class GaussianBasis final : public Basis {
 public:
  explicit GaussianBasis(GaussianOptions options)
      : width_(options.width), density_(options.density) {}

  Metric metric() const override { return Metric::Shape; }
  void prepare(Centres& centres, FitContext& ctx) override;
  void map(Matrix& r2) const override;
  bool has_log_map() const override { return true; }
  bool width_scale_selectable() const override;
  bool differentiable() const override { return true; }
  // dphi/dr^2 = -phi / 2 (the density's constant does not depend on r^2).
  void map_derivative(const Matrix& r2, const Matrix& phi, Matrix& dphi) const override;
  bool shapes_trainable() const override { return !density_; }
  bool density() const override { return density_; }
  // exp(-r^2/2) without density: rows with missing inputs get the exact expected activation.
  bool gaussian_activation() const override { return !density_; }
  void log_map(Matrix& r2) const override;
  State state() const override;
  void load_state(const State& state) override;

 private:
  void check_columns(const Matrix& r2) const;
  void log_rows(Matrix& r2, std::size_t first, std::size_t last) const;

  WidthSpec width_;
  bool density_;
  // log of the factor in front of exp(-r^2/2) for each centre: 0 without density,
  // -0.5 (d log 2 pi + log |S_j|) with it. Empty until prepare() or load_state().
  Vector log_scale_;
  // Which width rule prepare() applied, kept in the state for the record (to_string(WidthRule);
  // models written before the rules say "width", "centres" or "netlab"), and the common
  // variance it set (0 when the centres' variances differ).
  std::string width_rule_;
  double common_variance_ = 0;
};

}  // namespace radial::plugins
