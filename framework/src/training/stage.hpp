#pragma once
// One stage of the trainer's fit (internal to the trainer): centres, basis, output or refine.
// Every stage runs the same way, so the trainer says only what differs: which seed stream, which
// plugin, and the call.

#include <cstdint>
#include <functional>
#include <string>

#include "radial/core/fit_context.hpp"
#include "radial/plugin/loader.hpp"

namespace radial::training {

// The seed streams of the stages (derive_seed(seed, stream)); committee member m uses
// member_stream + m, and the selection 7 and 8 (selection.cpp).
enum Stream : std::uint64_t {
  centres_stream = 1,
  basis_stream = 2,
  output_stream = 3,
  refine_stream = 4,
  member_stream = 100
};

using Log = std::function<void(const std::string&)>;

// The message of an error that left `plugin`'s stage: "<plugin>: <message>". A prefix the
// plugin wrote itself ("<plugin>: ", "<slot> <plugin>: " or "plugin <plugin>: ") is replaced
// by it, not doubled.
std::string stage_message(Slot slot, const std::string& plugin, const std::string& message);

class StageRunner {
 public:
  // `seed` the fit's (each stage derives its own from it), `threads` and `log` the run's.
  StageRunner(std::uint64_t seed, int threads, Log log)
      : seed_(seed), threads_(threads), log_(std::move(log)) {}

  // Runs `call` with a FitContext on the stream's seed, the run's threads and log, and the
  // plugin's id as its component (so its warnings name it), and returns its report with the
  // seconds it took. A Radial error from `call` is rethrown of the same type with its message
  // prefixed by the plugin's id (stage_message); any other exception but std::bad_alloc
  // becomes an Error so prefixed (its type may live in the plugin's library).
  FitReport run(Stream stream, Slot slot, const std::string& plugin,
                const std::function<void(FitContext&)>& call) const;

  std::uint64_t seed(Stream stream) const;
  const Log& log() const { return log_; }
  void say(const std::string& line) const {
    if (log_) log_(line);
  }

 private:
  std::uint64_t seed_;
  int threads_;
  Log log_;
};

}  // namespace radial::training
