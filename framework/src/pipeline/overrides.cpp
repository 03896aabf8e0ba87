#include "overrides.hpp"

#include <cctype>

#include "radial/core/errors.hpp"

namespace radial::pipeline {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

// TOML bare keys: letters, digits, '_' and '-'.
bool bare_key(const std::string& part) {
  if (part.empty()) return false;
  for (unsigned char c : part) {
    if (!std::isalnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

std::vector<std::string> split_path(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

// The value as TOML ("12", "0.5", "true", "\"x\""), or the text itself as a string when it is
// not a TOML value (a bare word such as scg or kmeans++).
toml::table parse_value(const std::string& value, const std::string& label) {
  try {
    toml::table parsed = toml::parse("v = " + value, label);
    if (parsed.size() == 1 && parsed.contains("v")) return parsed;
  } catch (const toml::parse_error&) {
    // Not a TOML value: a bare word.
  }
  // Something meant as a TOML string, array or table that does not parse is a mistake, not a
  // bare word.
  if (value.front() == '"' || value.front() == '\'' || value.front() == '[' ||
      value.front() == '{') {
    throw PipelineError(label + ": '" + value +
                        "' is not a valid TOML value; close the quotes or brackets (a word "
                        "without quotes is also taken as a string)");
  }
  toml::table word;
  word.insert("v", value);
  return word;
}

}  // namespace

std::map<std::string, std::string> apply_overrides(toml::table& root,
                                                   const std::vector<std::string>& overrides) {
  std::map<std::string, std::string> labels;
  for (const std::string& text : overrides) {
    const std::string label = "--set " + text;
    const auto fail = [&](const std::string& message) {
      throw PipelineError(label + ": " + message);
    };
    if (text.find_first_of("\r\n") != std::string::npos) {
      fail("an override is a single line slot.key=value; remove the line break");
    }
    const auto equals = text.find('=');
    if (equals == std::string::npos) {
      fail("expected slot.key=value or key=value (e.g. centres.count=12 or seed=3); add '='");
    }
    const std::string key = trim(text.substr(0, equals));
    const std::string value = trim(text.substr(equals + 1));
    const std::vector<std::string> parts = split_path(key);
    bool ok = parts.size() <= 2;
    for (const auto& part : parts) ok = ok && bare_key(part);
    if (!ok) {
      fail("'" + key +
           "' is not key or slot.key (letters, digits, '_' and '-'; e.g. seed or "
           "centres.count); write slot.key=value");
    }
    if (value.empty()) {
      fail("no value after '='; write " + key + "=VALUE (e.g. centres.count=12)");
    }
    toml::table parsed = parse_value(value, label);
    toml::node& node = *parsed.get("v");

    toml::table* target = &root;
    if (parts.size() == 2) {
      toml::node* slot = root.get(parts[0]);
      if (slot == nullptr) {
        root.insert(parts[0], toml::table{});
        slot = root.get(parts[0]);
        labels.emplace(parts[0], label);  // created here: its "header" is this override
      } else if (!slot->is_table()) {
        fail("'" + parts[0] + "' is not a table in the pipeline, so it has no key '" + parts[1] +
             "'; override " + parts[0] + "=VALUE instead");
      }
      target = slot->as_table();
    }
    const std::string& leaf = parts.back();
    std::move(node).visit([&](auto&& concrete) { target->insert_or_assign(leaf, std::move(concrete)); });
    labels[key] = label;
  }
  return labels;
}

std::string overrides_note(const std::vector<std::string>& overrides) {
  if (overrides.empty()) return {};
  std::string note = "# Overrides applied after the text above (radial --set):\n";
  for (const auto& text : overrides) note += "#   " + text + "\n";
  return note;
}

}  // namespace radial::pipeline
