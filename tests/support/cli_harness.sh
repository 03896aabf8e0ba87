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

# limit_memory KB: an address-space limit for the host run in this subshell. An ASan build
# reserves terabytes of shadow memory, so it gets ASan's own cap on one allocation instead.
limit_memory() {
  if readelf -d "$radial" 2>/dev/null | grep -q 'libasan'; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=$(($1 / 1024))"
  else
    ulimit -v "$1"
  fi
}
