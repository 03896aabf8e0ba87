// Typed look-ups in a component State (radial/core/state.hpp).
#include "radial/core/state.hpp"

#include "radial/core/errors.hpp"

namespace radial {

namespace {

// Index order of StateValue.
const char* state_kind(std::size_t index) {
  switch (index) {
    case 0: return "an integer";
    case 1: return "a real";
    case 2: return "a string";
    case 3: return "a vector";
    case 4: return "a matrix";
    case 5: return "a rank-3 array";
    default: return "an unknown value";
  }
}

}  // namespace

template <class T>
const T& state_get(const State& state, const std::string& key, const std::string& where) {
  const auto found = state.find(key);
  if (found == state.end()) {
    std::string keys;
    for (const auto& entry : state) keys += (keys.empty() ? "" : ", ") + entry.first;
    throw ModelFileError(where + ": state entry '" + key + "' is missing (present: " +
                         (keys.empty() ? std::string("none") : keys) +
                         "); the model was written by another version of this component or "
                         "is damaged");
  }
  if (const T* value = std::get_if<T>(&found->second)) return *value;
  throw ModelFileError(where + ": state entry '" + key + "' is " +
                       state_kind(found->second.index()) + " where " +
                       state_kind(StateValue(T{}).index()) +
                       " was expected; the model was written by another version of this "
                       "component or is damaged");
}

template const std::int64_t& state_get<std::int64_t>(const State&, const std::string&,
                                                      const std::string&);
template const double& state_get<double>(const State&, const std::string&, const std::string&);
template const std::string& state_get<std::string>(const State&, const std::string&,
                                                   const std::string&);
template const Vector& state_get<Vector>(const State&, const std::string&, const std::string&);
template const Matrix& state_get<Matrix>(const State&, const std::string&, const std::string&);
template const Tensor3& state_get<Tensor3>(const State&, const std::string&, const std::string&);

double state_param(const State& state, const ParamSpec& spec, const std::string& where) {
  const double value = state_get<double>(state, spec.name, where);
  const std::string problem = spec.check(value);
  if (!problem.empty())
    throw ModelFileError(where + ": state entry '" + spec.name + "': " + problem +
                         " (the parameter's range; the model file is damaged)");
  return value;
}

}  // namespace radial
