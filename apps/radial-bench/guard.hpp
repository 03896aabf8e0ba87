#pragma once
// The speed regression guard (`radial-bench --guard baseline.json`): the headline ratios
// Radial / reference measured in this run against those committed in the baseline. Ratios, not
// times, so a slower machine does not fail it; a ratio fails when it is more than `factor`
// times its baseline in every one of the rounds measured (the best round counts), so that one
// noisy measurement does not. A ratio depends on which kernels run (Radial's AVX-512 passes or
// its portable ones, OpenBLAS's core), so the baseline holds one set of ratios per kernel set
// (kernel_set()), each measured on a machine that runs it.

#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace radial::bench {

using Ratios = std::map<std::string, double>;  // key -> Radial / reference, lower is better

struct Baseline {
  Ratios ratios;
  double factor = 2.0;
  std::string machine;  // where the baseline was measured (CPU, BLAS core)
  std::string kernels;  // the kernel set these ratios are for
  bool found = false;   // the file has ratios for `kernels`
  std::vector<std::string> other_sets;  // the kernel sets it has
};

// This process's kernel set: Radial's vector kernels and OpenBLAS's core, e.g.
// "radial avx512, libmvec-avx512; OpenBLAS Cooperlake".
std::string kernel_set();

// Reads baseline.json's ratios for `kernels` (found = false when it has none);
// radial::InputError naming the file and what is wrong.
Baseline read_baseline(const std::filesystem::path& file, const std::string& kernels);

// Writes `ratios` as the baseline of `kernels`, keeping the file's other kernel sets (to a
// temporary file renamed over `file`).
void write_baseline(const std::filesystem::path& file, const std::string& kernels,
                    const Ratios& ratios, double factor, const std::string& machine,
                    const std::string& settings);

// Keeps the lower ratio of each key of `next` in `best`.
void keep_best(Ratios& best, const Ratios& next);

// The keys of the baseline that fail: measured above factor x baseline, or not measured.
std::map<std::string, std::string> guard_failures(const Baseline& baseline, const Ratios& best);

// The table: key, measured, baseline, limit, verdict.
void print_guard(std::ostream& out, const Baseline& baseline, const Ratios& best,
                 std::size_t rounds);

}  // namespace radial::bench
