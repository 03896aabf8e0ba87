#pragma once
// Tables of experiment results (docs/experiments.md): runs grouped into rows and columns, each
// cell the mean ± sample standard deviation of a value over the runs it holds (seeds), and for
// a pair of columns compared, paired statistics over the paired seeds and folds.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "radial/experiment/results_store.hpp"

namespace radial {

// What a table shows. rows and columns each name one or more dimensions of a run: "dataset",
// "pipeline", "seed" or a grid key ("kernel-prior.alpha"). Grid keys with several values that
// are named by neither are added to the columns, so a cell never mixes grid values.
// value is a dotted path into the run's report: "test.error_rate", "train.mse",
// "cv.error_rate", "output.flops", "output.iterations", "centres.iterations", "seconds",
// "search.best.centres.count", ... "test.X" of a run without a test set (a dataset split in
// folds) is its cross-validated "cv.X".
struct TableSpec {
  std::vector<std::string> rows{"dataset"};
  std::vector<std::string> columns{"pipeline"};
  std::string value = "test.error_rate";
  std::vector<std::string> compare;  // two column labels (pipeline names) to compare, or empty
};

// A TableSpec as JSON {"rows": [...], "columns": [...], "value": "...", "compare": [...]} and
// back (the results store keeps each experiment's). from_json: InputError for malformed text.
std::string table_spec_json(const TableSpec& spec);
TableSpec table_spec_from_json(const std::string& text);

// Paired comparison of two columns over matched (seed, fold) pairs: difference = b - a.
struct PairedComparison {
  std::size_t pairs = 0;
  double mean_difference = 0;
  std::size_t wins = 0, ties = 0, losses = 0;  // of b against a, lower being better
  std::optional<double> sign_p;                // two-sided sign test (ties dropped)
  std::optional<double> t_p;                   // two-sided paired t test (absent for < 2 pairs
                                               // or zero variance of the differences)
};
PairedComparison compare_paired(const std::vector<double>& a, const std::vector<double>& b);

struct TableCell {
  std::size_t runs = 0, failed = 0;
  std::optional<double> mean, sd;  // over the runs that have the value
};

struct Table {
  std::string title;                       // the experiment's name, or empty
  std::string value;                       // TableSpec::value
  std::vector<std::string> row_labels, column_labels;
  std::string row_header;                  // "dataset", "dataset / kernel-prior.alpha", ...
  std::vector<std::vector<TableCell>> cells;  // [row][column]
  // With TableSpec::compare: one per row.
  std::vector<std::string> compared;       // the two column labels, a then b
  std::vector<std::optional<PairedComparison>> comparisons;
};

// Empty when `path` can name a number of a training report (its first parts are report keys:
// "test.error_rate", "output.flops", "centres.figures.rank", "search.best.centres.count"),
// else what is wrong, with "did you mean". Lets an experiment reject a misspelt [table] value
// before any run; whether the runs' reports hold it is known only after them.
std::string value_path_problem(const std::string& path);

// InputError naming the unknown dimension or value (with "did you mean").
Table make_table(const std::vector<RunRecord>& runs, const TableSpec& spec,
                 const std::string& title = {});

// The runs make_table needs for `spec`, read one at a time through `for_each` (a
// ResultsStore::for_each_run): each report cut to the parts the value can come from (its first
// key, "test" and "cv"), except the first few successful runs, kept whole for "did you mean".
// Tables over 10^5 stored runs then fit in the runs' identities plus their values.
std::vector<RunRecord> runs_for_table(
    const std::function<void(const std::function<void(RunRecord&&)>&)>& for_each,
    const TableSpec& spec);

enum class TableFormat { Text, Markdown, Csv, Json };
std::string format_table(const Table& table, TableFormat format);

// `radial results --format json`: {"runs": [{"dataset", "pipeline", "seed", "overrides",
// "status", "message", "seconds", "train", "test", "cv", "search"}, ...]}.
std::string runs_json(const std::vector<RunRecord>& runs);

// The value at `path` of a run's report (see TableSpec), or nullopt when the run failed or the
// report has no such number. per_fold: for a cross-validated value, its value on each fold
// (for pairing); otherwise the single value.
std::optional<double> run_value(const RunRecord& run, const std::string& path);
std::vector<double> run_fold_values(const RunRecord& run, const std::string& path);

}  // namespace radial
