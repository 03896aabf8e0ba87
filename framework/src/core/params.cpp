// Parameter declarations, checks and validated parameter sets (radial/core/params.hpp).
#include "radial/core/params.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "radial/core/errors.hpp"
#include "radial/core/text.hpp"

namespace radial {

const char* to_string(ParamType type) {
  switch (type) {
    case ParamType::Integer: return "integer";
    case ParamType::Real: return "real";
    case ParamType::Boolean: return "boolean";
    case ParamType::String: return "string";
    case ParamType::Choice: return "choice";
    case ParamType::Path: return "path";
  }
  return "unknown";
}

namespace {

// The shortest decimal that reads back as the same double, so messages show 0.1, not
// 0.10000000000000001.
std::string format_real(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
  std::string text(buffer, result.ptr);
  // Keep reals recognisable as reals (TOML reads "1" as an integer).
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

std::string format_bound(double x) {
  // Bounds are usually whole numbers declared for integers and reals alike: print 1, not 1.0.
  if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 1e15) {
    return std::to_string(static_cast<long long>(x));
  }
  return format_real(x);
}

// What kind of value was given, for type mismatch messages.
const char* kind_of(const ParamValue& value) {
  switch (value.index()) {
    case 0: return "an integer";
    case 1: return "a real";
    case 2: return "a boolean";
    default: return "a string";
  }
}

using text::join;

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// Optimal string alignment distance: Levenshtein plus transposition of adjacent characters
// (the commonest typo, "cuont" for "count").
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

}  // namespace

std::string to_string(const ParamValue& value) {
  switch (value.index()) {
    case 0: return std::to_string(std::get<std::int64_t>(value));
    case 1: return format_real(std::get<double>(value));
    case 2: return std::get<bool>(value) ? "true" : "false";
    default: return "\"" + std::get<std::string>(value) + "\"";
  }
}

// ---- builders ---------------------------------------------------------------------------------

namespace {

ParamSpec spec_of(std::string name, ParamType type, ParamValue def, std::string doc) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.type = type;
  spec.default_value = std::move(def);
  spec.doc = std::move(doc);
  return spec;
}

}  // namespace

ParamSpec ParamSpec::integer(std::string name, std::int64_t def, std::string doc) {
  return spec_of(std::move(name), ParamType::Integer, def, std::move(doc));
}

ParamSpec ParamSpec::real(std::string name, double def, std::string doc) {
  return spec_of(std::move(name), ParamType::Real, def, std::move(doc));
}

ParamSpec ParamSpec::boolean(std::string name, bool def, std::string doc) {
  return spec_of(std::move(name), ParamType::Boolean, def, std::move(doc));
}

ParamSpec ParamSpec::string(std::string name, std::string def, std::string doc) {
  return spec_of(std::move(name), ParamType::String, std::move(def), std::move(doc));
}

ParamSpec ParamSpec::path(std::string name, std::string def, std::string doc) {
  ParamSpec spec = string(std::move(name), std::move(def), std::move(doc));
  spec.type = ParamType::Path;
  return spec;
}

ParamSpec ParamSpec::choice(std::string name, std::string def, std::vector<std::string> choices,
                            std::string doc) {
  ParamSpec spec = string(std::move(name), std::move(def), std::move(doc));
  spec.type = ParamType::Choice;
  spec.choices = std::move(choices);
  return spec;
}

namespace {

// One end of the range: `end` = bound, `end_exclusive` whether the bound itself is out of it.
ParamSpec& set_end(ParamSpec& spec, std::optional<double>& end, bool& end_exclusive, double bound,
                   bool exclusive) {
  end = bound;
  end_exclusive = exclusive;
  return spec;
}

}  // namespace

ParamSpec& ParamSpec::at_least(double b) { return set_end(*this, min, min_exclusive, b, false); }
ParamSpec& ParamSpec::above(double b) { return set_end(*this, min, min_exclusive, b, true); }
ParamSpec& ParamSpec::at_most(double b) { return set_end(*this, max, max_exclusive, b, false); }
ParamSpec& ParamSpec::below(double b) { return set_end(*this, max, max_exclusive, b, true); }

ParamSpec& ParamSpec::make_required() {
  required = true;
  return *this;
}

ParamSpec& ParamSpec::or_words(std::vector<std::string> allowed) {
  words = std::move(allowed);
  return *this;
}

ParamSpec& ParamSpec::plays(ParamRole r) {
  role = r;
  return *this;
}

// ---- checks -----------------------------------------------------------------------------------

std::string ParamSpec::check(const ParamValue& value) const {
  const std::string given = name + " = " + to_string(value) + ". Violated constraint: ";
  const auto type_error = [&](const std::string& wanted) {
    return name + " = " + to_string(value) + " (" + kind_of(value) +
           "). Violated constraint: " + name + " is " + wanted;
  };

  const bool numeric = type == ParamType::Integer || type == ParamType::Real;
  if (numeric && !words.empty() && value.index() == 3) {
    const auto& text = std::get<std::string>(value);
    if (std::find(words.begin(), words.end(), text) != words.end()) return {};
    std::string message = given + name + " is " +
                          (type == ParamType::Integer ? "an integer" : "a real number") +
                          " or one of " + join(words, ", ");
    const std::string guess = did_you_mean(text, words);
    if (!guess.empty()) message += " (did you mean \"" + guess + "\"?)";
    return message;
  }
  const std::string or_word = words.empty() ? "" : " or one of \"" + join(words, "\", \"") + "\"";
  switch (type) {
    case ParamType::Integer:
      if (value.index() != 0) return type_error("an integer" + or_word);
      break;
    case ParamType::Real:
      if (value.index() != 0 && value.index() != 1) return type_error("a real number" + or_word);
      if (value.index() == 1 && !std::isfinite(std::get<double>(value))) {
        return given + name + " is finite";
      }
      break;
    case ParamType::Boolean:
      if (value.index() != 2) return type_error("a boolean (true or false)");
      return {};
    case ParamType::String:
      if (value.index() != 3) return type_error("a string");
      return {};
    case ParamType::Path:
      if (value.index() != 3) return type_error("a path (a string)");
      if (std::get<std::string>(value).empty() && required) return given + name + " is not empty";
      return {};
    case ParamType::Choice: {
      if (value.index() != 3) return type_error("one of " + join(choices, ", "));
      const auto& text = std::get<std::string>(value);
      if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
        std::string message = given + name + " is one of " + join(choices, ", ");
        const std::string guess = did_you_mean(text, choices);
        if (!guess.empty()) message += " (did you mean \"" + guess + "\"?)";
        return message;
      }
      return {};
    }
  }

  // Integer or Real: the range.
  const double x = value.index() == 0 ? static_cast<double>(std::get<std::int64_t>(value))
                                      : std::get<double>(value);
  if (min) {
    const bool ok = min_exclusive ? x > *min : x >= *min;
    if (!ok) return given + name + (min_exclusive ? " > " : " >= ") + format_bound(*min);
  }
  if (max) {
    const bool ok = max_exclusive ? x < *max : x <= *max;
    if (!ok) return given + name + (max_exclusive ? " < " : " <= ") + format_bound(*max);
  }
  return {};
}

ParamValue ParamSpec::coerce(const ParamValue& value) const {
  if (type == ParamType::Real && value.index() == 0) {
    return static_cast<double>(std::get<std::int64_t>(value));
  }
  return value;
}

std::string ParamSpec::describe_constraint() const {
  switch (type) {
    case ParamType::Boolean: return "boolean";
    case ParamType::String: return "string";
    case ParamType::Path: return "path";
    case ParamType::Choice: return "one of " + join(choices, ", ");
    case ParamType::Integer:
    case ParamType::Real: break;
  }
  std::string text = to_string(type);
  std::vector<std::string> bounds;
  if (min) bounds.push_back((min_exclusive ? "> " : ">= ") + format_bound(*min));
  if (max) bounds.push_back((max_exclusive ? "< " : "<= ") + format_bound(*max));
  if (!bounds.empty()) text += " " + join(bounds, " and ");
  if (!words.empty()) text += ", or one of " + join(words, ", ");
  return text;
}

const ParamSpec* find_param(const ParamTable& table, const std::string& name) {
  for (const auto& spec : table) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

const ParamSpec* find_role(const ParamTable& table, ParamRole role) {
  for (const auto& spec : table) {
    if (spec.role == role) return &spec;
  }
  return nullptr;
}

// ---- Params -----------------------------------------------------------------------------------

const ParamValue& Params::at(const std::string& name) const {
  const auto found = values_.find(name);
  if (found == values_.end()) {
    std::vector<std::string> names;
    for (const auto& entry : values_) names.push_back(entry.first);
    std::string message = "parameter '" + name + "' is not set";
    const std::string guess = did_you_mean(name, names);
    if (!guess.empty()) message += " (did you mean '" + guess + "'?)";
    message += names.empty() ? "; no parameters are set (were the parameters validated?)"
                             : "; set parameters: " + join(names, ", ");
    throw ParameterError(message);
  }
  return found->second;
}

namespace {

[[noreturn]] void wrong_type(const std::string& name, const ParamValue& value, const char* wanted) {
  throw ParameterError("parameter '" + name + "' = " + to_string(value) + " is " +
                       kind_of(value) + ", not " + wanted +
                       " (the component reads it with the wrong getter or its table declares "
                       "another type)");
}

}  // namespace

std::int64_t Params::integer(const std::string& name) const {
  const ParamValue& value = at(name);
  if (value.index() != 0) wrong_type(name, value, "an integer");
  return std::get<std::int64_t>(value);
}

double Params::real(const std::string& name) const {
  const ParamValue& value = at(name);
  // An integer widens exactly enough: the same rule check() applies to Real parameters.
  if (value.index() == 0) return static_cast<double>(std::get<std::int64_t>(value));
  if (value.index() != 1) wrong_type(name, value, "a real");
  return std::get<double>(value);
}

bool Params::boolean(const std::string& name) const {
  const ParamValue& value = at(name);
  if (value.index() != 2) wrong_type(name, value, "a boolean");
  return std::get<bool>(value);
}

bool Params::is_word(const std::string& name, const std::string& word) const {
  const ParamValue& value = at(name);
  return value.index() == 3 && std::get<std::string>(value) == word;
}

const std::string& Params::string(const std::string& name) const {
  const ParamValue& value = at(name);
  if (value.index() != 3) wrong_type(name, value, "a string");
  return std::get<std::string>(value);
}

// ---- validation -------------------------------------------------------------------------------

std::vector<ParamProblem> check_params(const ParamTable& table,
                                       const std::map<std::string, ParamValue>& given) {
  std::vector<ParamProblem> problems;
  std::vector<std::string> declared;
  for (const auto& spec : table) declared.push_back(spec.name);

  for (const auto& entry : given) {
    if (find_param(table, entry.first)) continue;
    ParamProblem problem;
    problem.kind = ParamProblem::Kind::Unknown;
    problem.name = entry.first;
    problem.guess = did_you_mean(entry.first, declared);
    problem.message = "unknown parameter '" + entry.first + "'";
    if (!problem.guess.empty()) {
      problem.message += " (did you mean '" + problem.guess + "'?)";
    } else if (declared.empty()) {
      problem.message += "; this component takes no parameters";
    } else {
      problem.message += "; its parameters are " + join(declared, ", ");
    }
    problems.push_back(std::move(problem));
  }

  for (const auto& spec : table) {
    const auto found = given.find(spec.name);
    if (found == given.end()) {
      if (spec.required) {
        problems.push_back({ParamProblem::Kind::Missing, spec.name,
                            "missing required parameter '" + spec.name + "' (" +
                                spec.describe_constraint() + ": " + spec.doc + ")",
                            {}});
      }
      continue;
    }
    std::string message = spec.check(found->second);
    if (!message.empty()) {
      problems.push_back({ParamProblem::Kind::Invalid, spec.name, std::move(message), {}});
    }
  }
  return problems;
}

std::vector<std::string> check_param_table(const ParamTable& table) {
  std::vector<std::string> problems;
  std::vector<std::string> names;
  for (const auto& spec : table) {
    const std::string label = "parameter '" + spec.name + "'";
    if (spec.name.empty()) problems.push_back("a parameter has an empty name");
    if (std::find(names.begin(), names.end(), spec.name) != names.end()) {
      problems.push_back(label + " is declared twice");
    }
    names.push_back(spec.name);
    if (spec.doc.empty()) problems.push_back(label + " has an empty doc");
    if (spec.min && spec.max && *spec.min > *spec.max) {
      problems.push_back(label + " has min > max");
    }
    if (spec.type == ParamType::Choice && spec.choices.empty()) {
      problems.push_back(label + " is a choice with no choices");
    }
    if (!spec.required) {
      const std::string problem = spec.check(spec.default_value);
      if (!problem.empty()) {
        problems.push_back(label + ": its default fails its own check: " + problem);
      }
    }
  }
  return problems;
}

Params validate_params(const ParamTable& table, const std::map<std::string, ParamValue>& given,
                       const std::string& where) {
  const std::vector<ParamProblem> problems = check_params(table, given);
  if (!problems.empty()) {
    std::string message = where + ": ";
    if (problems.size() == 1) {
      message += problems.front().message;
    } else {
      message += std::to_string(problems.size()) + " parameter problems:";
      for (const auto& problem : problems) message += "\n  " + problem.message;
    }
    throw ParameterError(message);
  }

  std::map<std::string, ParamValue> values;
  for (const auto& spec : table) {
    const auto found = given.find(spec.name);
    values[spec.name] = spec.coerce(found != given.end() ? found->second : spec.default_value);
  }
  return Params(std::move(values));
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string key = lower(word);
  if (key.empty()) return {};
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(key, lower(candidate));
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  // About one edit in three characters is a typo; more is another word ("cuont" -> "count",
  // but not "x" -> "seed"). A candidate the word abbreviates ("gauss") is also a typo.
  const std::size_t threshold = std::max<std::size_t>(1, (key.size() + 2) / 3);
  if (!best.empty() && best_distance <= threshold && best_distance < key.size()) return best;
  if (key.size() >= 3) {
    for (const auto& candidate : candidates) {
      if (lower(candidate).compare(0, key.size(), key) == 0) return candidate;
    }
  }
  return {};
}

}  // namespace radial
