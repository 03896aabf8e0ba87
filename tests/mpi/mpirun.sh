#!/usr/bin/env bash
# mpirun as the mpi tests use it: NP ranks on however many cores there are (--oversubscribe),
# as root when CI runs as root (Open MPI refuses root unless told), BLAS single-threaded.
# Usage: mpirun.sh NP COMMAND [ARGS...]
set -euo pipefail
np=$1
shift
flags=(--oversubscribe -np "$np" -x OPENBLAS_NUM_THREADS=1 -x RADIAL_PLUGIN_PATH)
if [ "$(id -u)" -eq 0 ]; then flags=(--allow-run-as-root "${flags[@]}"); fi
export OMPI_MCA_rmaps_base_oversubscribe=1 RADIAL_PLUGIN_PATH="${RADIAL_PLUGIN_PATH:-}"
exec mpirun "${flags[@]}" "$@"
