#include "text_escape.hpp"

#include <cstdio>

namespace radial::data {
namespace {

// Length of the valid UTF-8 sequence at text[i], 0 if it is not one.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const std::size_t length = lead >= 0xf0 && lead <= 0xf4 ? 4
                             : lead >= 0xe0 && lead < 0xf0 ? 3
                             : lead >= 0xc2 && lead < 0xe0 ? 2
                                                           : 0;
  if (length == 0 || i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return 0;
  }
  return length;
}

}  // namespace

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
    const std::size_t length = u >= 0x80 ? utf8_length(text, i) : 0;
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
