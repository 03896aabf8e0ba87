#pragma once
// Reads the numeric CSV files written by tests/reference/kmeans_reference.py and
// least_squares_reference.py into tests/reference/learning-numerics/ (no header).

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <radial/testing/paths.hpp>
#include <radial/core/types.hpp>

namespace radial::testing {

inline std::filesystem::path learning_reference(const std::string& name) {
  return source_dir() / "tests" / "reference" / "learning-numerics" / name;
}

inline Matrix read_reference_matrix(const std::filesystem::path& file, bool header = false) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot open " + file.string());
  std::vector<std::vector<double>> rows;
  std::string line;
  if (header) std::getline(in, line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<double> row;
    std::stringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) row.push_back(std::stod(cell));
    if (!rows.empty() && row.size() != rows.front().size())
      throw std::runtime_error("ragged row in " + file.string());
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw std::runtime_error("no rows in " + file.string());
  Matrix out = xt::empty<double>({rows.size(), rows.front().size()});
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j) out(i, j) = rows[i][j];
  return out;
}

inline double max_abs_difference(const Matrix& a, const Matrix& b) {
  if (a.shape(0) != b.shape(0) || a.shape(1) != b.shape(1))
    throw std::runtime_error("shape mismatch in max_abs_difference");
  double m = 0;
  for (std::size_t i = 0; i < a.shape(0); ++i)
    for (std::size_t j = 0; j < a.shape(1); ++j) m = std::max(m, std::abs(a(i, j) - b(i, j)));
  return m;
}

}  // namespace radial::testing
