#!/usr/bin/env bash
# One pipeline of tests/mpi/pipelines trained single-process and under mpirun -np 1, 2, 3 (and 2
# again): the same model and report to 1e-10 relative, the same iteration counts and search
# choices, and the same bits for the same rank count (e2e_lib.sh, against_ranks).
#   e2e_pipeline.sh BIN_DIR SOURCE_DIR MPIRUN_SH PIPELINE.toml
source "$(dirname "$0")/e2e_lib.sh"
pipeline="$pipelines/$1"
[ -f "$pipeline" ] || fail "no pipeline $pipeline"
against_ranks "$(basename "$1" .toml)" "$pipeline"
