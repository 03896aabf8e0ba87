#!/bin/sh
# Issue 6 memory check: writes a 10^7 x 17 float64 training file (1.36 GB) and a 10^5-row test
# file into DIR (default /tmp/radial-memory), trains pipeline.toml on them under /usr/bin/time -v
# and prints the peak RSS against the budget (file sizes + 256 MB). Deletes the files at the end
# unless KEEP=1.
#   usage: run.sh [DIR] [ROWS]        (run from anywhere; the repository's build/ is used)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dir=${1:-/tmp/radial-memory}
rows=${2:-10000000}
mkdir -p "$dir"
df -h "$dir"
[ -f "$dir/train.npy" ] || /usr/bin/python3 "$here/make_data.py" "$dir/train.npy" "$rows" 1
[ -f "$dir/test.npy" ] || /usr/bin/python3 "$here/make_data.py" "$dir/test.npy" 100000 2
/usr/bin/time -v "$root/build/bin/radial" train "$here/pipeline.toml" \
  --set "data.train=\"$dir/train.npy\"" --set "data.test=\"$dir/test.npy\"" \
  --report "$dir/report.json" --model "$dir/model.json" 2> "$dir/time.txt" || { cat "$dir/time.txt"; exit 1; }
grep -E "Elapsed|Maximum resident" "$dir/time.txt"
peak_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time.txt")
files=$(( $(stat -c %s "$dir/train.npy") + $(stat -c %s "$dir/test.npy") ))
budget_kb=$(( files / 1024 + 256 * 1024 ))
echo "peak RSS ${peak_kb} kB = $((peak_kb / 1024)) MB; budget ${budget_kb} kB = $((budget_kb / 1024)) MB (files $((files / 1048576)) MB + 256 MB)"
[ "${KEEP:-0}" = 1 ] || rm -f "$dir/train.npy" "$dir/test.npy" "$dir/model.json"
[ "$peak_kb" -le "$budget_kb" ]
