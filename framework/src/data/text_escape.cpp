#include "text_escape.hpp"

#include <cstdio>

#include "radial/core/text.hpp"

namespace radial::data {

std::string escaped(std::string_view text) {
  constexpr std::size_t limit = 40;
  std::string out;
  std::size_t i = 0;
  for (; i < text.size() && out.size() < limit; ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u >= 0x20 && u < 0x7f) {
      out += text[i];
      continue;
    }
    const std::size_t length = u >= 0x80 ? text::utf8_length(text, i) : 0;
    if (length != 0) {
      out.append(text.substr(i, length));
      i += length - 1;
      continue;
    }
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", u);
    out += hex;
  }
  if (i < text.size()) out += "...";
  return out;
}

}  // namespace radial::data
