#pragma once
// The mean and sample standard deviation of a few figures (per-fold metrics, an experiment's
// runs): one spelling, so a figure reads the same in every report.

#include <vector>

namespace radial {

// The arithmetic mean, summed left to right; 0 for no values.
double mean(const std::vector<double>& v);

// The sample standard deviation sqrt(sum (x - mean)^2 / (n - 1)); 0 for fewer than two values.
double sample_sd(const std::vector<double>& v);

}  // namespace radial
