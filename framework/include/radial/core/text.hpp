#pragma once
// The small pieces of message text every error and report builds: a list, a quoted name, a
// number, a "did you mean" hint. One spelling of each, so messages read the same everywhere.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace radial::text {

// items joined by `separator`: join({"a", "b"}) == "a, b".
std::string join(const std::vector<std::string>& items, const std::string& separator = ", ");

// 'text', the way messages quote a name the user wrote.
std::string in_quotes(const std::string& text);

// v with `digits` significant digits (printf "%.<digits>g"): short enough for a message, and
// the same text on every platform.
std::string number(double v, int digits = 6);

// The length of the UTF-8 sequence that starts at text[i] (1 for ASCII), or 0 when it is not
// valid UTF-8: overlong forms, surrogates and code points above U+10FFFF included.
std::size_t utf8_length(std::string_view text, std::size_t i);

// " (did you mean 'close'?)" for the candidate closest to `word`, or "" when none is close.
std::string guess(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace radial::text
