#pragma once
// `radial train`, `predict` and `evaluate` under `mpirun -np P` (P > 1): every rank runs the
// command on its shard of the rows, rank 0 alone writes results, reports and progress.
//
// Failures come in two kinds. One that every rank meets at the same point (a bad pipeline, bad
// data in any rank's shard: radial::agreed) is thrown on every rank; rank 0 prints it once and
// every rank exits with the usual code. One that a rank may meet alone while the others wait in a
// collective (anything escaping training or prediction) cannot be agreed on: the rank prints
// "radial: rank R: MESSAGE" and ends the job with MPI_Abort and the usual code, which mpirun
// returns as its own exit status (2 bad input, 1 otherwise). A crashed rank ends the job too
// (Open MPI's default), with the signal's status.

#include <exception>
#include <functional>
#include <optional>

#include "radial/distributed/collectives.hpp"

namespace radial::cli {

// True when this process is one of P > 1 ranks of an MPI job (initialises MPI under mpirun).
bool distributed();
// The process that writes results, the report and progress: rank 0, or the only process.
bool writes_results();

// Under mpirun, rank 0's standard output is a pipe to the launcher, which forwards it to its
// own: when that is closed (`mpirun ... >&-`) the launcher drops the results silently and the
// rank's own writes succeed. Called by rank 0 before results go to stdout: OutputError (exit
// 1, nothing lost unknowingly) when the launcher that started this rank on this machine has
// no standard output; nothing when it cannot tell (another machine's daemon).
void require_launcher_stdout();

// True on ranks other than 0 of an MPI job, which print nothing of their own (usage errors,
// help); false without MPI, and when MPI cannot start.
bool quiet_rank();

// The CLI's exit code for a failure: 2 for bad input (InputError), 1 for results that could not
// be written (OutputError) and anything else.
int exit_code_for(const std::exception_ptr& failure);

// The command's data sharded over the job's ranks (a ShardedScope over world()) while it lives,
// when distributed; nothing otherwise. close() ends it early (rank 0's plots read whole files).
class CommandScope {
 public:
  CommandScope();
  void close() { scope_.reset(); }

 private:
  std::optional<ShardedScope> scope_;
};

// Runs `step` on rank 0 only (checks of the outputs rank 0 will write); a failure there is
// thrown on every rank (radial::agreed). Not distributed: just step().
void on_writer_agreed(const std::function<void()>& step);

// Runs `step` on every rank. Distributed, an exception escaping it on a rank ends the job as
// described above (rank 0 at once; another rank after a second, so that a failure every rank
// meets is printed once, by rank 0, whose abort ends the others first). Not distributed: step().
void or_end_job(const std::function<void()>& step);

}  // namespace radial::cli
