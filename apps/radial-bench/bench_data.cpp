// Benchmark data generation and .npy writing (see bench_data.hpp).
#include "bench_data.hpp"

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "radial/core/errors.hpp"

namespace radial::bench {
namespace {

// Uniform in [0, 1) from the top 53 bits: the same on every standard library (std::
// distributions are not specified bit for bit).
double uniform(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

double normal(std::mt19937_64& rng) {
  const double u1 = 1.0 - uniform(rng), u2 = uniform(rng);  // u1 in (0, 1]
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace

MixtureData gaussian_mixture(std::size_t n, std::size_t d, std::size_t k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Matrix means = xt::empty<double>({k, d}), sd = xt::empty<double>({k, d});
  for (auto& v : means) v = 1.5 * normal(rng);
  for (auto& v : sd) v = 0.5 + uniform(rng);
  MixtureData out;
  out.x = xt::empty<double>({n, d});
  out.classes = xt::empty<std::int64_t>({n});
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t c = std::size_t(rng() % k);
    out.classes(i) = std::int64_t(c);
    for (std::size_t j = 0; j < d; ++j) out.x(i, j) = means(c, j) + sd(c, j) * normal(rng);
  }
  return out;
}

void write_npy(const std::filesystem::path& file, const double* data,
               const std::vector<std::size_t>& shape) {
  std::ostringstream dict;
  dict << "{'descr': '<f8', 'fortran_order': False, 'shape': (";
  std::size_t count = 1;
  for (std::size_t s : shape) {
    dict << s << ",";
    count *= s;
  }
  dict << "), }";
  std::string header = dict.str();
  // Magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(file, std::ios::binary);
  if (!out) throw Error("radial-bench: cannot write " + file.string());
  const unsigned char preamble[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.write(reinterpret_cast<const char*>(preamble), 8);
  const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xff),
                                static_cast<unsigned char>(header.size() >> 8)};
  out.write(reinterpret_cast<const char*>(len), 2);
  out.write(header.data(), std::streamsize(header.size()));
  out.write(reinterpret_cast<const char*>(data), std::streamsize(count * sizeof(double)));
  if (!out) throw Error("radial-bench: writing " + file.string() + " failed (disk full?)");
}

void write_npy(const std::filesystem::path& file, const Matrix& m) {
  write_npy(file, m.data(), {m.shape(0), m.shape(1)});
}
void write_npy(const std::filesystem::path& file, const Vector& v) {
  write_npy(file, v.data(), {v.shape(0)});
}
void write_npy(const std::filesystem::path& file, const Tensor3& t) {
  write_npy(file, t.data(), {t.shape(0), t.shape(1), t.shape(2)});
}

void write_labelled_npy(const std::filesystem::path& file, const MixtureData& data) {
  const std::size_t n = data.x.shape(0), d = data.x.shape(1);
  Matrix labelled = xt::empty<double>({n, d + 1});
  for (std::size_t i = 0; i < n; ++i) {
    std::copy_n(data.x.data() + i * d, d, labelled.data() + i * (d + 1));
    labelled(i, d) = double(data.classes(i));
  }
  write_npy(file, labelled);
}

}  // namespace radial::bench
