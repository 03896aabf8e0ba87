#pragma once
// Overrides "slot.key=value" or "key=value" (from `radial train --set`), parsed and applied to
// the parsed pipeline table before validation, as if written in the file.

#include <map>
#include <string>
#include <vector>

#include <toml++/toml.h>

namespace radial::pipeline {

// Applies each override to `root`. Returns, for every dotted path it set or table it created
// ("centres.count", "weight-penalty"), the label "--set <text>" that messages use as position.
// A malformed override is a PipelineError starting "--set <text>: ".
std::map<std::string, std::string> apply_overrides(toml::table& root,
                                                   const std::vector<std::string>& overrides);

// The overrides as TOML comments, appended to the pipeline text so a model records exactly
// what was trained. Empty when there are none.
std::string overrides_note(const std::vector<std::string>& overrides);

}  // namespace radial::pipeline
