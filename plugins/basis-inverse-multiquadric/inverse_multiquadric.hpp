#pragma once
// The `inverse-multiquadric` basis on Euclidean distances: phi(r) = 1 / sqrt(r^2 + c^2).
// Nothing depends on the centres, so prepare() leaves them as they are.

#include <radial/basis.hpp>
#include <radial/params.hpp>

namespace radial::plugins {

struct InverseMultiquadricOptions {
  double c = 1.0;  // c >= 1e-100: the parameter table
};

InverseMultiquadricOptions inverse_multiquadric_options(const Params& params);

class InverseMultiquadricBasis final : public Basis {
 public:
  // Stores c and c^2 (or that c^2 is out of range): the form map() reads.
  explicit InverseMultiquadricBasis(InverseMultiquadricOptions options) { set_c(options.c); }

  Metric metric() const override { return Metric::Euclidean; }
  void prepare(Centres& centres, FitContext& ctx) override;
  void map(Matrix& r2) const override;
  bool has_log_map() const override { return true; }
  void log_map(Matrix& r2) const override;
  State state() const override;
  void load_state(const State& state) override;

 private:
  void set_c(double c);

  double c_ = 1.0;      // the parameter itself, saved in the state
  double c2_ = 1.0;     // c^2, used when it is a normal double
  bool scaled_ = false; // c^2 under- or overflows: r^2 + c^2 through hypot(r, c)
};

}  // namespace radial::plugins
