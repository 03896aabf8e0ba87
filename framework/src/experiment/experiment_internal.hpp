#pragma once
// What the experiment reader, the planner and the runner share: how a pipeline entry becomes
// overrides, which grid axes apply to a pipeline, and the grid points of those axes.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "radial/experiment/experiment.hpp"

namespace radial::experiment {

using GridPoint = std::vector<std::pair<std::string, std::string>>;  // key, TOML value

// The overrides of `pipeline` at `point`: its `set`, then the grid values (which win).
std::vector<std::string> overrides(const ExperimentPipeline& pipeline, const GridPoint& point);

// [data] of the pipelines replaced by dataset `index`; messages about it name its entry.
DataReplacement replacement(const Experiment& experiment, std::size_t index);

// Indices of the axes whose key names a parameter declared by `pipeline`'s plugin in that slot.
std::vector<std::size_t> applicable_axes(const std::vector<GridAxis>& grid, const Pipeline& pipeline,
                                         const Registry& registry);

// InputError naming the experiment file when datasets x (grid points of each pipeline, its
// applicable axes `axes[p]`) x seeds passes max_planned_runs; counted without enumerating.
void check_run_count(const Experiment& experiment,
                     const std::vector<std::vector<std::size_t>>& axes);

// The cartesian product of the axes `axes` (first slowest); one empty point when none.
std::vector<GridPoint> grid_points(const std::vector<GridAxis>& grid,
                                   const std::vector<std::size_t>& axes);

// The rows of a per-seed split with `train_rows` training rows (< data.rows()), stratified by
// class with shares rounded by largest remainder (ties to the lower class), drawn after a shuffle
// seeded by derive_seed(seed, "split"); both lists in increasing row order.
std::pair<std::vector<std::size_t>, std::vector<std::size_t>> split_indices(
    const Dataset& data, std::size_t train_rows, std::uint64_t seed);

// The pipeline file's text, read as read_pipeline reads it.
std::string pipeline_text(const std::filesystem::path& file);

}  // namespace radial::experiment
