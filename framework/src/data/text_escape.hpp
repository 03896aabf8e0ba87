#pragma once
// Text from a data file quoted in a message: control bytes, DEL and bytes that are not UTF-8
// are written as \xHH, so that a NUL does not cut the message and binary bytes do not reach the
// terminal.

#include <string>
#include <string_view>

namespace radial::data {

// `text` escaped, cut to about 40 characters ("..." marks the cut).
std::string escaped(std::string_view text);

}  // namespace radial::data
