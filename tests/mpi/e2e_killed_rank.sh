#!/usr/bin/env bash
# A rank killed mid-run (kill -9 while training): the job ends within seconds with a non-zero
# status, no rank is left running, and no model file is written.
#   e2e_killed_rank.sh BIN_DIR SOURCE_DIR MPIRUN_SH
source "$(dirname "$0")/e2e_lib.sh"

# k-means run for a fixed, huge number of Lloyd iterations (tolerance 0): minutes of collectives,
# far longer than the test waits.
cat > "$work/long.toml" <<EOF
name = "mpi e2e: a long k-means"
seed = 41
[data]
train = "$data/waveform.csv"
standardize = true
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
count = 64
iterations = 100000000
tolerance = 0
[output]
plugin = "least-squares"
EOF

for victim in 1 0; do
  model="$work/killed-$victim.model"
  "$mpirun" 3 "$radial" train "$work/long.toml" --model "$model" --report "$work/killed.json" \
    --quiet --threads 1 2> "$work/killed.err" &
  job=$!
  # The ranks are the radial processes below mpirun (Open MPI starts them as its children).
  ranks=()
  for _ in $(seq 1 100); do
    mapfile -t ranks < <(pgrep -P "$job" -x radial | sort -n)
    [ "${#ranks[@]}" -eq 3 ] && break
    sleep 0.1
  done
  [ "${#ranks[@]}" -eq 3 ] || { kill -9 "$job" 2> /dev/null; fail "did not find 3 ranks under mpirun ($job)"; }
  sleep 3  # into the Lloyd iterations
  kill -0 "$job" 2> /dev/null || fail "the long training ended before the kill: $(cat "$work/killed.err")"
  # Rank order = start order is not promised: kill whichever process has OMPI_COMM_WORLD_RANK.
  target=""
  for pid in "${ranks[@]}"; do
    if tr '\0' '\n' < "/proc/$pid/environ" | grep -qx "OMPI_COMM_WORLD_RANK=$victim"; then target=$pid; fi
  done
  [ -n "$target" ] || target=${ranks[$victim]}
  killed_at=$(date +%s.%N)
  kill -9 "$target"
  status=0
  for _ in $(seq 1 300); do
    kill -0 "$job" 2> /dev/null || break
    sleep 0.1
  done
  if kill -0 "$job" 2> /dev/null; then
    kill -9 "$job" "${ranks[@]}" 2> /dev/null || true
    fail "rank $victim killed: mpirun still running 30 s later (a hang)"
  fi
  wait "$job" || status=$?
  took=$(/usr/bin/python3 -c "print(round($(date +%s.%N) - $killed_at, 1))")
  [ "$status" != 0 ] || fail "rank $victim killed: mpirun exited 0"
  [ ! -e "$model" ] || fail "rank $victim killed: a model file was written"
  # mpirun signals the other ranks and may return before they are gone: allow 10 s.
  for pid in "${ranks[@]}"; do
    for _ in $(seq 1 100); do
      [ -e "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2> /dev/null || break
      sleep 0.1
    done
    if [ -e "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2> /dev/null; then
      kill -9 "$pid" 2> /dev/null || true
      fail "rank $victim killed: rank process $pid still running 10 s after mpirun ended"
    fi
  done
  echo "ok: rank $victim of 3 killed: mpirun exited $status after $took s, no model, no rank left"
done
