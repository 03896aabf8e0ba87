#pragma once
// Basis: phi_j(x) = basis(r_j(x)), a function of the distance from x to centre j.
//
// The framework computes blocks of squared distances (rows x M, by the GEMM identity) and hands
// each block to map(), which rewrites it in place. One virtual call per block, never per element.
//
// Lifecycle: a basis is made from validated Params, then prepare() is called once with the
// trained centres (it may fill in shapes the centre learner left out, e.g. NETLAB's width rule),
// after which map() is const and thread-safe. A loaded model restores the basis by load_state()
// instead of prepare().

#include "radial/core/centres.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/core/polynomial_term.hpp"
#include "radial/core/state.hpp"
#include "radial/core/types.hpp"

namespace radial {

// Metric (which squared distance map() receives) is declared with the centres' shapes
// (radial/core/centres.hpp).

// density(), gaussian_activation() and width_scale_selectable() are also declared by the
// registration (radial/plugin/loader.hpp's Capabilities), which the trainer reads before it makes a
// basis; the conformance kit checks that the two agree.
class Basis {
 public:
  virtual ~Basis();

  virtual Metric metric() const = 0;

  // Fixes everything that depends on the centres (widths by a default rule, normalising
  // constants). May set centres.shape and its arrays when they were absent.
  // Throws ShapeError when the centres cannot be used with this basis.
  virtual void prepare(Centres& centres, FitContext& ctx) = 0;

  // r2: rows x M squared distances (of metric()) -> phi values, in place.
  virtual void map(Matrix& r2) const = 0;

  // log phi in place, for outputs working in the log domain (the Bayes posterior). Only bases
  // that are positive everywhere provide it.
  virtual bool has_log_map() const { return false; }
  virtual void log_map(Matrix& r2) const;

  // For training the whole network (radial/refine/network_objective.hpp): dphi/d(r^2) at the
  // squared distances r2 (rows x M), given phi = map(r2), into dphi (resized). Only bases with
  // differentiable() provide it; the rest throw.
  virtual bool differentiable() const { return false; }
  virtual void map_derivative(const Matrix& r2, const Matrix& phi, Matrix& dphi) const;
  // True when phi depends on the centres' shapes only through r^2 (so the shapes may be
  // trained): not a density, whose normalising constant moves with the shapes. Shape-metric
  // bases only.
  virtual bool shapes_trainable() const { return false; }

  // True when prepare() multiplies its widths by a parameter `width_scale` that the trainer may
  // choose (the trainer's selection, framework/src/training/selection.hpp): the basis declares
  // width_param_table() and its rule uses a scale. Known after construction, before prepare().
  virtual bool width_scale_selectable() const { return false; }

  // True when phi_j is the normalised density N(x | c_j, S_j) = exp(k_j - r^2 / 2) with
  // k_j = -(d log 2 pi + log |S_j|) / 2 (a Shape-metric basis). For an input row with missing
  // (NaN) coordinates the framework then hands map() and log_map() the squared distance over the
  // observed coordinates o under S_oo plus log |S_oo| - log |S_j| - (d - d_o) log 2 pi, so phi is
  // the marginal density N(x_o | c_o, S_oo): the missing inputs integrated out (Ghahramani &
  // Jordan 1994). Other bases get the plain squared distance over the observed coordinates,
  // save a Gaussian activation with an input model (gaussian_activation below).
  virtual bool density() const { return false; }

  // True when phi_j(x) = exp(-r_j^2 / 2) exactly (a Shape-metric activation, no constant): for
  // an input row with missing (NaN) coordinates and a design matrix given an input model
  // (DesignMatrix::set_input_model), the framework then hands map() and log_map() the r2_eff
  // with exp(-r2_eff / 2) = E[phi_j(x)], the expected activation over the missing inputs under
  // the input model given the observed ones (radial/numerics/distances.hpp, compute_expected).
  // Other activation bases keep the squared distance over the observed coordinates. The design
  // matrix may also evaluate such a basis itself, in one fused pass (radial/numerics/
  // gaussian_rows.hpp), instead of calling map().
  virtual bool gaussian_activation() const { return false; }

  // The polynomial term beside the basis (radial/core/polynomial_term.hpp), or null (the default):
  // the design matrix then holds the q - 1 non-constant monomials of the inputs between
  // phi_1..phi_M and the bias column, the weights have M + q rows, and the output layer must
  // impose the side conditions P_c^T w = 0 (OutputLayer::side_conditions; the trainer refuses
  // one that does not). Known after construction; its shift and scale after prepare() or
  // load_state().
  virtual const PolynomialTerm* polynomial() const { return nullptr; }

  // Everything map() needs besides the centres, to be saved in a model.
  virtual State state() const = 0;
  virtual void load_state(const State& state) = 0;
};

// A basis of the Euclidean distance with nothing to fit to the centres: prepare() leaves them
// as they are, and the state is empty unless the basis overrides it to save a parameter.
class EuclideanBasis : public Basis {
 public:
  ~EuclideanBasis() override;
  Metric metric() const final { return Metric::Euclidean; }
  void prepare(Centres&, FitContext&) override {}
  State state() const override { return {}; }
  void load_state(const State&) override {}
};

}  // namespace radial
