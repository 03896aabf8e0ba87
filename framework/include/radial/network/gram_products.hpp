#pragma once
// Phi^T Phi and Phi^T T of a design matrix in one ordered pass: what the least-squares output's
// normal equations and the closed-form selection's eigenproblem both start from.

#include <cstddef>
#include <functional>
#include <vector>

#include "radial/network/design_matrix.hpp"
#include "radial/core/types.hpp"

namespace radial {

struct GramProducts {
  Matrix gram;   // P x P, symmetric (both triangles filled)
  Matrix cross;  // P x K
};

// Phi^T Phi and Phi^T T over every rank's rows (T: this rank's rows x K). Each block's products
// are formed alone (dsyrk, dgemm) and added in block order, then summed over the ranks in one
// message, in rank order: the same bits for any thread count, and on every rank. check(first,
// block) sees each block before its products (to refuse a non-finite value, naming the row);
// what it throws reaches every rank. `extra`, when given, holds this rank's values of other
// sums, summed over the ranks in the same message.
GramProducts gram_products(const DesignMatrix& design, const Matrix& t,
                           const std::function<void(std::size_t, const Matrix&)>& check,
                           std::vector<double>* extra = nullptr);

}  // namespace radial
