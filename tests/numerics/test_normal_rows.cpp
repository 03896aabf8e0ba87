// The row kernels of Phi_b^T (Phi_b X) (normal_rows) against the product summed in long double:
// every kernel this CPU runs, every output count they take, rows and columns off the group and
// vector sizes, and a Q that already holds a sum (they accumulate).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <radial/numerics/normal_rows.hpp>

using namespace radial;

TEST_CASE("normal-equation row kernels equal Phi^T (Phi X)", "[normal-rows]") {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const auto kernels = normal_rows_kernels();
  REQUIRE(kernels.back().name == std::string("portable"));
  for (const auto& kernel : kernels) {
    for (std::size_t p : {1, 7, 8, 9, 17, 101}) {
      for (std::size_t k = 1; k <= normal_rows_max_outputs; ++k) {
        for (std::size_t rows : {1, 3, 4, 5, 9}) {
          std::vector<double> block(rows * p), xt(k * p), qt(k * p), start(k * p);
          for (double& v : block) v = unit(rng);
          for (double& v : xt) v = unit(rng);
          for (double& v : start) v = unit(rng);
          qt = start;
          kernel.run(block.data(), rows, p, xt.data(), k, qt.data());
          for (std::size_t c = 0; c < k; ++c) {
            for (std::size_t j = 0; j < p; ++j) {
              long double want = start[c * p + j], scale = std::fabs(start[c * p + j]);
              for (std::size_t i = 0; i < rows; ++i) {
                long double u = 0, us = 0;
                for (std::size_t l = 0; l < p; ++l) {
                  u += (long double)block[i * p + l] * xt[c * p + l];
                  us += std::fabs(block[i * p + l] * xt[c * p + l]);
                }
                want += u * block[i * p + j];
                scale += us * std::fabs(block[i * p + j]);
              }
              INFO(kernel.name << " p " << p << " k " << k << " rows " << rows);
              REQUIRE(std::fabs(qt[c * p + j] - double(want)) <=
                      4 * double(p + rows) * std::numeric_limits<double>::epsilon() *
                          double(scale));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("the chunked AVX-512 row kernel gives the grouped kernel's bits", "[normal-rows]") {
  const auto kernels = normal_rows_kernels();
  const NormalRowsKernel* grouped = nullptr;
  const NormalRowsKernel* chunked = nullptr;
  for (const auto& kernel : kernels) {
    if (kernel.name == std::string("avx512")) grouped = &kernel;
    if (kernel.name == std::string("avx512-chunked")) chunked = &kernel;
  }
  if (!grouped || !chunked) return;  // not an AVX-512 CPU (or the clang build)
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  // Columns across and between the 512-column chunks, with and without a masked tail.
  for (std::size_t p : {7, 512, 513, 1024, 1029, 2051}) {
    for (std::size_t k : {1, 2, 5, 8}) {
      for (std::size_t rows : {1, 6, 9}) {
        std::vector<double> block(rows * p), xt(k * p), a(k * p);
        for (double& v : block) v = unit(rng);
        for (double& v : xt) v = unit(rng);
        for (double& v : a) v = unit(rng);
        std::vector<double> b = a;
        grouped->run(block.data(), rows, p, xt.data(), k, a.data());
        chunked->run(block.data(), rows, p, xt.data(), k, b.data());
        INFO("p " << p << " k " << k << " rows " << rows);
        REQUIRE(a == b);
      }
    }
  }
}

TEST_CASE("row kernels on a single-precision block give the widened block's bits",
          "[normal-rows]") {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (const auto& kernel : normal_rows_kernels()) {
    // Off the vector widths (4, 8), the groups (1-8 rows) and the AVX-512 column chunks (512).
    for (std::size_t p : {1, 5, 8, 13, 516, 1029}) {
      for (std::size_t k = 1; k <= normal_rows_max_outputs; ++k) {
        for (std::size_t rows : {1, 7, 10}) {
          std::vector<float> single(rows * p);
          std::vector<double> widened(rows * p), xt(k * p), a(k * p);
          for (std::size_t i = 0; i < single.size(); ++i) {
            single[i] = float(unit(rng));
            widened[i] = double(single[i]);
          }
          for (double& v : xt) v = unit(rng);
          for (double& v : a) v = unit(rng);
          std::vector<double> b = a;
          kernel.run(widened.data(), rows, p, xt.data(), k, a.data());
          kernel.run_single(single.data(), rows, p, xt.data(), k, b.data());
          INFO(kernel.name << " p " << p << " k " << k << " rows " << rows);
          REQUIRE(a == b);
        }
      }
    }
  }
}
