#!/usr/bin/env bash
# cli_basics.sh BIN_DIR SOURCE_DIR MPIRUN — the `radial` host under mpirun -np 2 and 3 against
# the single-process host: rank 0 alone writes (one report, one set of progress lines), predict
# writes the rows in input order equal to the single-process predict (also with a rank that holds
# no rows), evaluate's metrics equal the single-process ones, a command that is not distributed
# exits 2, and a bad pipeline or bad data in one rank's shard makes the job exit 2 with one message.
set -u
bin=$1 src=$2 mpirun=$3
# Without sysfs Open MPI starts no job: skip (77) rather than fail (tests/mpi/mpirun.sh).
[ -d /sys/devices/system/cpu ] || { echo "SKIP: no sysfs for Open MPI's topology"; exit 77; }
radial="$bin/radial"
examples="$src/docs/examples"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# run EXPECTED_STATUS NAME NP ARGS...: the host under mpirun (NP 0: without mpirun), stdout in
# NAME.out, stderr in NAME.err.
run() {
  local expected=$1 name=$2 np=$3
  shift 3
  local status=0
  if [ "$np" -eq 0 ]; then
    "$radial" "$@" > "$name.out" 2> "$name.err" || status=$?
  else
    timeout 300 "$mpirun" "$np" "$radial" "$@" > "$name.out" 2> "$name.err" || status=$?
  fi
  if [ "$status" -ne "$expected" ]; then
    fail "$name: exit status $status, expected $expected; stderr:"
    sed 's/^/    /' "$name.err" >&2
  fi
}
count() { grep -c -- "$1" "$2"; }
# Metrics JSON files equal: counts exactly, real numbers to 1e-10 relative (rank-ordered sums).
same_metrics() {
  /usr/bin/python3 - "$1" "$2" <<'EOF'
import json, math, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def same(x, y):
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    if isinstance(x, float) or isinstance(y, float):
        return math.isclose(x, y, rel_tol=1e-10, abs_tol=1e-300)
    return x == y
sys.exit(0 if same(a, b) else 1)
EOF
}

# Prediction CSV files equal: same header and rows, labels exactly, probabilities and values to
# 1e-10 relative (a row's bits may depend on the rows it shares a BLAS call with, and the
# shards cut the rows into other calls than one process does).
same_rows() {
  /usr/bin/python3 - "$1" "$2" <<'EOF'
import math, sys
a, b = (open(f).read().splitlines() for f in sys.argv[1:3])
def same(x, y):
    if x == y:
        return True
    try:
        return math.isclose(float(x), float(y), rel_tol=1e-10, abs_tol=1e-300)
    except ValueError:
        return False
ok = len(a) == len(b) and a[:1] == b[:1] and all(
    len(u.split(',')) == len(v.split(',')) and u.split(',')[0] == v.split(',')[0] and
    all(same(x, y) for x, y in zip(u.split(','), v.split(','))) for u, v in zip(a[1:], b[1:]))
sys.exit(0 if ok else 1)
EOF
}

two_class="$examples/synth3-thin-plate-irls.toml"  # probabilities: --probabilities, cross-entropy
iris="$examples/three-class-iris.toml"
test_csv="$examples/data/synth3_test.csv"

# The single-process results everything is compared with.
run 0 plain-train 0 train "$two_class" --model plain.model --report plain.json --quiet
run 0 plain-predict 0 predict plain.model "$test_csv" --output plain.csv
run 0 plain-evaluate 0 evaluate plain.model "$test_csv" --report plain-eval.json
head -3 "$test_csv" > three.csv
run 0 plain-predict-three 0 predict plain.model three.csv --probabilities --output plain-three.csv

for np in 2 3; do
  # Rank 0 alone writes: one JSON report on stdout, one set of progress lines, one model.
  run 0 "train$np" "$np" train "$two_class" --model "m$np.model"
  [ -s "m$np.model" ] || fail "train -np $np: no model written"
  [ "$(count '^radial: data:' "train$np.err")" -eq 1 ] || fail "train -np $np: not one progress line 'data:'"
  [ "$(count '^radial: model written' "train$np.err")" -eq 1 ] || fail "train -np $np: not one 'model written'"
  /usr/bin/python3 -c "
import json, sys
a, b = json.load(open('train$np.out')), json.load(open('plain.json'))
sys.exit(0 if a['data'] == b['data'] else 1)" \
    || fail "train -np $np: not one JSON report on stdout, or its data section differs from one process"

  # Predict: the same rows in input order as one process, from the same model.
  run 0 "predict$np" "$np" predict plain.model "$test_csv" --output "p$np.csv"
  same_rows plain.csv "p$np.csv" || fail "predict -np $np: rows differ from the single-process predict"
  [ ! -s "predict$np.out" ] || fail "predict -np $np: wrote to stdout with --output"
  # To stdout, and a file with fewer rows than ranks (a rank holds none).
  run 0 "predict-three$np" "$np" predict plain.model three.csv --probabilities
  same_rows plain-three.csv "predict-three$np.out" || fail "predict -np $np: 2-row file differs"

  # Evaluate: the metrics of one process.
  run 0 "evaluate$np" "$np" evaluate plain.model "$test_csv"
  same_metrics plain-eval.json "evaluate$np.out" || fail "evaluate -np $np: metrics differ"

  # A command that is not distributed: exit 2, said once.
  run 2 "validate$np" "$np" validate "$two_class"
  [ "$(count 'does not run under mpirun' "validate$np.err")" -eq 1 ] || fail "validate -np $np: not one message"

  # A bad pipeline: every rank exits 2, the message printed once.
  sed 's/plugin = "kmeans"/plugin = "kmeens"/' "$two_class" > bad.toml
  grep -q kmeens bad.toml || fail "bad.toml: the pipeline was not changed"
  run 2 "bad-pipeline$np" "$np" train bad.toml --model bad.model
  [ "$(count '^radial: error:' "bad-pipeline$np.err")" -eq 1 ] || fail "bad pipeline -np $np: not one message"
  [ ! -e bad.model ] || fail "bad pipeline -np $np: a model was written"
done

# Bad data in the last rank's shard (a ragged last line): exit 2, that rank's message, once.
mkdir -p data
cp "$examples/data/synth3_train.csv" data/synth3_train.csv
echo "1.0,2.0" >> data/synth3_train.csv
# The copied pipeline reads data/synth3_train.csv beside it: the ragged copy.
sed '/^test = /d' "$two_class" > ragged.toml
run 2 ragged 2 train ragged.toml --model ragged.model
[ "$(count '^radial: error:' ragged.err)" -eq 1 ] || fail "ragged shard: not one message"
grep -q 'rank 1: ' ragged.err || fail "ragged shard: the message does not name rank 1"
[ ! -e ragged.model ] || fail "ragged shard: a model was written"

# Cross-validation and the fold assignment under sharding: the per-fold row counts of one process.
run 0 iris-plain 0 train "$iris" --report iris-plain.json --quiet
run 0 iris3 3 train "$iris" --report iris3.json --quiet
/usr/bin/python3 -c "
import json, sys
a, b = json.load(open('iris-plain.json')), json.load(open('iris3.json'))
rows = lambda j: [(f['train_rows'], f['test_rows']) for f in j['cv']['per_fold']]
sys.exit(0 if rows(a) == rows(b) and a['data'] == b['data'] else 1)" \
  || fail "iris -np 3: cross-validation folds or data differ from one process"

[ "$failures" -eq 0 ] && echo "cli_basics: all passed"
exit $((failures > 0))
