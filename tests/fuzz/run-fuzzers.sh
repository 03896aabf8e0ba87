#!/usr/bin/env bash
# Runs every fuzz target of the `fuzz` build for a bounded time (CI: 60 s each), on a copy of its
# seed and regression corpora in a temporary folder (the repository is never written), with the
# limits a model reader must meet: an input slower than 2 s, an RSS above 512 MB or one
# allocation above 512 MB is a failure, as is a crash, a leak or a sanitizer report. Exits 1 if
# any target failed, after printing each failing input's path; add it to regression/<target>/
# once fixed.
#
#   tests/fuzz/run-fuzzers.sh [seconds per target] [build folder]   (defaults: 60, build-asan)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
seconds="${1:-60}"
build="${2:-$here/../../build-asan}"
targets=(pipeline csv npy model report_json results_db arff libsvm)
dicts=(toml csv "" model json "" arff libsvm)

work="$(mktemp -d "${TMPDIR:-/tmp}/radial-fuzz-run-XXXXXX")"
keep=0
cleanup() { [ "$keep" = 1 ] || rm -rf "$work"; }
trap cleanup EXIT

export OPENBLAS_NUM_THREADS=1 RADIAL_PLUGIN_PATH=
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# ASan keeps 256 MB of freed memory in quarantine by default; with the readers' legitimate
# allocations of up to 2^22 cells (a LIBSVM row with a large index) the libsvm target's RSS
# reached 511 MB of the 512 MB limit in 60 s. 64 MB still catches use after free of recent blocks.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=64"
failed=()
for i in "${!targets[@]}"; do
  t="${targets[$i]}"
  fuzzer="$build/bin/${t}_fuzzer"
  [ -x "$fuzzer" ] || { echo "run-fuzzers: no $fuzzer (cmake --workflow --preset asan builds it)" >&2; exit 2; }
  mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
  cp -R "$here/corpus/$t/." "$work/$t/corpus/"
  if [ -d "$here/regression/$t" ]; then cp -R "$here/regression/$t/." "$work/$t/corpus/"; fi
  dict=()
  [ -n "${dicts[$i]}" ] && dict=(-dict="$here/${dicts[$i]}.dict")
  echo "run-fuzzers: $t for ${seconds} s"
  if "$fuzzer" "${dict[@]}" -max_total_time="$seconds" -timeout=2 -rss_limit_mb=512 \
       -malloc_limit_mb=512 -print_final_stats=1 -artifact_prefix="$work/$t/artifacts/" \
       "$work/$t/corpus" > "$work/$t/log" 2>&1; then
    grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$work/$t/log" | sed "s/^/  /"
  else
    failed+=("$t")
    keep=1
    tail -n 60 "$work/$t/log"
    echo "run-fuzzers: $t FAILED; input(s): $(ls "$work/$t/artifacts/"* 2>/dev/null | tr '\n' ' ')" >&2
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "run-fuzzers: failed: ${failed[*]} (logs and inputs kept in $work)" >&2
  exit 1
fi
echo "run-fuzzers: all ${#targets[@]} targets ran ${seconds} s without a finding"
