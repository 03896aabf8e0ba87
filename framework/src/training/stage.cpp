// One stage of the trainer's fit (stage.hpp).
#include "stage.hpp"

#include <chrono>
#include <exception>
#include <new>

#include "radial/core/errors.hpp"
#include "radial/training/trainer.hpp"

namespace radial::training {

std::string stage_message(Slot slot, const std::string& plugin, const std::string& message) {
  for (const std::string& own : {plugin + ": ", std::string(to_string(slot)) + " " + plugin + ": ",
                                 "plugin " + plugin + ": "})
    if (message.compare(0, own.size(), own) == 0) return plugin + ": " + message.substr(own.size());
  return plugin + ": " + message;
}

std::uint64_t StageRunner::seed(Stream stream) const { return derive_seed(seed_, stream); }

FitReport StageRunner::run(Stream stream, Slot slot, const std::string& plugin,
                           const std::function<void(FitContext&)>& call) const {
  FitContext ctx(seed(stream), threads_);
  ctx.log = log_;
  ctx.component = plugin;
  const auto start = std::chrono::steady_clock::now();
  try {
    call(ctx);
  } catch (const Error& error) {
    rethrow_as(error, stage_message(slot, plugin, error.what()));
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& error) {
    throw Error(stage_message(slot, plugin, error.what()));
  }
  ctx.report.seconds = seconds_since(start);
  return std::move(ctx.report);
}

}  // namespace radial::training
