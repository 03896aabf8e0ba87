#pragma once
// Class-labelled data and per-class Gaussian mixtures for the tests of the framework's mixture EM
// and of the dem plugin: a shipped data set standardised, an EM start, log R^d computed straight
// from its definition (Klautau, paper 002, eq 5), and the numerator/denominator log weights.

#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include <radial/data/data_reader.hpp>
#include <radial/numerics/mixture/mixture_em.hpp>
#include <radial/testing/paths.hpp>

namespace radial::testing {

struct Data {
  radial::Matrix x;
  radial::Labels y;
  std::size_t k = 0;
};

// The first `rows` rows of a shipped data set, standardised (population standard deviation).
inline Data load_standardised(const std::string& file, std::size_t rows) {
  const radial::Dataset d = radial::read_csv(source_dir() / "docs/examples/data" / file);
  Data out;
  const std::size_t n = std::min(rows, d.rows()), p = d.features();
  out.x = radial::Matrix::from_shape({n, p});
  out.y = radial::Labels::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t c = 0; c < p; ++c) out.x(i, c) = d.inputs(i, c);
    out.y(i) = d.classes(i);
  }
  for (std::size_t c = 0; c < p; ++c) {
    double mean = 0, var = 0;
    for (std::size_t i = 0; i < n; ++i) mean += out.x(i, c) / double(n);
    for (std::size_t i = 0; i < n; ++i) var += (out.x(i, c) - mean) * (out.x(i, c) - mean) / double(n);
    for (std::size_t i = 0; i < n; ++i) out.x(i, c) = (out.x(i, c) - mean) / std::sqrt(var);
  }
  out.k = d.num_classes;
  return out;
}

// log R^d = sum_n log P(y_n|x_n), straight from the definitions (long double, no framework code).
inline long double direct_log_rd(const radial::Centres& c, const Data& data) {
  const std::size_t m = c.count(), p = c.dim();
  long double total = 0;
  for (std::size_t n = 0; n < data.x.shape(0); ++n) {
    long double own = 0, all = 0;
    for (std::size_t j = 0; j < m; ++j) {
      long double log_n = -0.5L * (long double)p * std::log(2.0L * M_PI);
      for (std::size_t l = 0; l < p; ++l) {
        const long double diff = data.x(n, l) - c.means(j, l), v = c.diagonal(j, l);
        log_n -= 0.5L * (diff * diff / v + std::log(v));
      }
      const auto k = std::size_t(c.owner(j));
      const long double term = c.class_priors(k) * c.mixing(j, k) * std::exp(log_n);
      all += term;
      if (c.owner(j) == data.y(n)) own += term;
    }
    total += std::log(own) - std::log(all);
  }
  return total;
}

inline radial::Centres em_start(const Data& data, std::size_t g, std::uint64_t seed) {
  radial::EmOptions em;
  em.shape = radial::Shape::Diagonal;
  em.iterations = 30;
  std::mt19937_64 rng(seed);
  return radial::fit_class_mixtures(data.x, data.y, data.k, g, em, rng, "test").centres;
}

inline void log_weights(const radial::Centres& c, radial::Vector& num, radial::Vector& den) {
  num = radial::Vector::from_shape({c.count()});
  den = radial::Vector::from_shape({c.count()});
  for (std::size_t j = 0; j < c.count(); ++j) {
    const auto k = std::size_t(c.owner(j));
    num(j) = std::log(c.mixing(j, k));
    den(j) = num(j) + std::log(c.class_priors(k));
  }
}

}  // namespace radial::testing
