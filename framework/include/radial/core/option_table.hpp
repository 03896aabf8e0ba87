#pragma once
// A component's parameters bound to the members of its options struct, so each parameter is
// written once: the struct states the default, the binding states name, doc and range, and the
// reader is the bindings applied in turn.
//
//   struct KMeansOptions { std::size_t iterations = 100; double tolerance = 1e-4; };
//   OptionTable<KMeansOptions> t;
//   t.bind("iterations", &KMeansOptions::iterations, "cap on Lloyd iterations").at_least(1);
//   t.params();        // the ParamTable, defaults read from KMeansOptions{}
//   t.read(params);    // KMeansOptions from validated Params
//
// A table built with other defaults (OptionTable<X>(x)) declares those. Parameters shared by
// several components are a table of their own, included for a member or a base class.

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "radial/core/params.hpp"

namespace radial {

template <class Options>
class OptionTable {
 public:
  // The default of a parameter, from a given options struct.
  using Getter = std::function<ParamValue(const Options&)>;
  // Stores a validated parameter in the options.
  using Setter = std::function<void(const Params&, Options&)>;

  explicit OptionTable(Options defaults = Options{}) : defaults_(std::move(defaults)) {}

  // A member stored as is: integral members are Integer, double Real, bool Boolean,
  // std::string String. The returned spec takes the range: .at_least(1).
  template <class T>
  ParamSpec& bind(std::string name, T Options::*member, std::string doc) {
    static_assert(std::is_arithmetic_v<T> || std::is_same_v<T, std::string>,
                  "bind a number, a bool or a std::string; use custom() for other members");
    ParamSpec spec = spec_for<T>(name, std::move(doc));
    return custom(
        std::move(spec), [member](const Options& o) { return to_value(o.*member); },
        [member, name](const Params& p, Options& o) { o.*member = from_params<T>(p, name); });
  }

  // A file name (resolved against the pipeline file by the reader).
  ParamSpec& path(std::string name, std::string Options::*member, std::string doc) {
    ParamSpec& spec = bind(name, member, std::move(doc));
    spec.type = ParamType::Path;
    return spec;
  }

  // A string member that holds one of `choices`.
  ParamSpec& choice(std::string name, std::string Options::*member,
                    std::vector<std::string> choices, std::string doc) {
    ParamSpec& spec = bind(name, member, std::move(doc));
    spec.type = ParamType::Choice;
    spec.choices = std::move(choices);
    return spec;
  }

  // An enum member, written in the pipeline as the names given for its values.
  template <class E>
  ParamSpec& choice(std::string name, E Options::*member,
                    std::vector<std::pair<std::string, E>> names, std::string doc) {
    std::vector<std::string> choices;
    for (const auto& n : names) choices.push_back(n.first);
    ParamSpec spec = ParamSpec::choice(name, choices.front(), choices, std::move(doc));
    return custom(
        std::move(spec),
        [member, names](const Options& o) -> ParamValue {
          for (const auto& n : names)
            if (n.second == o.*member) return n.first;
          return names.front().first;
        },
        [member, names, name](const Params& p, Options& o) {
          const std::string& given = p.string(name);
          for (const auto& n : names)
            if (n.first == given) o.*member = n.second;
        });
  }

  // A parameter that is not a member as is (words such as "auto", a derived member): `get`
  // states its default from the options, `set` stores the validated value.
  ParamSpec& custom(ParamSpec spec, Getter get, Setter set) {
    entries_.push_back({std::move(spec), std::move(get), std::move(set)});
    return entries_.back().spec;
  }

  // The parameters of a table on a member (a shared part such as the K-d tree's options).
  template <class Part>
  void include(Part Options::*member, const OptionTable<Part>& part) {
    for (const auto& e : part.entries()) {
      custom(
          e.spec, [member, get = e.get](const Options& o) { return get(o.*member); },
          [member, set = e.set](const Params& p, Options& o) { set(p, o.*member); });
    }
    for (const auto& c : part.checks())
      check([member, c](Options& o) { c(o.*member); });
  }

  // The parameters of a table on a base class of Options.
  template <class Base>
  void include(const OptionTable<Base>& base) {
    static_assert(std::is_base_of_v<Base, Options>, "include a table of a base class");
    for (const auto& e : base.entries()) {
      custom(
          e.spec, [get = e.get](const Options& o) { return get(static_cast<const Base&>(o)); },
          [set = e.set](const Params& p, Options& o) { set(p, static_cast<Base&>(o)); });
    }
    for (const auto& c : base.checks()) check([c](Options& o) { c(static_cast<Base&>(o)); });
  }

  // A check (or completion) run on the options after every parameter is read, for what a
  // range cannot state; it throws ParameterError.
  void check(std::function<void(Options&)> run) { checks_.push_back(std::move(run)); }

  // The declared parameters, each default read from the table's options.
  ParamTable params() const {
    ParamTable table;
    for (const auto& e : entries_) {
      table.push_back(e.spec);
      if (!e.spec.required) table.back().default_value = e.get(defaults_);
    }
    return table;
  }

  // The options from validated Params (every declared name present).
  Options read(const Params& params) const {
    Options options = defaults_;
    for (const auto& e : entries_) e.set(params, options);
    for (const auto& c : checks_) c(options);
    return options;
  }

  const Options& defaults() const { return defaults_; }

  struct Entry {
    ParamSpec spec;
    Getter get;
    Setter set;
  };
  const std::vector<Entry>& entries() const { return entries_; }
  const std::vector<std::function<void(Options&)>>& checks() const { return checks_; }

 private:
  template <class T>
  static ParamSpec spec_for(std::string name, std::string doc) {
    if constexpr (std::is_same_v<T, bool>) {
      return ParamSpec::boolean(std::move(name), false, std::move(doc));
    } else if constexpr (std::is_integral_v<T>) {
      return ParamSpec::integer(std::move(name), 0, std::move(doc));
    } else if constexpr (std::is_arithmetic_v<T>) {
      return ParamSpec::real(std::move(name), 0.0, std::move(doc));
    } else {
      return ParamSpec::string(std::move(name), "", std::move(doc));
    }
  }

  template <class T>
  static ParamValue to_value(const T& value) {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string>) {
      return value;
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<std::int64_t>(value);
    } else {
      return static_cast<double>(value);
    }
  }

  template <class T>
  static T from_params(const Params& p, const std::string& name) {
    if constexpr (std::is_same_v<T, bool>) {
      return p.boolean(name);
    } else if constexpr (std::is_same_v<T, std::string>) {
      return p.string(name);
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(p.integer(name));
    } else {
      return static_cast<T>(p.real(name));
    }
  }

  Options defaults_;
  std::vector<Entry> entries_;
  std::vector<std::function<void(Options&)>> checks_;
};

}  // namespace radial
