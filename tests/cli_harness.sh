# Sourced by the scripts that test the real `radial` host (tests/cli, tests/faults, the data and
# model-file cases). The script sets case_name and radial (the host under test) first; set
# run_timeout (seconds) to bound every `run`.

fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }
# run EXPECTED_CODE cmd...: runs the host, keeps stdout/stderr in out.txt/err.txt.
run() {
  local expected=$1; shift
  if [ -n "${run_timeout:-}" ]; then
    timeout "$run_timeout" "$radial" "$@" >out.txt 2>err.txt
  else
    "$radial" "$@" >out.txt 2>err.txt
  fi
  local code=$?
  if [ "$code" -ne "$expected" ]; then
    echo "--- stdout"; head -c 2000 out.txt; echo; echo "--- stderr"; cat err.txt
    fail "radial $* exited $code, expected $expected"
  fi
}
err_has() { grep -qF -- "$1" err.txt || { cat err.txt; fail "stderr lacks: $1"; }; }
err_lacks() { ! grep -qF -- "$1" err.txt || { cat err.txt; fail "stderr has: $1"; }; }
out_has() { grep -qF -- "$1" out.txt || { head -c 2000 out.txt; fail "stdout lacks: $1"; }; }
# json FILE EXPR: evaluates a Python expression on the parsed JSON (j) and prints it.
json() { /usr/bin/python3 -c "import json,sys; j=json.load(open('$1')); print(($2))"; }

# host_has_asan: true for a host built with AddressSanitizer (GCC links libasan; clang links
# the runtime in, and the host then exports __asan_init).
host_has_asan() {
  readelf -d "$radial" 2>/dev/null | grep -q 'libasan' ||
    nm -D --defined-only "$radial" 2>/dev/null | grep -q ' __asan_init$'
}

# limit_memory KB: an address-space limit for the host run in this subshell. An ASan build
# reserves terabytes of shadow memory, so it gets ASan's own cap on one allocation instead.
limit_memory() {
  if host_has_asan; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=$(($1 / 1024))"
  else
    ulimit -v "$1"
  fi
}

# results_without_timing DB: the runs stored in a results database as JSON without timings,
# sorted: equal for equal results (the experiment and fault tests compare databases so).
results_without_timing() {
  "$radial" results "$1" --format json > all.json || fail "radial results $1 failed"
  /usr/bin/python3 - <<'PY'
import json
runs = json.load(open("all.json"))["runs"]
def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in ("seconds", "cpu_seconds", "threads")}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x
runs = sorted((strip(r) for r in runs), key=lambda r: json.dumps(r, sort_keys=True))
print(json.dumps(runs, sort_keys=True))
PY
}
