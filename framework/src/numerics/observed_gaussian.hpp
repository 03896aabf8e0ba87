#pragma once
// A Gaussian N(mu_j, S_j) restricted to the observed coordinates o of one input row with missing
// (NaN) cells m, for the missing-data EM and the design matrix (Ghahramani & Jordan 1994,
// section 3): the marginal over o is N(mu_o, S_oo), and given x_o the missing coordinates are
// Gaussian with mean mu_m + S_mo S_oo^-1 (x_o - mu_o) and covariance
// S_mm - S_mo S_oo^-1 S_om. Spherical and Diagonal shapes make the coordinates independent: the
// conditional mean is mu_m and the conditional variances are the S_mm diagonal.
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "radial/centres.hpp"
#include "radial/errors.hpp"
#include "radial/types.hpp"

namespace radial::observed_gaussian {

// The observed and missing coordinates of a row of d values.
inline void split(const double* x, std::size_t d, std::vector<std::size_t>& observed,
                  std::vector<std::size_t>& missing) {
  observed.clear();
  missing.clear();
  for (std::size_t k = 0; k < d; ++k) (std::isnan(x[k]) ? missing : observed).push_back(k);
}

inline bool row_has_missing(const double* x, std::size_t d) {
  for (std::size_t k = 0; k < d; ++k)
    if (std::isnan(x[k])) return true;
  return false;
}

struct Scratch {
  std::vector<double> l, z, w;  // Cholesky of S_oo, L^-1 (x_o - mu_o), L^-1 S_om
};

struct Result {
  double r2 = 0;       // (x_o - mu_o)^T S_oo^-1 (x_o - mu_o)
  double log_det = 0;  // log |S_oo|
};

// Component j of `c` (shape None: S = I) on row x with the coordinates `observed`/`missing`.
// xhat (d values, may be null) gets x with each missing coordinate replaced by its conditional
// mean; cond (may be null) the conditional covariance of the missing coordinates: |m| x |m|
// row-major for Full, its |m| variances otherwise. Throws NumericalError when S_oo is not
// positive definite.
inline Result evaluate(const Centres& c, std::size_t j, const double* x,
                       const std::vector<std::size_t>& observed,
                       const std::vector<std::size_t>& missing, Scratch& s, double* xhat,
                       double* cond) {
  const std::size_t no = observed.size(), nm = missing.size(), d = c.dim();
  const double* mu = &c.means(j, 0);
  Result out;
  if (c.shape != Shape::Full) {
    for (const std::size_t k : observed) {
      const double v = c.shape == Shape::Diagonal    ? c.diagonal(j, k)
                       : c.shape == Shape::Spherical ? c.variances(j)
                                                     : 1.0;
      const double e = x[k] - mu[k];
      out.r2 += e * e / v;
      out.log_det += std::log(v);
    }
    if (xhat) {
      for (std::size_t k = 0; k < d; ++k) xhat[k] = x[k];
      for (const std::size_t k : missing) xhat[k] = mu[k];
    }
    if (cond)
      for (std::size_t i = 0; i < nm; ++i) {
        const std::size_t k = missing[i];
        cond[i] = c.shape == Shape::Diagonal    ? c.diagonal(j, k)
                  : c.shape == Shape::Spherical ? c.variances(j)
                                                : 1.0;
      }
    return out;
  }
  // Full: S_oo = L L^T, z = L^-1 (x_o - mu_o), r2 = z.z, log |S_oo| = 2 sum log L_ii.
  const double* sj = &c.covariances(j, 0, 0);
  s.l.assign(no * no, 0.0);
  for (std::size_t a = 0; a < no; ++a)
    for (std::size_t b = 0; b <= a; ++b) {
      double v = sj[observed[a] * d + observed[b]];
      for (std::size_t k = 0; k < b; ++k) v -= s.l[a * no + k] * s.l[b * no + k];
      if (a == b) {
        if (!(v > 0))
          throw NumericalError("the covariance of centre " + std::to_string(j) +
                               " restricted to a row's observed inputs is not positive definite");
        s.l[a * no + a] = std::sqrt(v);
        out.log_det += 2.0 * std::log(s.l[a * no + a]);
      } else {
        s.l[a * no + b] = v / s.l[b * no + b];
      }
    }
  s.z.resize(no);
  for (std::size_t a = 0; a < no; ++a) {
    double v = x[observed[a]] - mu[observed[a]];
    for (std::size_t k = 0; k < a; ++k) v -= s.l[a * no + k] * s.z[k];
    s.z[a] = v / s.l[a * no + a];
    out.r2 += s.z[a] * s.z[a];
  }
  if (!xhat && !cond) return out;
  // W = L^-1 S_om (|o| x |m|): x_m = mu_m + W^T L^-T ... = mu_m + W^T z, C = S_mm - W^T W.
  s.w.assign(no * nm, 0.0);
  for (std::size_t i = 0; i < nm; ++i)
    for (std::size_t a = 0; a < no; ++a) {
      double v = sj[observed[a] * d + missing[i]];
      for (std::size_t k = 0; k < a; ++k) v -= s.l[a * no + k] * s.w[k * nm + i];
      s.w[a * nm + i] = v / s.l[a * no + a];
    }
  if (xhat) {
    for (std::size_t k = 0; k < d; ++k) xhat[k] = x[k];
    for (std::size_t i = 0; i < nm; ++i) {
      double v = mu[missing[i]];
      for (std::size_t a = 0; a < no; ++a) v += s.w[a * nm + i] * s.z[a];
      xhat[missing[i]] = v;
    }
  }
  if (cond)
    for (std::size_t i = 0; i < nm; ++i)
      for (std::size_t k = 0; k <= i; ++k) {
        double v = sj[missing[i] * d + missing[k]];
        for (std::size_t a = 0; a < no; ++a) v -= s.w[a * nm + i] * s.w[a * nm + k];
        cond[i * nm + k] = cond[k * nm + i] = v;
      }
  return out;
}

}  // namespace radial::observed_gaussian
