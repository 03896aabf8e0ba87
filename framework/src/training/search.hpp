#pragma once
// [search] of a pipeline: k-fold cross-validation of every candidate of its grid on the raw
// training rows, (candidate, fold) fits spread over the thread budget (internal to the trainer).

#include <cstdint>
#include <functional>
#include <string>

#include "radial/training/trainer.hpp"

namespace radial::training {

struct UserFolds;

// Fits `candidate` on the raw rows `train` (standardised inside when the pipeline asks) with
// `seed` on `threads` threads and returns its metrics on the raw rows `test`.
using FitAndTest = std::function<Metrics(const Pipeline& candidate, Dataset train,
                                         const Dataset& test, std::uint64_t seed, int threads)>;

// Cross-validates every candidate of p.search on `raw`: the same folds and per-fold seeds (from
// `seed`) for all candidates, so the comparison is paired; results do not depend on `threads`.
// report.best indexes p.search->candidates. InputError when the metric does not fit the data or
// the outputs, or when every candidate failed. `user`: folds the user gave ([evaluate]
// fold_column or fold_file, user_folds.hpp), used instead of drawing them; null otherwise.
SearchReport run_search(const Pipeline& p, const Dataset& raw, std::uint64_t seed, int threads,
                        const FitAndTest& fit, const std::function<void(const std::string&)>& log,
                        const UserFolds* user = nullptr);

// The values of candidate `index` (the first axis varies slowest), in the order of the axes.
SearchValues candidate_values(const SearchSpec& spec, std::size_t index);

// "# [search] chose centres.count = 2, ...\n": the note the refitted model's pipeline text ends with.
std::string chosen_note(const SearchValues& values);

}  // namespace radial::training
