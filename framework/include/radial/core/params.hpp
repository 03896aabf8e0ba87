#pragma once
// Parameters are declared once per component, as a ParamTable (name, type, default, range or
// choices, doc). That single table drives pipeline validation, `radial plugins show ID` and the
// generated docs (GStreamer's property habit). Components receive validated Params and never
// parse strings themselves.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace radial {

// Path is a String that names a file; the pipeline reader resolves it relative to the
// pipeline file, so components always receive an absolute path.
enum class ParamType { Integer, Real, Boolean, String, Choice, Path };

const char* to_string(ParamType type);

// What a parameter is to the trainer's selection of "choose" values (framework/src/training/
// selection.hpp), declared by the component that owns it, so that the selection finds the
// parameter by its role and never by its name:
//   WidthScale     a basis's factor on its widths (the framework's width_table declares it)
//   CentreCount    a centre learner's number of centres (centre_count_param declares it)
//   RidgeStrength  a weight penalty's alpha when the penalty is the ridge alpha/2 ||w||^2 of
//                  weight decay, whose alpha is the lambda of the closed-form leave-one-out
//                  (radial/network/ridge_loo.hpp), so that the selection may sweep it: a
//                  penalty without this role is never swept (its "choose" is refused)
//   PenaltyStrength  the strength of a penalty that is not a ridge: a width the selection
//                  chooses beside it is chosen under weight decay of this alpha (without one,
//                  under no penalty); never swept
enum class ParamRole { None, WidthScale, CentreCount, RidgeStrength, PenaltyStrength };

// A parameter value as written in a pipeline file or on the command line.
using ParamValue = std::variant<std::int64_t, double, bool, std::string>;

std::string to_string(const ParamValue& value);

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Real;
  ParamValue default_value;              // ignored when required
  bool required = false;                 // no default: the pipeline must give it
  std::optional<double> min, max;        // inclusive bounds (Integer, Real)
  bool min_exclusive = false;            // (min, ...) instead of [min, ...)
  bool max_exclusive = false;            // (..., max) instead of (..., max]
  std::vector<std::string> choices;      // Choice only
  // Integer or Real: words the value may be instead of a number, e.g. "auto" (the component
  // derives it from the data) or "choose" (the trainer selects it:
  // framework/src/training/selection.hpp).
  std::vector<std::string> words;
  std::string doc;
  ParamRole role = ParamRole::None;      // what it is to the trainer's selection

  // Builders, so a table reads like documentation:
  //   ParamSpec::integer("count", 8, "number of centres M").at_least(1)
  static ParamSpec integer(std::string name, std::int64_t def, std::string doc);
  static ParamSpec real(std::string name, double def, std::string doc);
  static ParamSpec boolean(std::string name, bool def, std::string doc);
  static ParamSpec string(std::string name, std::string def, std::string doc);
  static ParamSpec path(std::string name, std::string def, std::string doc);
  static ParamSpec choice(std::string name, std::string def, std::vector<std::string> choices,
                          std::string doc);
  ParamSpec& at_least(double bound);
  ParamSpec& above(double bound);  // exclusive lower bound
  ParamSpec& at_most(double bound);
  ParamSpec& below(double bound);  // exclusive upper bound
  ParamSpec& make_required();
  ParamSpec& or_words(std::vector<std::string> allowed);  // Integer or Real only
  ParamSpec& plays(ParamRole r);                          // see ParamRole

  // Empty when `value` is acceptable; otherwise a sentence naming the violated constraint, in
  // the form "count = 0. Violated constraint: count >= 1". Integers are accepted for Real.
  std::string check(const ParamValue& value) const;
  // `value` converted to this parameter's type (Integer -> Real); call after check().
  ParamValue coerce(const ParamValue& value) const;
  // "integer >= 1", "one of kmeans++, random", ...: the constraint in words, for help text.
  std::string describe_constraint() const;
};

using ParamTable = std::vector<ParamSpec>;

const ParamSpec* find_param(const ParamTable& table, const std::string& name);
// The parameter of `table` that plays `role`, or null (the first, when several claim it).
const ParamSpec* find_role(const ParamTable& table, ParamRole role);

// Validated parameters: every declared name is present with a value of its declared type.
class Params {
 public:
  Params() = default;
  explicit Params(std::map<std::string, ParamValue> values) : values_(std::move(values)) {}

  std::int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;
  bool boolean(const std::string& name) const;
  const std::string& string(const std::string& name) const;  // String, Choice and Path
  // True when a numeric parameter holds the word `word` ("auto", "choose") instead of a number.
  bool is_word(const std::string& name, const std::string& word) const;
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const std::map<std::string, ParamValue>& values() const { return values_; }
  void set(const std::string& name, ParamValue value) { values_[name] = std::move(value); }

 private:
  const ParamValue& at(const std::string& name) const;
  std::map<std::string, ParamValue> values_;
};

// One thing wrong with a set of given parameters.
struct ParamProblem {
  enum class Kind { Unknown, Missing, Invalid };
  Kind kind = Kind::Invalid;
  std::string name;
  // The sentence validate_params reports (after its `where: `), e.g. "unknown parameter 'cuont'
  // (did you mean 'count'?)" or "count = 0. Violated constraint: count >= 1".
  std::string message;
  std::string guess;  // Unknown: the declared name it is probably a typo of, or empty
};

// The parameter check, made here only: every unknown name (in name order, with its guess),
// then in table order every missing required parameter and every value outside its type, range
// or choices. Empty when `given` is acceptable. validate_params, the pipeline reader and the
// conformance kit all call it.
std::vector<ParamProblem> check_params(const ParamTable& table,
                                       const std::map<std::string, ParamValue>& given);

// What is wrong with a table itself: an empty or repeated name, an empty doc, min > max, a
// choice without choices, a default that fails its own check. Empty for a sound table.
std::vector<std::string> check_param_table(const ParamTable& table);

// Checks `given` against `table` (check_params), fills defaults, and throws ParameterError
// naming `where` (e.g. "plugin kmeans") with every problem found.
Params validate_params(const ParamTable& table, const std::map<std::string, ParamValue>& given,
                       const std::string& where);

// The closest candidate to `word` by edit distance, or empty when nothing is close enough to
// be a plausible typo. Used for every "did you mean" in Radial.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace radial
