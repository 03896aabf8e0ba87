#!/usr/bin/env bash
# Model selection on a sample (more than selection_sample_rows = 100000 training rows): the
# sample is drawn by row number in the whole file, so it is the same rows, and the choice the
# same, under 1, 2 and 3 ranks as in one process (e2e_lib.sh, against_ranks). 130001 rows: no
# rank count divides them.
#   e2e_selection_sample.sh BIN_DIR SOURCE_DIR MPIRUN_SH
source "$(dirname "$0")/e2e_lib.sh"

/usr/bin/python3 - "$work" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(7)
n = 130001
y = rng.integers(0, 3, size=n)
x = rng.normal(size=(n, 3)) + np.array([[0, 0, 0], [2, 0, 1], [0, 2, -1]])[y]
np.save(f"{sys.argv[1]}/large.npy", np.column_stack([x, y]).astype("<f8"))
PY

# The defaults choose the width (closed form) and the penalty (irls's own 5-fold path).
cat > "$work/large.toml" <<'TOML'
name = "mpi e2e: 130001 rows, selection on a sample, kmeans + gaussian + irls"
seed = 41
[data]
train = "large.npy"
standardize = true
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
count = 6
iterations = 10
[output]
plugin = "irls"
link = "softmax"
TOML
# The selection's curves reach width scales where the Gram is nearly singular: there the trace
# of the hat matrix at the smallest penalties carries ~1e-10 of the sums' order (measured: 1.6e-10
# under 2 ranks), so numbers are compared to 1e-8; the model's own to the same.
export E2E_COMPARE_REL=1e-8
against_ranks selection-sample "$work/large.toml"
/usr/bin/python3 - "$work/selection-sample-np3.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["selection"]
# Each of 130001 rows kept with probability 100000 / 130001: 100000 +- 4.5 sd (sd 210).
assert s["sample_of"] == 130001 and abs(s["rows"] - 100000) < 950, (s["rows"], s["sample_of"])
print(f"ok: selection on {s['rows']} of {s['sample_of']} rows, chose {s['chosen']}")
PY
