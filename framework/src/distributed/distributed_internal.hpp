#pragma once
// Between collectives.cpp and the MPI communicator: mpi_collectives.cpp when Radial is built with
// MPI, no_mpi.cpp otherwise.
#include "radial/distributed/collectives.hpp"

namespace radial::detail {

bool mpi_available();
// True when an MPI launcher started this process (Open MPI, MPICH/Hydra or Slurm's PMI set
// their variables), so that a plain `radial train` never initialises MPI.
bool launched_by_mpi();
// MPI's world communicator, initialising MPI on the first call; null without MPI.
Collectives* mpi_world();

}  // namespace radial::detail
