// A main for the fuzz targets in an ordinary build (no libFuzzer): runs LLVMFuzzerTestOneInput
// once on every file under the folders (or files) given, so the regression corpus and the seed
// corpus are replayed by `ctest`. A crash fails the test as it would under the fuzzer.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    if (fs::is_directory(arg)) {
      for (const auto& entry : fs::recursive_directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else if (fs::is_regular_file(arg)) {
      files.push_back(arg);
    } else if (!fs::exists(arg)) {
      // A target's regression folder exists once something has failed there.
      std::fprintf(stderr, "replay: no %s, nothing to replay there\n", arg.c_str());
    } else {
      std::fprintf(stderr, "replay: %s is neither a folder nor a file\n", arg.c_str());
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", file.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replay: %zu inputs, no crash\n", files.size());
  return files.empty() ? 1 : 0;
}
