// The free number of centres: "auto" and "choose" (radial/network/centre_learner.hpp).
#include <algorithm>
#include <cmath>

#include "radial/network/centre_learner.hpp"

namespace radial {

ParamSpec centre_count_param(const std::string& doc) {
  ParamSpec count = ParamSpec::integer(
      "count", 1,
      doc +
          "; \"auto\" (the default): min(N / 2, ceil(max(8, 4 ln N - 24) sqrt N), max(10000, 40 K)) "
          "for N training rows and K classes (K = 0 for regression); for classes past 800 "
          "centres placed without the basis, 200 when 200 centres fitted on the selection's "
          "sample already have a leave-one-out error rate (plus one standard error) of at most "
          "0.005; "
          "\"choose\": the trainer selects it by leave-one-out among auto / 4, / 2, x 1, x 2, x 4");
  count.at_least(1).or_words({"auto", "choose"}).plays(ParamRole::CentreCount);
  count.default_value = std::string("auto");
  return count;
}

std::size_t centre_count(const Params& params, const std::string& name) {
  if (params.is_word(name, "auto") || params.is_word(name, "choose")) return 0;
  return static_cast<std::size_t>(params.integer(name));
}

std::size_t auto_centre_count(std::size_t rows, std::size_t classes) {
  const double n = double(rows);
  const double root =
      std::ceil(std::max(8.0, 4.0 * std::log(std::max(n, 1.0)) - 24.0) * std::sqrt(n));
  const std::size_t cap = std::max<std::size_t>(10000, 40 * classes);
  const std::size_t m = std::min<std::size_t>({rows / 2, std::size_t(root), cap});
  return std::clamp<std::size_t>(m, 1, std::max<std::size_t>(rows, 1));
}

}  // namespace radial

namespace radial {

std::size_t centre_count_classes(const Dataset& data) {
  return data.task == Task::Classification ? data.class_values.size() : 0;
}

}  // namespace radial
