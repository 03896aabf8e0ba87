#pragma once
// The conformance checks of a Basis plugin (radial/sdk/conformance.hpp).

#include "radial/sdk/conformance/fixtures.hpp"

namespace radial::conformance {
namespace detail {

// dphi/d(r^2) of a differentiable basis against central differences of map().
inline void check_basis_derivative(Basis& basis, const Matrix& r2, const Matrix& phi,
                                   const Options& options, Runner& runner) {
  // dphi/d(r^2) is what [refine] descends along (radial/refine/network_objective.hpp): a wrong
  // one lets the refiner "converge" far from the minimum without a warning. Checked against
  // central differences in r^2 with a step relative to r^2 (the polyharmonic splines' log
  // makes the derivative steep near 0), entries at r^2 = 0 left out.
  runner.run("basis/derivative", [&] {
    Matrix dphi;
    basis.map_derivative(r2, phi, dphi);
    if (dphi.shape() != r2.shape()) {
      runner.fail("basis/derivative", "map_derivative() gave a block of another shape than "
                                      "the squared distances");
      return;
    }
    Matrix up = r2, down = r2;
    for (std::size_t i = 0; i < r2.size(); ++i) {
      const double h = 1e-5 * r2.data()[i];
      up.data()[i] += h;
      down.data()[i] -= h;
    }
    basis.map(up);
    basis.map(down);
    double largest = 0;
    std::vector<double> fd(r2.size(), 0.0);
    for (std::size_t i = 0; i < r2.size(); ++i) {
      if (!(r2.data()[i] > 0)) continue;
      fd[i] = (up.data()[i] - down.data()[i]) / (2e-5 * r2.data()[i]);
      largest = std::max(largest, std::fabs(fd[i]));
    }
    for (std::size_t i = 0; i < r2.size(); ++i) {
      if (!(r2.data()[i] > 0)) continue;
      const double got = dphi.data()[i];
      if (!(std::fabs(got - fd[i]) <=
            options.derivative_tolerance * (std::fabs(fd[i]) + 1e-6 * largest))) {
        std::ostringstream out;
        out.precision(10);
        out << "map_derivative() gives dphi/d(r^2) = " << got << " at r^2 = " << r2.data()[i]
            << " (flat index " << i << "), central differences " << fd[i]
            << "; it must be the derivative of map() with respect to the squared distance";
        runner.fail("basis/derivative", out.str());
        return;
      }
    }
  });
}

// state() restored into a new instance maps as the first; load_state({}) refused when the
// state has entries.
inline void check_basis_state(const Registry& registry, const ComponentInfo& info,
                              const Params& params, const Basis& first, const Matrix& r2,
                              const Matrix& phi, Runner& runner) {
  runner.run("basis/state-round-trip", [&] {
    const State state = first.state();
    const State restored =
        deserialize_state(serialize_state(state), "conformance state of " + info.id);
    auto loaded = registry.make_basis(info.id, params);
    loaded->load_state(restored);
    Matrix out = r2;
    loaded->map(out);
    const std::string d = difference(out, phi, "phi");
    if (!d.empty()) {
      runner.fail("basis/state-round-trip",
                  "a basis restored by load_state(deserialize_state(serialize_state(state()))) "
                  "maps differently: " +
                      d);
    }
  });

  runner.run("basis/empty-state-refused", [&] {
    if (first.state().empty()) return;  // nothing to restore, nothing to miss
    auto loaded = registry.make_basis(info.id, params);
    std::string what;
    const Outcome outcome = outcome_of([&] { loaded->load_state(State{}); }, &what);
    if (outcome == Outcome::Returned) {
      runner.fail("basis/empty-state-refused",
                  "load_state({}) was accepted although state() has entries; use state_get()");
    } else if (outcome == Outcome::OtherException) {
      runner.fail("basis/empty-state-refused",
                  "load_state({}) threw a non-Radial exception: " + what);
    }
  });
}

inline void check_basis(const Registry& registry, const ComponentInfo& info, const Params& params,
                        const Options& options, Runner& runner) {
  const Dataset data = two_classes(options.rows_per_class, options.features, options.seed);
  const Centres given = class_centres(data);

  std::shared_ptr<Basis> first;
  Centres prepared;
  Matrix r2, phi;
  bool ready = false;
  runner.run("basis/make-and-map", [&] {
    first = registry.make_basis(info.id, params);
    prepared = given;
    FitContext ctx(options.seed);
    first->prepare(prepared, ctx);
    prepared.check();
    SquaredDistances(prepared, first->metric()).compute(data.inputs, r2);
    phi = r2;
    first->map(phi);
    if (phi.shape() != r2.shape()) {
      runner.fail("basis/make-and-map", "map() changed the shape of the block");
      return;
    }
    if (!all_finite(phi)) {
      runner.fail("basis/make-and-map", "map() produced non-finite values for finite distances");
    }
    ready = true;
  });
  if (!ready) return;

  runner.run("basis/prepare-twice", [&] {
    auto again = registry.make_basis(info.id, params);
    Centres once = given, twice = given;
    FitContext ctx1(options.seed), ctx2(options.seed);
    again->prepare(once, ctx1);
    again->prepare(twice, ctx2);
    const std::string centres_differ = difference(twice, prepared);
    if (!centres_differ.empty()) {
      runner.fail("basis/prepare-twice",
                  "preparing twice changed the centres from preparing once: " + centres_differ);
    }
    Matrix out = r2;
    again->map(out);
    const std::string d = difference(out, phi, "phi");
    if (!d.empty()) {
      runner.fail("basis/prepare-twice",
                  "a second instance prepared twice maps differently from the first: " + d);
    }
  });

  runner.run("basis/blocks", [&] {
    Matrix by_rows = r2;
    for (std::size_t i = 0; i < r2.shape(0); ++i) {
      Matrix row = Matrix::from_shape({1, r2.shape(1)});
      for (std::size_t j = 0; j < r2.shape(1); ++j) row(0, j) = r2(i, j);
      first->map(row);
      for (std::size_t j = 0; j < r2.shape(1); ++j) by_rows(i, j) = row(0, j);
    }
    // Vectorised kernels may round a block's tail differently by an ulp or two; anything more
    // means phi depends on the other rows of the block.
    for (std::size_t i = 0; i < phi.size(); ++i) {
      const double a = by_rows.data()[i], b = phi.data()[i];
      if (!(std::fabs(a - b) <= 1e-13 * std::max(1.0, std::fabs(b)))) {
        std::ostringstream out;
        out.precision(17);
        out << "mapping row by row differs from mapping the block at flat index " << i << ": " << a
            << " vs " << b;
        runner.fail("basis/blocks", out.str());
        return;
      }
    }
  });

  if (first->has_log_map()) {
    runner.run("basis/log-map", [&] {
      Matrix logs = r2;
      first->log_map(logs);
      for (std::size_t i = 0; i < phi.size(); ++i) {
        const double expected = std::log(phi.data()[i]);
        const double got = logs.data()[i];
        if (phi.data()[i] > 0 &&
            !(std::fabs(got - expected) <= 1e-10 * (1 + std::fabs(expected)))) {
          std::ostringstream out;
          out.precision(17);
          out << "log_map differs from log(map) at flat index " << i << ": " << got << " vs "
              << expected;
          runner.fail("basis/log-map", out.str());
          return;
        }
      }
    });
  }

  if (first->differentiable()) check_basis_derivative(*first, r2, phi, options, runner);
  check_basis_state(registry, info, params, *first, r2, phi, runner);

  runner.run("basis/bad-centres", [&] {
    auto basis = registry.make_basis(info.id, params);
    Centres bad = given;
    bad.variances = Vector::from_shape({given.count() - 1});  // one variance short
    bad.variances.fill(1.0);
    std::string what;
    const Outcome outcome = outcome_of(
        [&] {
          FitContext ctx(options.seed);
          basis->prepare(bad, ctx);
          bad.check();  // a basis may rebuild the shapes; then they must be consistent
          Matrix out;
          SquaredDistances(bad, basis->metric()).compute(data.inputs, out);
          basis->map(out);
        },
        &what);
    if (outcome == Outcome::OtherException) {
      runner.fail("basis/bad-centres", "centres with " + std::to_string(given.count() - 1) +
                                           " variances for " + std::to_string(given.count()) +
                                           " centres gave a non-Radial exception: " + what);
    }
  });
}

}  // namespace detail
}  // namespace radial::conformance
