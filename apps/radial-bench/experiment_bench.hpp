#pragma once
// The experiment part of radial-bench: what `radial experiment` costs beyond the
// training itself, and how much running two runs at once gains.

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <string>

#include "radial/plugin/loader.hpp"

namespace radial::bench {

// "CPU: <model name>" and "BLAS: OpenBLAS <core> (<config>)" lines, for the tables' headers.
std::string machine_lines();

// An experiment of `runs` small runs (the synth3 pair in `data_dir`, k-means 10 centres,
// thin-plate basis, irls and least-squares outputs, runs / 2 seeds each), written as a file in
// `work`, planned and run through the library with jobs = 1 and jobs = 2 (one thread per run),
// and jobs = 1 with the host's threads per run, each into a fresh results database in `work`,
// `repeats` times each (the median pass is shown). Prints the per-run overhead beyond training
// time and the jobs = 2 speed-up.
void experiment_bench(const Registry& registry, const std::filesystem::path& data_dir,
                      const std::filesystem::path& work, std::size_t runs, std::size_t repeats,
                      std::ostream& out);

}  // namespace radial::bench
