#!/usr/bin/env bash
# mpirun as the mpi tests use it: NP ranks on however many cores there are (--oversubscribe),
# as root when CI runs as root (Open MPI refuses root unless told), BLAS single-threaded.
# Usage: mpirun.sh NP COMMAND [ARGS...]
set -euo pipefail
# Open MPI reads the machine's topology from sysfs; without it (some containers) no job starts.
# The tests then skip (77, CTest's SKIP_RETURN_CODE) rather than fail.
if [ ! -d /sys/devices/system/cpu ]; then
  echo "SKIP: no /sys/devices/system/cpu: Open MPI cannot read this machine's topology" >&2
  exit 77
fi
np=$1
shift
flags=(--oversubscribe -np "$np" -x OPENBLAS_NUM_THREADS=1 -x RADIAL_PLUGIN_PATH)
if [ "$(id -u)" -eq 0 ]; then flags=(--allow-run-as-root "${flags[@]}"); fi
export OMPI_MCA_rmaps_base_oversubscribe=1 RADIAL_PLUGIN_PATH="${RADIAL_PLUGIN_PATH:-}"
exec mpirun "${flags[@]}" "$@"
