// Fuzz target: JSON read back from a results database or a report file. The bytes are a run's
// stored report and (split at the first NUL) its overrides, read as `radial results` and
// `radial plot results` read them: the value paths of a table (with the CV fallback and the
// per-fold values), the JSON of every run, a table over the run and a good one, and the depth
// check that guards all of them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "radial/core/errors.hpp"
#include "radial/io/json_depth.hpp"
#include "radial/experiment/results_table.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  radial::RunRecord run;
  run.key = "fuzz";
  run.experiment = "fuzz";
  run.dataset = "d";
  run.pipeline = "p";
  run.seed = 1;
  run.status = "ok";
  run.seconds = 1;
  run.report = input.substr(0, nul);
  run.overrides = nul == std::string::npos ? "{}" : input.substr(nul + 1);
  (void)radial::json_depth(run.report);
  for (const char* path : {"test.error_rate", "train.mse", "cv.error_rate", "output.flops",
                           "search.best.centres.count", "seconds"}) {
    RADIAL_FUZZ_ACCEPT_ERRORS((void)radial::run_value(run, path));
    RADIAL_FUZZ_ACCEPT_ERRORS((void)radial::run_fold_values(run, path));
  }
  radial::RunRecord good = run;
  good.key = "good";
  good.seed = 2;
  good.report = R"({"test": {"error_rate": 0.25}, "cv": {"error_rate": 0.5, "per_fold": []}})";
  good.overrides = "{}";
  RADIAL_FUZZ_ACCEPT_ERRORS((void)radial::runs_json({run, good}));
  for (const char* value : {"test.error_rate", "cv.error_rate"}) {
    radial::TableSpec spec;
    spec.value = value;
    RADIAL_FUZZ_ACCEPT_ERRORS(
        (void)radial::format_table(radial::make_table({run, good}, spec, "fuzz"),
                                   radial::TableFormat::Text));
    spec.rows = {"seed"};
    spec.columns = {"pipeline"};
    RADIAL_FUZZ_ACCEPT_ERRORS(
        (void)radial::format_table(radial::make_table({run, good}, spec, "fuzz"),
                                   radial::TableFormat::Json));
  }
  return 0;
}
