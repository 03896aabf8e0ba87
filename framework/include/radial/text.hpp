#pragma once
// The small pieces of message text every error and report builds: a list, a quoted name, a
// number, a "did you mean" hint. One spelling of each, so messages read the same everywhere.

#include <string>
#include <vector>

namespace radial::text {

// items joined by `separator`: join({"a", "b"}) == "a, b".
std::string join(const std::vector<std::string>& items, const std::string& separator = ", ");

// 'text', the way messages quote a name the user wrote.
std::string in_quotes(const std::string& text);

// v with `digits` significant digits (printf "%.<digits>g"): short enough for a message, and
// the same text on every platform.
std::string number(double v, int digits = 6);

// " (did you mean 'close'?)" for the candidate closest to `word`, or "" when none is close.
std::string guess(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace radial::text
