// Whether an MPI launcher started this process (distributed_internal.hpp).
#include <cstdlib>

#include "distributed_internal.hpp"

namespace radial::detail {

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(name)) return true;
  return false;
}

}  // namespace radial::detail
