#!/usr/bin/env bash
# Every shipped example pipeline (docs/examples/*.toml) under mpirun -np 2 and 3 against one
# process: the model and report to 1e-10 of each array's scale, the same iteration counts and
# search choices. Unlike tests/mpi/pipelines these are not chosen to be well conditioned (some
# have no weight penalty on separable classes), so they show how far iterative optimisers carry the
# rounding-level differences of the rank-ordered sums. Every example is run; the failures are
# listed together at the end.
#   e2e_examples.sh BIN_DIR SOURCE_DIR MPIRUN_SH
source "$(dirname "$0")/e2e_lib.sh"
failed=()
for pipeline in "$source"/docs/examples/*.toml; do
  name=$(basename "$pipeline" .toml)
  train_single "$work/$name-single" "$pipeline"
  for np in 2 3; do
    train_mpi "$np" "$work/$name-np$np" "$pipeline"
    if "${compare[@]}" model "$work/$name-single.model" "$work/$name-np$np.model" > "$work/cmp" &&
       "${compare[@]}" report "$work/$name-single.json" "$work/$name-np$np.json" > "$work/cmp"; then
      echo "ok: $name under $np ranks: $(tail -n 1 "$work/cmp")"
    else
      echo "FAIL: $name under $np ranks:"
      head -n 6 "$work/cmp"
      failed+=("$name (np $np)")
    fi
  done
done
[ "${#failed[@]}" -eq 0 ] || fail "${#failed[@]} example runs differ from one process: ${failed[*]}"
