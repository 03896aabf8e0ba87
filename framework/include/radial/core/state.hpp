#pragma once
// A component's parameters and learned state as a framework dictionary of scalars, strings and
// arrays. The model store alone turns a State into bytes: plugins never touch Boost.Serialization.

#include <cstdint>
#include <map>
#include <string>
#include <variant>

#include "radial/core/params.hpp"
#include "radial/core/types.hpp"

namespace radial {

using StateValue = std::variant<std::int64_t, double, std::string, Vector, Matrix, Tensor3>;
using State = std::map<std::string, StateValue>;

// Typed look-up that throws ModelFileError naming `key` and `where` when the entry is missing or
// of another type (a model file written by another version, or corrupted).
template <class T>
const T& state_get(const State& state, const std::string& key, const std::string& where);

extern template const std::int64_t& state_get<std::int64_t>(const State&, const std::string&,
                                                             const std::string&);
extern template const double& state_get<double>(const State&, const std::string&,
                                                const std::string&);
extern template const std::string& state_get<std::string>(const State&, const std::string&,
                                                          const std::string&);
extern template const Vector& state_get<Vector>(const State&, const std::string&,
                                                const std::string&);
extern template const Matrix& state_get<Matrix>(const State&, const std::string&,
                                                const std::string&);
extern template const Tensor3& state_get<Tensor3>(const State&, const std::string&,
                                                  const std::string&);

// A real parameter saved in the state, checked again against the spec that declared it, so
// that a damaged model file cannot give a component a value its parameter table refuses.
// ModelFileError naming `where`, the entry and the violated constraint otherwise.
double state_param(const State& state, const ParamSpec& spec, const std::string& where);

}  // namespace radial
