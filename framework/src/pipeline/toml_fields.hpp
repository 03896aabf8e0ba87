#pragma once
// The typed fields of the pipeline and experiment readers: an integer in a range, a string, a
// boolean, and the message for a key a table does not take. Each takes `where`, the place the
// message names ("file:line:column", or an override's label), so both readers say the same.

#include <cstdint>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "toml_kind.hpp"
#include "toml_place.hpp"
#include "radial/core/text.hpp"

namespace radial::pipeline {

// An integer >= low (and <= high): seed, threads, folds, committee, train_rows.
inline std::int64_t integer_field(const toml::node& node, const std::string& where,
                                  const std::string& name, std::int64_t low,
                                  std::int64_t high = INT64_MAX) {
  const std::string bound = name + " is an integer >= " + std::to_string(low) +
                            (high != INT64_MAX ? " and <= " + std::to_string(high) : "");
  if (!node.is_integer()) {
    fail(where, name + " must be an integer, found " + kind(node) + ". Violated constraint: " +
                    bound);
  }
  const std::int64_t value = node.as_integer()->get();
  if (value < low || value > high) {
    fail(where, name + " = " + std::to_string(value) + ". Violated constraint: " + bound);
  }
  return value;
}

inline bool boolean_field(const toml::node& node, const std::string& where,
                          const std::string& name) {
  if (!node.is_boolean()) {
    fail(where, name + " must be true or false, found " + kind(node) + "; write " + name +
                    " = true");
  }
  return node.as_boolean()->get();
}

inline const std::string& string_field(const toml::node& node, const std::string& where,
                                       const std::string& name) {
  if (!node.is_string()) {
    fail(where, name + " must be a string, found " + kind(node) + "; write " + name +
                    " = \"...\"");
  }
  return node.as_string()->get();
}

// The key `word` at `where`, which the table `table` ("[data]", "[[datasets]]") does not take.
[[noreturn]] inline void unknown_key(const std::string& where, const std::string& word,
                                     const std::string& table,
                                     const std::vector<std::string>& allowed) {
  fail(where, "unknown key " + text::in_quotes(word) + " in " + table +
                  text::guess(word, allowed) + "; " + table + " takes " + text::join(allowed));
}

}  // namespace radial::pipeline
