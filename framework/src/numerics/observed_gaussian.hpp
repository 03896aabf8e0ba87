#pragma once
// A Gaussian N(mu_j, S_j) restricted to the observed coordinates o of one input row with missing
// (NaN) cells m, for the missing-data EM and the design matrix (Ghahramani & Jordan 1994,
// section 3): the marginal over o is N(mu_o, S_oo), and given x_o the missing coordinates are
// Gaussian with mean mu_m + S_mo S_oo^-1 (x_o - mu_o) and covariance
// S_mm - S_mo S_oo^-1 S_om. Spherical and Diagonal shapes make the coordinates independent: the
// conditional mean is mu_m and the conditional variances are the S_mm diagonal.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "radial/core/centres.hpp"
#include "radial/core/errors.hpp"
#include "radial/core/types.hpp"

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

// inv = L^-1 (k x k, lower, row-major) of a lower-triangular l (k x k, row-major).
inline void lower_inverse(const double* l, std::size_t k, double* inv) {
  std::fill(inv, inv + k * k, 0.0);
  for (std::size_t col = 0; col < k; ++col)
    for (std::size_t r = col; r < k; ++r) {
      double v = r == col ? 1.0 : 0.0;
      for (std::size_t t = col; t < r; ++t) v -= l[r * k + t] * inv[t * k + col];
      inv[r * k + col] = v / l[r * k + r];
    }
}

// out = inv^T inv (k x k, symmetric, row-major): (L L^T)^-1 from inv = L^-1.
inline void inverse_from_lower_inverse(const double* inv, std::size_t k, double* out) {
  for (std::size_t r = 0; r < k; ++r)
    for (std::size_t col = 0; col <= r; ++col) {
      double v = 0;
      for (std::size_t t = r; t < k; ++t) v += inv[t * k + r] * inv[t * k + col];
      out[r * k + col] = out[col * k + r] = v;
    }
}

// Full shapes prepared once for many rows: each component's precision P_j = S_j^-1 and
// log |S_j|. A row's marginal and conditional then come from the |m| x |m| block P_mm (the
// Schur complement) in place of a Cholesky of the |o| x |o| block S_oo:
//   S_oo^-1 = P_oo - P_om P_mm^-1 P_mo,  log |S_oo| = log |S| + log |P_mm|,
//   E[x_m | x_o] = mu_m - P_mm^-1 P_mo (x_o - mu_o),  Cov[x_m | x_o] = P_mm^-1,
// the same quantities as evaluate() above, at |o|^2 + |m|^3 per row instead of |o|^3.
struct Precisions {
  std::vector<std::vector<double>> p;  // d x d row-major per component
  std::vector<double> log_det;
};

// Throws NumericalError when a covariance is not positive definite.
inline Precisions full_precisions(const Centres& c) {
  const std::size_t m = c.count(), d = c.dim();
  Precisions out;
  out.p.resize(m);
  out.log_det.assign(m, 0.0);
  std::vector<double> l(d * d), inv(d * d);
  for (std::size_t j = 0; j < m; ++j) {
    const double* sj = &c.covariances(j, 0, 0);
    std::fill(l.begin(), l.end(), 0.0);
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = 0; b <= a; ++b) {
        double v = sj[a * d + b];
        for (std::size_t k = 0; k < b; ++k) v -= l[a * d + k] * l[b * d + k];
        if (a == b) {
          if (!(v > 0))
            throw NumericalError("the covariance of centre " + std::to_string(j) +
                                 " is not positive definite");
          l[a * d + a] = std::sqrt(v);
          out.log_det[j] += 2.0 * std::log(l[a * d + a]);
        } else {
          l[a * d + b] = v / l[b * d + b];
        }
      }
    lower_inverse(l.data(), d, inv.data());
    out.p[j].resize(d * d);
    inverse_from_lower_inverse(inv.data(), d, out.p[j].data());
  }
  return out;
}

// evaluate() for a Full component from its precision.
inline Result evaluate(const Precisions& pr, const Centres& c, std::size_t j, const double* x,
                       const std::vector<std::size_t>& observed,
                       const std::vector<std::size_t>& missing, Scratch& s, double* xhat,
                       double* cond) {
  const std::size_t no = observed.size(), nm = missing.size(), d = c.dim();
  const double* mu = &c.means(j, 0);
  const double* p = pr.p[j].data();
  Result out;
  s.z.resize(no);
  for (std::size_t a = 0; a < no; ++a) s.z[a] = x[observed[a]] - mu[observed[a]];
  double q = 0;  // e_o^T P_oo e_o
  for (std::size_t a = 0; a < no; ++a) {
    const double* pa = p + observed[a] * d;
    double v = 0;
    for (std::size_t b = 0; b < no; ++b) v += pa[observed[b]] * s.z[b];
    q += s.z[a] * v;
  }
  // P_mm = L L^T; y = L^-1 P_mo e_o.
  s.l.assign(nm * nm, 0.0);
  s.w.assign(nm, 0.0);
  double log_pmm = 0;
  for (std::size_t i = 0; i < nm; ++i) {
    const double* pi = p + missing[i] * d;
    for (std::size_t k = 0; k <= i; ++k) {
      double v = pi[missing[k]];
      for (std::size_t t = 0; t < k; ++t) v -= s.l[i * nm + t] * s.l[k * nm + t];
      if (i == k) {
        if (!(v > 0))
          throw NumericalError("the precision of centre " + std::to_string(j) +
                               " restricted to a row's missing inputs is not positive definite");
        s.l[i * nm + i] = std::sqrt(v);
        log_pmm += 2.0 * std::log(s.l[i * nm + i]);
      } else {
        s.l[i * nm + k] = v / s.l[k * nm + k];
      }
    }
    double b = 0;
    for (std::size_t a = 0; a < no; ++a) b += pi[observed[a]] * s.z[a];
    for (std::size_t t = 0; t < i; ++t) b -= s.l[i * nm + t] * s.w[t];
    s.w[i] = b / s.l[i * nm + i];
  }
  double yy = 0;
  for (std::size_t i = 0; i < nm; ++i) yy += s.w[i] * s.w[i];
  out.r2 = q - yy;
  out.log_det = pr.log_det[j] + log_pmm;
  if (!xhat && !cond) return out;
  if (xhat) {  // x_m = mu_m - L^-T y
    for (std::size_t k = 0; k < d; ++k) xhat[k] = x[k];
    for (std::size_t i = nm; i-- > 0;) {
      double v = s.w[i];
      for (std::size_t t = i + 1; t < nm; ++t) v -= s.l[t * nm + i] * xhat[missing[t]];
      xhat[missing[i]] = v / s.l[i * nm + i];  // (L^-T y)_i for now
    }
    for (std::size_t i = 0; i < nm; ++i) xhat[missing[i]] = mu[missing[i]] - xhat[missing[i]];
  }
  if (cond) {  // P_mm^-1 = L^-T L^-1
    std::vector<double>& inv = s.z;  // the observed residuals are no longer needed
    inv.resize(nm * nm);
    lower_inverse(s.l.data(), nm, inv.data());
    inverse_from_lower_inverse(inv.data(), nm, cond);
  }
  return out;
}

}  // namespace radial::observed_gaussian
