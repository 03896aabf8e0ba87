#pragma once
// "a table", "an integer", ...: what a TOML value is, for "found ..." in the messages of the
// pipeline and experiment readers.

#include <string>

#include <toml++/toml.h>

namespace radial::pipeline {

inline std::string kind(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a real number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

}  // namespace radial::pipeline
