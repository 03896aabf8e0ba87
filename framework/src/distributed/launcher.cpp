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

namespace radial {

int ranks_on_this_machine() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"})
    if (const char* value = std::getenv(name)) {
      const int n = std::atoi(value);
      if (n > 0) return n;
    }
  return 1;
}

}  // namespace radial
