#pragma once
// What radial-bench starts its child processes with (posix_spawn): the environment with some
// variables set, and argument lists as C strings.

#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

extern char** environ;

namespace radial::bench {

// This process's environment with each "NAME=value" of `set` in place of NAME's own value.
inline std::vector<std::string> environment_with(const std::vector<std::string>& set) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string s(*e);
    const bool replaced = std::any_of(set.begin(), set.end(), [&](const std::string& x) {
      return s.compare(0, x.find('=') + 1, x, 0, x.find('=') + 1) == 0;
    });
    if (!replaced) env.push_back(s);
  }
  env.insert(env.end(), set.begin(), set.end());
  return env;
}

// Pointers to the strings' characters and a final nullptr, as posix_spawn takes argv and envp;
// the strings must outlive them.
inline std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace radial::bench
