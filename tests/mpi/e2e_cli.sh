#!/usr/bin/env bash
# The command line under mpirun: rank 0 alone writes (one JSON report on stdout, the progress
# lines once), `radial predict` writes the single-process bytes (every row, in input order: the
# shards are whole row blocks, so every row is computed as one process computes it), `radial
# evaluate` gives the single-process report to 1e-10.
#   e2e_cli.sh BIN_DIR SOURCE_DIR MPIRUN_SH
source "$(dirname "$0")/e2e_lib.sh"
pipeline="$pipelines/gmm-irls.toml"

# The report on stdout (no --report) and the progress on stderr, from rank 0 only.
timeout "$limit" "$radial" train "$pipeline" --threads 1 --json > "$work/single.stdout" \
  2> "$work/single.stderr" || fail "single-process training: $(cat "$work/single.stderr")"
for np in 2 3; do
  timeout "$limit" "$mpirun" "$np" "$radial" train "$pipeline" --threads 1 --json \
    > "$work/np$np.stdout" 2> "$work/np$np.stderr" ||
    fail "training under $np ranks: $(cat "$work/np$np.stderr")"
  "${compare[@]}" report "$work/single.stdout" "$work/np$np.stdout" ||
    fail "stdout under $np ranks is not the one report of the single-process run"
  a=$(wc -l < "$work/single.stderr")
  b=$(wc -l < "$work/np$np.stderr")
  [ "$a" = "$b" ] || fail "stderr has $b lines under $np ranks, $a from one process (progress from every rank?)"
done
echo "ok: one report on stdout, $(wc -l < "$work/single.stderr") progress lines, under 2 and 3 ranks"

# predict and evaluate: a model of waveform (5000 rows, so that every rank holds many).
train_single "$work/wave" "$pipelines/dem-bayes.toml"
test_file="$data/waveform.csv"
"$radial" predict "$work/wave.model" "$test_file" --probabilities --output "$work/pred-single.csv" ||
  fail "single-process predict"
"$radial" evaluate "$work/wave.model" "$test_file" --report "$work/eval-single.json" ||
  fail "single-process evaluate"
for np in 1 2 3; do
  timeout "$limit" "$mpirun" "$np" "$radial" predict "$work/wave.model" "$test_file" --probabilities \
    --output "$work/pred-np$np.csv" 2> "$work/pred-np$np.err" ||
    fail "predict under $np ranks: $(cat "$work/pred-np$np.err")"
  cmp "$work/pred-single.csv" "$work/pred-np$np.csv" ||
    fail "predict under $np ranks: not the single-process bytes ($("${compare[@]}" csv \
      "$work/pred-single.csv" "$work/pred-np$np.csv" | head -n 3))"
  timeout "$limit" "$mpirun" "$np" "$radial" predict "$work/wave.model" "$test_file" \
    > "$work/pred-np$np.stdout" 2> "$work/pred-np$np.err" ||
    fail "predict to stdout under $np ranks: $(cat "$work/pred-np$np.err")"
  "$radial" predict "$work/wave.model" "$test_file" > "$work/pred-single.stdout"
  cmp "$work/pred-single.stdout" "$work/pred-np$np.stdout" ||
    fail "predict to stdout under $np ranks: not the single-process bytes"
  timeout "$limit" "$mpirun" "$np" "$radial" evaluate "$work/wave.model" "$test_file" \
    --report "$work/eval-np$np.json" 2> "$work/eval-np$np.err" ||
    fail "evaluate under $np ranks: $(cat "$work/eval-np$np.err")"
  "${compare[@]}" report "$work/eval-single.json" "$work/eval-np$np.json" ||
    fail "evaluate under $np ranks differs from one process"
done
echo "ok: predict (file and stdout) byte-identical and evaluate equal to one process under 1, 2 and 3 ranks"
