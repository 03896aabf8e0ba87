#!/usr/bin/env bash
# Models written before links became open prediction rules (model record 1: the link as an enum
# number, a bayes model without weights) still load and predict what the build that wrote them
# predicted, to 1e-12. data/ holds the models and the predictions of that build:
#   iris-gmm-full-bayes   bayes output (weights made from the stored centres on load)
#   synth3-thin-plate-irls  logistic output
# Saving such a model writes record 2, which predicts the same.
# Usage: old_models.sh RADIAL SOURCE_DIR WORK_DIR
set -u
case_name=old-models
radial=$1
source_dir=$2
work=$3
source "$source_dir/tests/cli_harness.sh"
data="$source_dir/tests/prediction-rules/data"
examples="$source_dir/docs/examples/data"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || fail "cannot enter $work"

# same CSV_A CSV_B: same header and labels, every number within 1e-12.
same() {
  /usr/bin/python3 - "$1" "$2" <<'PY' || fail "$1 differs from $2"
import csv, sys
a, b = (list(csv.reader(open(f))) for f in sys.argv[1:3])
assert a[0] == b[0] and len(a) == len(b), "header or row count"
worst = max(abs(float(x) - float(y)) for ra, rb in zip(a[1:], b[1:]) for x, y in zip(ra, rb))
print(f"{sys.argv[1]}: max |diff| = {worst:.3g}")
assert worst <= 1e-12, worst
PY
}

for pair in "iris-gmm-full-bayes iris" "synth3-thin-plate-irls synth3_train"; do
  set -- $pair
  model="$data/$1.model" expected="$data/$1.$2.pred.csv"
  head -c 14 "$model" | grep -q "RADIAL-MODEL 1" || fail "$model is not a format-1 model"
  run 0 predict "$model" "$examples/$2.csv" --probabilities --output "$1.csv"
  same "$1.csv" "$expected"
  # inspect reads it too; saving again (train writes record 2) is checked by the unit tests.
  run 0 inspect "$model"
done
run 0 inspect "$data/iris-gmm-full-bayes.model"
out_has "bayes"
echo "PASS [$case_name]"
