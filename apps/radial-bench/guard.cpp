// The speed regression guard (guard.hpp).
#include "guard.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "radial/core/errors.hpp"
#include "radial/exec/cpu.hpp"
#include "radial/numerics/vector_math.hpp"

extern "C" char* openblas_get_corename(void);

namespace radial::bench {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string kernel_set() {
  std::string core = openblas_get_corename();
  const char* radial = use_avx512_kernels() ? "avx512" : use_avx2_kernels() ? "avx2" : "portable";
  return std::string("radial ") + radial + ", " + vector_math_kernel() + "; OpenBLAS " + core;
}

namespace {

json read_json(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot open the baseline");
  const std::string where = file.string() + ": ";
  try {
    // A baseline is a few kilobytes; anything past 1 MB is not one.
    std::string text((std::istreambuf_iterator<char>(in)), {});
    if (text.size() > (1u << 20)) throw InputError(where + "larger than 1 MB: not a baseline");
    return json::parse(text, nullptr, true, false);
  } catch (const json::exception& e) {
    throw InputError(where + "not valid JSON (" + e.what() + ")");
  }
}

}  // namespace

Baseline read_baseline(const fs::path& file, const std::string& kernels) {
  const json j = read_json(file);
  const std::string where = file.string() + ": ";
  if (!j.is_object() || !j.contains("sets") || !j["sets"].is_object())
    throw InputError(where + "expected an object with a \"sets\" object (kernel set -> ratios)");
  Baseline b;
  b.kernels = kernels;
  if (j.contains("factor")) {
    if (!j["factor"].is_number() || !(j["factor"].get<double>() >= 1))
      throw InputError(where + "factor must be a number >= 1");
    b.factor = j["factor"].get<double>();
  }
  for (const auto& [set, entry] : j["sets"].items()) {
    const std::string at = where + "sets[\"" + set + "\"]";
    if (!entry.is_object() || !entry.contains("ratios") || !entry["ratios"].is_object())
      throw InputError(at + ": expected an object with a \"ratios\" object");
    Ratios ratios;
    for (const auto& [key, value] : entry["ratios"].items()) {
      if (!value.is_number() || !(value.get<double>() > 0))
        throw InputError(at + ".ratios." + key + " must be a positive number");
      ratios[key] = value.get<double>();
    }
    if (set != kernels) {
      b.other_sets.push_back(set);
      continue;
    }
    b.found = true;
    b.ratios = std::move(ratios);
    if (entry.contains("machine") && entry["machine"].is_string()) b.machine = entry["machine"];
  }
  return b;
}

void write_baseline(const fs::path& file, const std::string& kernels, const Ratios& ratios,
                    double factor, const std::string& machine, const std::string& settings) {
  json j = json::object();
  if (fs::exists(file)) {
    j = read_json(file);
    read_baseline(file, kernels);  // refuses a malformed file rather than dropping its sets
  }
  j["about"] =
      "Headline ratios Radial / reference (scikit-learn; dgemm for the design pass) per kernel "
      "set, measured by radial-bench --write-baseline on a machine running that set; "
      "radial-bench --guard fails when one is more than factor x its value here. Lower is "
      "better.";
  std::string one_line = machine;
  while (!one_line.empty() && one_line.back() == '\n') one_line.pop_back();
  for (std::size_t at = one_line.find('\n'); at != std::string::npos; at = one_line.find('\n'))
    one_line.replace(at, 1, "; ");
  j["factor"] = factor;
  if (!j.contains("sets")) j["sets"] = json::object();
  json entry;
  entry["machine"] = one_line;
  entry["settings"] = settings;
  entry["ratios"] = json::object();
  for (const auto& [key, value] : ratios) entry["ratios"][key] = std::round(value * 1e4) / 1e4;
  j["sets"][kernels] = entry;
  const fs::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << j.dump(2) << "\n";
    if (!out.flush()) throw Error("radial-bench: cannot write " + tmp.string());
  }
  fs::rename(tmp, file);
}

void keep_best(Ratios& best, const Ratios& next) {
  for (const auto& [key, value] : next) {
    const auto it = best.find(key);
    if (it == best.end())
      best[key] = value;
    else
      it->second = std::min(it->second, value);
  }
}

std::map<std::string, std::string> guard_failures(const Baseline& baseline, const Ratios& best) {
  std::map<std::string, std::string> failed;
  for (const auto& [key, base] : baseline.ratios) {
    const auto it = best.find(key);
    if (it == best.end()) {
      failed[key] = "not measured";
      continue;
    }
    if (!(it->second <= baseline.factor * base)) {
      std::ostringstream why;
      why << std::setprecision(3) << it->second << " > " << baseline.factor << " x " << base;
      failed[key] = why.str();
    }
  }
  return failed;
}

void print_guard(std::ostream& out, const Baseline& baseline, const Ratios& best,
                 std::size_t rounds) {
  const auto failed = guard_failures(baseline, best);
  out << "\nGuard: headline ratios (best of " << rounds << " round" << (rounds == 1 ? "" : "s")
      << ") against the baseline, limit " << baseline.factor << " x baseline\n"
      << "  kernel set: " << baseline.kernels << "\n"
      << "  baseline measured on: " << baseline.machine << "\n"
      << "  " << std::left << std::setw(34) << "ratio" << std::right << std::setw(10) << "now"
      << std::setw(10) << "baseline" << std::setw(10) << "now/base"
      << "  verdict\n";
  for (const auto& [key, base] : baseline.ratios) {
    const auto it = best.find(key);
    out << "  " << std::left << std::setw(34) << key << std::right << std::fixed
        << std::setprecision(4);
    if (it == best.end())
      out << std::setw(10) << "-";
    else
      out << std::setw(10) << it->second;
    out << std::setw(10) << base << std::setprecision(2) << std::setw(10)
        << (it == best.end() ? 0.0 : it->second / base) << "  "
        << (failed.count(key) ? "FAIL (" + failed.at(key) + ")" : "ok") << std::defaultfloat
        << "\n";
  }
  for (const auto& [key, value] : best)
    if (!baseline.ratios.count(key))
      out << "  " << std::left << std::setw(34) << key << std::right << std::setw(10)
          << std::setprecision(4) << value << "  (not in the baseline: not checked)\n";
}

}  // namespace radial::bench
