#pragma once
// Nominal inputs coded 1-of-C inside the model (issue 28). A data file's input columns are "raw":
// numbers, or categories (text cells, ARFF nominal attributes, or columns named in [data]
// nominal). Each nominal column becomes C indicator columns in its place, one per category in
// increasing byte order, named "column=category"; the Dataset's inputs and the model's
// feature names are the coded columns, and the model keeps the coding so that `radial predict`
// reads raw rows. A category the coding does not list is an error, or an all-zero row of
// indicators when unseen_as_zero.

#include <cstddef>
#include <string>
#include <vector>

#include "radial/core/types.hpp"

namespace radial {

// How a nominal input's indicator columns are scaled by the standardiser ([data] nominal_scale).
//  Input (the default): the indicators of an input whose categories have frequencies p_1..p_C
//    in the training rows are centred at p_k and all divided by sqrt(1 - sum_k p_k^2), so that
//    the whole input adds 2 on average to the squared distance between two random training
//    rows, as one standardised numeric input does (E (x - x')^2 = 2 var x = 2). Unscaled 0/1
//    indicators add 2 (1 - sum_k p_k^2) on average: 0 for the same category, 2 for two others.
//  Category (models before issue 47): each indicator standardised as a numeric column, by
//    sqrt(p_k (1 - p_k)). A category of frequency p then becomes a coordinate of size about
//    1/sqrt(p) (10 at 1%), and a C-category input adds 2C on average: rare categories and
//    inputs with many categories drown the numeric inputs in every distance.
// The scales are stored in the model's standardiser, so a model predicts alike either way.
enum class NominalScale { Input, Category };
const char* to_string(NominalScale scale);  // "input", "category"

struct NominalInput {
  std::size_t column = 0;               // among the raw input columns
  std::vector<std::string> categories;  // increasing byte order, distinct
};

struct InputCoding {
  std::vector<std::string> raw_names;  // the raw input columns, in file order
  std::vector<NominalInput> nominal;   // in increasing column order; empty: no coding
  bool unseen_as_zero = false;

  bool empty() const { return nominal.empty(); }
  // The nominal entry of raw column `column`, or nullptr.
  const NominalInput* find(std::size_t column) const;
  // The coded columns' names: raw names, nominal ones as "name=category".
  std::vector<std::string> coded_names() const;
  // Empty when the coding is usable (for the model store's check); otherwise what is wrong.
  std::string problem() const;
};

// The N x d_raw raw inputs (a nominal column holding category indices, -1 for an unseen
// category, NaN for a missing one) as the N x d_coded coded inputs.
Matrix encode_inputs(const Matrix& raw, const InputCoding& coding);

}  // namespace radial
