#!/usr/bin/env bash
# Uneven shards against the single-process run (e2e_lib.sh, against_ranks):
#  - a .npy of 101 rows (not divisible by 2 or 3: even_shard gives 51/50 and 34/34/33);
#  - a CSV and a .npy with 2 rows: under 3 ranks one rank holds no row at all;
#  - waveform sorted by class: under 2 and 3 ranks a class is missing from a rank's shard, and
#    per-class mixtures must still be fitted on the class's global rows.
#   e2e_uneven.sh BIN_DIR SOURCE_DIR MPIRUN_SH
source "$(dirname "$0")/e2e_lib.sh"

/usr/bin/python3 - "$work" <<'EOF'
import sys
import numpy as np
work = sys.argv[1]
rng = np.random.default_rng(5)
# Two classes in 3-D, class as the last column.
y = rng.integers(0, 2, size=101)
x = rng.normal(size=(101, 3)) + 1.5 * y[:, None]
np.save(f"{work}/odd.npy", np.column_stack([x, y]).astype("<f8"))
# Two rows, regression (target last).
np.save(f"{work}/two.npy", np.array([[0.1, 0.5], [0.7, -0.2]], dtype="<f8"))
EOF
printf 'x,y\n0.1,0.5\n0.7,-0.2\n' > "$work/two.csv"
{
  head -n 1 "$data/waveform.csv"
  tail -n +2 "$data/waveform.csv" | sort -t, -k22,22n -s
} > "$work/waveform-sorted.csv"

cat > "$work/odd.toml" <<'EOF'
name = "mpi e2e: 101 rows from a .npy, kmeans + gaussian + irls"
seed = 31
[data]
train = "odd.npy"
standardize = true
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
count = 5
[output]
plugin = "irls"
link = "logistic"
[weight-penalty]
plugin = "weight-decay"
alpha = 0.01
[evaluate]
folds = 4
EOF
against_ranks odd-npy "$work/odd.toml"

# Two rows: one centre (a training row drawn by the seed), ridge least squares.
for ext in csv npy; do
  cat > "$work/two-$ext.toml" <<EOF
name = "mpi e2e: 2 rows ($ext), fewer rows than ranks"
seed = 32
[data]
train = "two.$ext"
target = "$([ $ext = csv ] && echo y || echo 2)"
task = "regression"
standardize = false
[basis]
plugin = "gaussian"
width = 1.0
[centres]
plugin = "subset"
count = 1
[output]
plugin = "least-squares"
[weight-penalty]
plugin = "weight-decay"
alpha = 0.1
EOF
  against_ranks "two-$ext" "$work/two-$ext.toml"
done

cat > "$work/sorted.toml" <<'EOF'
name = "mpi e2e: waveform sorted by class, per-class gmm + bayes"
seed = 33
[data]
train = "waveform-sorted.csv"
standardize = true
[basis]
plugin = "gaussian"
density = true
[centres]
plugin = "gmm"
mode = "per-class"
count = 2
covariance = "diagonal"
iterations = 20
[output]
plugin = "bayes"
[evaluate]
folds = 3
EOF
against_ranks sorted-by-class "$work/sorted.toml"
