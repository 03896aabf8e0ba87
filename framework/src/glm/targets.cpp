// Targets for a link (declared in radial/output_layer.hpp).
#include <string>

#include "radial/errors.hpp"
#include "radial/output_layer.hpp"

namespace radial {

Matrix targets_for(Link link, const Dataset& data) {
  const std::string where = data.source.empty() ? std::string("data") : data.source;
  const std::size_t n = data.rows();
  if (data.task == Task::Regression) {
    if (link != Link::Identity)
      throw InputError(where + ": link '" + to_string(link) +
                       "' needs class labels, but the task is regression; use link = "
                       "\"identity\" or set [data] task = \"classification\"");
    if (data.values.size() != n)
      throw ShapeError(where + ": " + std::to_string(data.values.size()) +
                       " target values for " + std::to_string(n) + " rows");
    Matrix t = xt::zeros<double>({n, std::size_t(1)});
    for (std::size_t i = 0; i < n; ++i) t(i, 0) = data.values(i);
    return t;
  }
  const std::size_t k = data.num_classes;
  switch (link) {
    case Link::Identity:
    case Link::Softmax:
      if (link == Link::Softmax && k < 2)
        throw InputError(where + ": softmax outputs need at least 2 classes, found " +
                         std::to_string(k));
      return one_of_k(data.classes, k);
    case Link::Logistic: {
      if (k != 2)
        throw InputError(where + ": the logistic link models 2 classes, found " +
                         std::to_string(k) + "; use link = \"softmax\" for " +
                         std::to_string(k) + " classes");
      Matrix t = xt::zeros<double>({n, std::size_t(1)});
      for (std::size_t i = 0; i < n; ++i) t(i, 0) = data.classes(i) == 1 ? 1.0 : 0.0;
      return t;
    }
    case Link::Bayes:
      throw InputError(where + ": the bayes link has no regression targets; it is trained by "
                       "the output plugin 'bayes'");
  }
  throw Error("targets_for: unknown link value " + std::to_string(int(link)));
}

}  // namespace radial
