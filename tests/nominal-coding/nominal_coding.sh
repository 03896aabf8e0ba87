#!/usr/bin/env bash
# Issue 47 through the CLI: the nominal coding and the visible task decision.
#  1. Models written by the build before issue 47 (data/*.model: each category's indicator
#     standardised, data/*.toml) load and predict what that build predicted (data/*.pred.csv),
#     to 1e-12; the same pipelines trained here with [data] nominal_scale = "category" predict
#     the same again, and the default ("input") writes one scale per nominal input.
#  2. An integer target with many distinct values (house prices) is refused with a message
#     naming task, unless [data] task says; the summary and the report say the task and the
#     class count.
# Usage: nominal_coding.sh RADIAL SOURCE_DIR WORK_DIR
set -u
case_name=nominal-coding
radial=$1
source_dir=$2
work=$3
source "$source_dir/tests/cli_harness.sh"
data="$source_dir/tests/nominal-coding/data"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || fail "cannot enter $work"
cp "$data"/*.csv "$data"/*.toml . || fail "cannot copy the data"

# same CSV_A CSV_B: same header and labels, every number within 1e-12.
same() {
  /usr/bin/python3 - "$1" "$2" <<'PY' || fail "$1 differs from $2"
import csv, sys
a, b = (list(csv.reader(open(f))) for f in sys.argv[1:3])
assert a[0] == b[0] and len(a) == len(b), "header or row count"
def number(x):
    try:
        return float(x)
    except ValueError:
        return None
worst = 0.0
for ra, rb in zip(a[1:], b[1:]):
    for x, y in zip(ra, rb):
        if number(x) is None:
            assert x == y, (x, y)
        else:
            worst = max(worst, abs(number(x) - number(y)))
print(f"{sys.argv[1]}: max |diff| = {worst:.3g}")
assert worst <= 1e-12, worst
PY
}

# 1. Old models, old coding.
run 0 predict "$data/shops.model" test.csv --probabilities --output shops.csv
same shops.csv "$data/shops.test.pred.csv"
run 0 predict "$data/brands.model" brands-test.csv --output brands.csv
same brands.csv "$data/brands.test.pred.csv"
run 0 train shops.toml --set data.nominal_scale=category --model old.model
run 0 predict old.model test.csv --probabilities --output old.csv
same old.csv "$data/shops.test.pred.csv"
run 0 train brands.toml --set data.nominal_scale=category --model old-brands.model
run 0 predict old-brands.model brands-test.csv --output old-brands.csv
same old-brands.csv "$data/brands.test.pred.csv"
# The default coding predicts otherwise (one scale per input).
run 0 train shops.toml --model new.model --report new.json
run 0 predict new.model test.csv --probabilities --output new.csv
! cmp -s new.csv old.csv || fail "nominal_scale = \"input\" predicts as \"category\" does"
run 2 train shops.toml --set data.nominal_scale=indicator
err_has 'nominal_scale = "indicator". Violated constraint: nominal_scale is one of input'

# 2. The task, said and never guessed from many integers.
[ "$(json new.json 'j["data"]["task"] + " " + str(j["data"]["classes"]) + " " + j["data"]["task_from"]')" = \
  "classification 2 text labels" ] || fail "the report's task: $(json new.json 'j["data"]')"
# The summary (at a terminal: `script` gives radial one, where the machine has pseudo-terminals).
at_terminal() {
  script -qec "$*" /dev/null > tty.txt 2>&1 || { cat tty.txt; fail "at a terminal: $*"; }
}
terminal=no
command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1 && terminal=yes
if [ $terminal = yes ]; then
  at_terminal "'$radial' train shops.toml --quiet"
  grep -qF "task      classification, 2 classes (from the text labels; data.task sets it)" tty.txt ||
    { cat tty.txt; fail "the summary does not say the task"; }
else
  echo "no pseudo-terminal: the summary's task line is not checked"
fi
/usr/bin/python3 - <<'PY' || fail "cannot write prices.csv"
import numpy as np
rng = np.random.default_rng(47)
x = rng.uniform(0, 1, size=(400, 2))
price = np.round(100000 + 250000 * x[:, 0] + 50000 * x[:, 1] + 20000 * rng.standard_normal(400))
with open("prices.csv", "w") as f:
    f.write("area,age,price\n")
    for (a, b), p in zip(x, price):
        f.write(f"{a!r},{b!r},{int(p)}\n")
PY
cat > prices.toml <<'T'
[data]
train = "prices.csv"
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
count = 8
[output]
plugin = "least-squares"
T
run 2 train prices.toml
err_has "prices.csv: target column 'price' holds "
err_has "distinct integer values in 400 rows"
err_has 'looks like a quantity, not class labels; Radial does not guess the task: set task = "regression" in [data]'
run 0 train prices.toml --set data.task=regression --report prices.json
[ "$(json prices.json 'j["data"]["task"] + " " + str(j["data"]["classes"]) + " " + j["data"]["task_from"]')" = \
  "regression 0 data.task" ] || fail "the report's task: $(json prices.json 'j["data"]')"
if [ $terminal = yes ]; then
  at_terminal "'$radial' train prices.toml --set data.task=regression --quiet"
  grep -qF "task      regression (data.task)" tty.txt || { cat tty.txt; fail "summary"; }
fi
# Given as classification, the same column is 400-odd classes, as asked.
run 0 train prices.toml --set data.task=classification --set centres.count=4 --report classes.json
[ "$(json classes.json 'j["data"]["task_from"]')" = "data.task" ] || fail "task_from"
echo "PASS [$case_name]"
