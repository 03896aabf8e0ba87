// A build without MPI (RADIAL_WITH_MPI off or Boost.MPI missing): world() is single-process
// even under mpirun, which then runs P independent copies; the CLI refuses that (it checks
// launched_by_mpi() against built_with_mpi()).
#include "distributed_internal.hpp"

namespace radial::detail {

bool mpi_available() { return false; }
Collectives* mpi_world() { return nullptr; }

}  // namespace radial::detail
