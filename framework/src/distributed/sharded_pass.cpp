// Ending a data pass over sharded rows (radial/distributed/sharded_pass.hpp).
#include "radial/distributed/sharded_pass.hpp"

#include <cstring>
#include <string>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"

namespace radial {

void sum_pass_over_ranks(std::vector<double>& partial, const std::exception_ptr& failure) {
  Collectives& comm = collectives();
  if (comm.size() == 1) {
    if (failure) std::rethrow_exception(failure);
    return;
  }
  // A failure flag rides in the same message; only when it is set do the ranks exchange the
  // messages (agreed), so a pass that succeeds everywhere costs one sum.
  partial.push_back(failure ? 1.0 : 0.0);
  comm.sum(partial.data(), partial.size());
  const bool failed = partial.back() != 0;
  partial.pop_back();
  if (failed)
    agreed([&] {
      if (failure) std::rethrow_exception(failure);
    });
}

namespace {

std::string to_bytes(const std::vector<double>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
}

void from_bytes(const std::string& bytes, std::vector<double>& v, const char* where) {
  if (bytes.size() != v.size() * sizeof(double))
    throw Error(std::string(where) + ": received " + std::to_string(bytes.size()) +
                " bytes from the previous rank, expected " +
                std::to_string(v.size() * sizeof(double)));
  std::memcpy(v.data(), bytes.data(), bytes.size());
}

// The chain shared by fold_blocks_over_ranks and chain_over_ranks: `state` plus a failure
// count in its last slot goes from rank to rank; step(state) runs when no rank failed so far.
void run_chain(std::vector<double>& state, const std::exception_ptr& failure,
               const std::function<std::exception_ptr(std::vector<double>&)>& step,
               const char* where) {
  Collectives& comm = collectives();
  const int rank = comm.rank(), size = comm.size();
  double failures = 0;  // ranks before this one (then including it) whose pass failed
  if (rank > 0) {
    std::vector<double> received(state.size() + 1);
    from_bytes(comm.receive(rank - 1), received, where);
    failures = received.back();
    received.pop_back();
    state = std::move(received);
  }
  std::exception_ptr mine = failure;
  if (!mine && failures == 0) mine = step(state);
  if (mine) failures += 1;
  state.push_back(failures);
  if (rank + 1 < size) comm.send(rank + 1, to_bytes(state));
  comm.broadcast(state.data(), state.size(), size - 1);
  failures = state.back();
  state.pop_back();
  if (failures != 0)
    agreed([&] {
      if (mine) std::rethrow_exception(mine);
    });
}

}  // namespace

std::vector<double> fold_blocks_over_ranks(const std::vector<double>& records, std::size_t width,
                                           const std::exception_ptr& failure) {
  if (width == 0 || records.size() % width != 0)
    throw Error("fold_blocks_over_ranks: " + std::to_string(records.size()) +
                " values are not whole records of " + std::to_string(width));
  std::vector<double> total(width, 0.0);
  const auto fold = [&](std::vector<double>& t) -> std::exception_ptr {
    for (std::size_t at = 0; at < records.size(); at += width)
      for (std::size_t i = 0; i < width; ++i) t[i] += records[at + i];
    return nullptr;
  };
  if (collectives().size() == 1) {
    if (failure) std::rethrow_exception(failure);
    fold(total);
    return total;
  }
  run_chain(total, failure, fold, "fold_blocks_over_ranks");
  return total;
}

void chain_over_ranks(std::vector<double>& state,
                      const std::function<void(std::vector<double>&)>& pass) {
  if (collectives().size() == 1) {
    pass(state);
    return;
  }
  run_chain(
      state, nullptr,
      [&](std::vector<double>& s) -> std::exception_ptr {
        try {
          pass(s);
        } catch (...) {
          return std::current_exception();
        }
        return nullptr;
      },
      "chain_over_ranks");
}

}  // namespace radial
