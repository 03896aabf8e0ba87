#include "radial/text.hpp"

#include <cstdio>

#include "radial/params.hpp"

namespace radial::text {

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i != 0) out += separator;
    out += items[i];
  }
  return out;
}

std::string in_quotes(const std::string& text) { return "'" + text + "'"; }

std::string number(double v, int digits) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
  return buffer;
}

std::string guess(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string close = did_you_mean(word, candidates);
  return close.empty() ? std::string() : " (did you mean " + in_quotes(close) + "?)";
}

}  // namespace radial::text
