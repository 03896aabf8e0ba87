#pragma once
// JSON read back from files and databases (reports, stored runs, overrides) is checked for its
// nesting depth before it is parsed: a crafted value nested tens of thousands of levels deep
// would otherwise exhaust memory and the stack of the recursive readers and writers.

#include <cstddef>
#include <string_view>

namespace radial {

// Deeper than any report Radial writes (about 6 levels), shallow enough for every reader.
constexpr std::size_t max_json_depth = 256;

// The deepest nesting of arrays and objects in `text`, counted outside strings, or
// `stop_at` + 1 as soon as it passes `stop_at` (the rest is not scanned).
std::size_t json_depth(std::string_view text, std::size_t stop_at = max_json_depth);

// True when `text` nests no deeper than max_json_depth.
inline bool json_depth_ok(std::string_view text) {
  return json_depth(text) <= max_json_depth;
}

}  // namespace radial
