#pragma once
// Gaussian basis on Mahalanobis distances under the centres' shapes:
//   density = false: phi_j(x) = exp(-r_j^2 / 2)                (NETLAB rbffwd 'gaussian':
//                    exp(-||x - c_j||^2 / (2 w_j)), w_j a variance, for spherical shapes)
//   density = true:  phi_j(x) = N(x | c_j, S_j)                (PRBF kernels, paper 004 eq. 5)
// Widths: `width` > 0 sets every centre to the spherical variance width^2; otherwise the
// centres' own shapes are used, and centres without shapes get NETLAB's rule (rbfsetfw with
// scale 0): one common variance equal to the largest squared distance between two centres.

#include <string>

#include <radial/basis.hpp>
#include <radial/params.hpp>

namespace radial::plugins {

struct GaussianOptions {
  double width = 0;      // sigma for every centre; 0: the centres' shapes or NETLAB's rule
  bool density = false;  // N(x|c_j,S_j) instead of exp(-r^2/2)
};

// The validated parameters as options, with the one check the table cannot state:
// ParameterError when width > 0 but width^2, the variance every distance is divided by, is not
// a normal double (it underflows to 0 or overflows).
GaussianOptions gaussian_options(const Params& params);

class GaussianBasis final : public Basis {
 public:
  explicit GaussianBasis(GaussianOptions options)
      : width_(options.width), density_(options.density) {}

  Metric metric() const override { return Metric::Shape; }
  void prepare(Centres& centres, FitContext& ctx) override;
  void map(Matrix& r2) const override;
  bool has_log_map() const override { return true; }
  void log_map(Matrix& r2) const override;
  State state() const override;
  void load_state(const State& state) override;

 private:
  double width_;
  bool density_;
  // log of the factor in front of exp(-r^2/2) for each centre: 0 without density,
  // -0.5 (d log 2 pi + log |S_j|) with it. Empty until prepare() or load_state().
  Vector log_scale_;
  // Which widths prepare() used, kept in the state for the record: "width" (the parameter),
  // "centres" (the centres' own shapes) or "netlab" (largest squared distance between
  // centres), and the common variance it set (0 for "centres").
  std::string width_rule_;
  double common_variance_ = 0;
};

}  // namespace radial::plugins
