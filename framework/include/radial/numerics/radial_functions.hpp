#pragma once
// Radial functions of the squared distance that several basis plugins are built from, applied in
// place to a block of squared distances (Basis::map). Each plugin keeps its own parameter table
// and paper; the arithmetic lives here once.

#include "radial/core/types.hpp"

namespace radial {

// phi(r) = r^(2k) log r = 0.5 (r^2)^k log r^2, taken as 0 at r = 0 (its limit): the even-order
// polyharmonic splines, thin-plate (k = 1) and NETLAB's r4logr (k = 2). NaN stays NaN.
void polyharmonic_log(Matrix& r2, unsigned k);
// Its derivative in r^2: 0.5 (r^2)^(k-1) (k log r^2 + 1), taken as 0 at r = 0 (for k = 1 it
// diverges there like log r, but only ever multiplies x - c = 0).
void polyharmonic_log_derivative(const Matrix& r2, unsigned k, Matrix& dphi);

// r^2 + c^2 raised to beta/2 for beta = 1 (Hardy's multiquadric sqrt(r^2 + c^2)) or beta = -1
// (its inverse), and the log of that. c^2 that under- or overflows (c below ~1e-154 or above
// ~1e154) would lose c, so then r^2 + c^2 is taken through hypot(r, c), which keeps it exact.
class QuadricShift {
 public:
  explicit QuadricShift(double c);

  double c() const { return c_; }
  // r2 <- (r2 + c^2)^(beta/2), beta = 1 or -1.
  void power(Matrix& r2, int beta) const;
  // r2 <- (beta/2) log(r2 + c^2), beta = 1 or -1.
  void log_power(Matrix& r2, int beta) const;
  // d/d(r^2) of (r^2 + c^2)^(beta/2) from phi = that power: beta/2 phi^(1 - 2/beta), i.e.
  // 1 / (2 phi) for beta = 1 and -phi^3 / 2 for beta = -1.
  void power_derivative(const Matrix& phi, int beta, Matrix& dphi) const;

 private:
  double c_ = 1.0;       // the parameter itself (what a model saves)
  double c2_ = 1.0;      // c^2, used when it is a normal double
  bool scaled_ = false;  // c^2 under- or overflows: r^2 + c^2 through hypot(r, c)
};

}  // namespace radial
