#include "radial/core/input_coding.hpp"

#include <algorithm>
#include <cmath>

namespace radial {

const char* to_string(NominalScale scale) {
  return scale == NominalScale::Input ? "input" : "category";
}

const NominalInput* InputCoding::find(std::size_t column) const {
  const auto it =
      std::lower_bound(nominal.begin(), nominal.end(), column,
                       [](const NominalInput& n, std::size_t c) { return n.column < c; });
  return it != nominal.end() && it->column == column ? &*it : nullptr;
}

std::vector<std::string> InputCoding::coded_names() const {
  std::vector<std::string> names;
  for (std::size_t c = 0; c < raw_names.size(); ++c) {
    const NominalInput* n = find(c);
    if (n == nullptr) {
      names.push_back(raw_names[c]);
      continue;
    }
    for (const std::string& category : n->categories)
      names.push_back(raw_names[c] + "=" + category);
  }
  return names;
}

std::string InputCoding::problem() const {
  for (std::size_t k = 0; k < nominal.size(); ++k) {
    const NominalInput& n = nominal[k];
    if (n.column >= raw_names.size())
      return "nominal input " + std::to_string(k) + " names raw column " +
             std::to_string(n.column) + " of " + std::to_string(raw_names.size());
    if (k > 0 && !(nominal[k - 1].column < n.column))
      return "nominal inputs are not in increasing column order";
    if (n.categories.empty())
      return "nominal input '" + raw_names[n.column] + "' has no categories";
    for (std::size_t c = 1; c < n.categories.size(); ++c)
      if (!(n.categories[c - 1] < n.categories[c]))
        return "the categories of nominal input '" + raw_names[n.column] +
               "' are not distinct and in increasing order";
  }
  return {};
}

Matrix encode_inputs(const Matrix& raw, const InputCoding& coding) {
  if (coding.empty()) return raw;
  const std::size_t n = raw.shape(0), d = raw.shape(1);
  std::size_t width = 0;
  for (std::size_t c = 0; c < d; ++c) {
    const NominalInput* nominal = coding.find(c);
    width += nominal != nullptr ? nominal->categories.size() : 1;
  }
  Matrix coded = Matrix::from_shape({n, width});
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t out = 0;
    for (std::size_t c = 0; c < d; ++c) {
      const NominalInput* nominal = coding.find(c);
      if (nominal == nullptr) {
        coded(i, out++) = raw(i, c);
        continue;
      }
      // A missing category (NaN) leaves every indicator missing.
      const double k = raw(i, c);
      for (std::size_t j = 0; j < nominal->categories.size(); ++j)
        coded(i, out + j) = std::isnan(k) ? k : double(j) == k ? 1.0 : 0.0;
      out += nominal->categories.size();
    }
  }
  return coded;
}

}  // namespace radial
