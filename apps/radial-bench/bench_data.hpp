#pragma once
// Deterministic benchmark data shared by both sides of radial-bench: a Gaussian mixture with K
// classes (one Gaussian per class, diagonal covariance), and .npy files that NumPy reads.

#include <cstdint>
#include <filesystem>
#include <vector>

#include "radial/core/types.hpp"

namespace radial::bench {

struct MixtureData {
  Matrix x;       // N x d
  Labels classes; // N, in 0..K-1
};

// N rows in d dimensions from K classes with equal priors; class means ~ N(0, 1.5^2 I),
// per-class standard deviations uniform in [0.5, 1.5] per dimension. The same (n, d, k, seed)
// give the same bits on every machine (mt19937_64 and explicit Box-Muller transforms).
MixtureData gaussian_mixture(std::size_t n, std::size_t d, std::size_t k, std::uint64_t seed);

// float64 little-endian .npy, C order; 1-D for vectors, 2-D for matrices, 3-D for tensors.
void write_npy(const std::filesystem::path& file, const double* data,
               const std::vector<std::size_t>& shape);
void write_npy(const std::filesystem::path& file, const Matrix& m);
void write_npy(const std::filesystem::path& file, const Vector& v);
void write_npy(const std::filesystem::path& file, const Tensor3& t);
// Inputs with the class as a last column (the layout radial's .npy reader expects).
void write_labelled_npy(const std::filesystem::path& file, const MixtureData& data);

}  // namespace radial::bench
