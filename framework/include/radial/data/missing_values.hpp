#pragma once
// Missing input values (issue 28): `?`, an empty cell, `NA` or `NaN` (any case) in a CSV or ARFF
// input. [data] missing says what they mean: "error" (the default: a DataError at the cell),
// "drop-rows" (the training and test rows holding one are left out), "mean" or "median" (each
// input column's missing cells take the mean or median of its observed training values; the
// values are kept in the model, and prediction fills a missing cell with them). With a policy
// other than "error" the readers give a missing cell as NaN (in a nominal column: NaN in each of
// its indicators); these functions do the rest. A missing target is always an error.
// "em" keeps the NaN cells: the mixture EM works over each row's observed coordinates
// (Ghahramani & Jordan 1994; radial/numerics/mixture/mixture_em.hpp) and the design matrix integrates
// the missing inputs out (radial/network/design_matrix.hpp); centre learners that cannot use a row with
// a missing cell refuse it (refuse_missing).
//
// Under mpirun (a ShardedScope of P > 1 ranks, radial/distributed/collectives.hpp) `inputs` are
// this rank's rows, and has_missing, mean_imputed (radial/numerics/missing_cells.hpp) and
// fit_imputation are collective: every rank calls them, in the same order, and gets the answer
// for the rows of all ranks, equal to the bit to what one process computes on all rows. count_missing and drop_missing_rows stay local.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "radial/core/centres.hpp"
#include "radial/core/dataset.hpp"
#include "radial/numerics/missing_cells.hpp"
#include "radial/core/types.hpp"

namespace radial {

enum class MissingPolicy { Error, DropRows, Mean, Median, Em };

// "error", "drop-rows", "mean", "median", "em".
const char* to_string(MissingPolicy policy);

// Whether an unquoted cell's text marks a missing value: empty, ?, NA, NaN (any case).
bool is_missing_marker(std::string_view text);

// The missing (NaN) cells of each column of `inputs` (this rank's rows: sum them over ranks).
std::vector<std::size_t> count_missing(const Matrix& inputs);

// has_missing, mean_imputed and impute: radial/numerics/missing_cells.hpp (included here).

// The observed (not missing) cells of each column over every rank's rows (collective).
std::vector<std::uint64_t> observed_counts(const Matrix& inputs);

// Throws InputError when `inputs` has a missing cell: `who` (e.g. "centres subset") cannot use
// such rows under [data] missing = "em"; the message suggests missing = "mean".
void refuse_missing(const Matrix& inputs, const std::string& who);

// Leaves out the rows of `data` with a missing input (its classes or values with them); returns
// how many.
std::size_t drop_missing_rows(Dataset& data);

// The mean or median of each column's observed values (0 for a column with none observed).
// Sharded (collective), the values one process fits on the rows of all ranks, to the bit: the
// mean's sums run over the rows in order and continue from the previous rank's
// (chain_over_ranks), its counts are summed; the median gathers the column's observed values
// to every rank (one column at a time: 8 bytes per observed value of the column on each rank,
// twice while gathering) and selects the middle ones exactly as one process does.
Vector fit_imputation(const Matrix& inputs, MissingPolicy policy);

// The input model of [data] missing = "em" (Model::input_model): the distribution of the inputs
// under which an activation network takes the expected activation over a row's missing inputs
// given its observed ones (radial/network/design_matrix.hpp). One Gaussian (Centres of count 1):
//   Shape::Diagonal  independent columns, each with the mean and the maximum-likelihood variance
//                    (divided by the count) of its observed training values (0 and 0 for a
//                    column with none); with the standardiser these are 0 and 1
//   Shape::Full      one full-covariance Gaussian fitted by the missing-data EM over each row's
//                    observed coordinates (Ghahramani & Jordan 1994; em_mixture with one
//                    component, started from the Diagonal model), covariance floor 1e-3 times
//                    the mean column variance: the missing inputs are then predicted from the
//                    observed ones
// Sharded: collective, the Diagonal model's sums continued rank after rank (one process's to the
// bit), the Full model's as em_mixture's.
Centres fit_input_model(const Matrix& inputs, Shape shape);

}  // namespace radial
