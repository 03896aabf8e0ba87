#pragma once
// The host's output options (--model, --report, --output) classified and checked before any
// work, so a refused output (exit 2) costs no training.

#include <filesystem>
#include <string>
#include <vector>

#include "radial/io/output_file.hpp"

namespace radial::cli {

struct NamedFile {
  std::string what;  // "pipeline file", "training data", "model being read"
  std::filesystem::path path;
};

struct NamedOutput {
  std::string option;  // "--model"
  OutputTarget target;
};

// classify_output(file, role), then InputError naming `option` when the file is one of
// `inputs` or the same file as an `earlier` output.
OutputTarget checked_output(const std::string& option, const std::string& file,
                            const std::string& role, const std::vector<NamedFile>& inputs,
                            const std::vector<NamedOutput>& earlier = {});

}  // namespace radial::cli
