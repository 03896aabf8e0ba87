#!/usr/bin/env bash
# centres.count = "choose" above 800 centres (8,000 rows: auto count 1,069): the validation
# curve's hold-out and each count's rows are drawn by row number in the whole file, so the
# curve, the chosen count and the model are one process's under 1, 2 and 3 ranks
# (e2e_lib.sh, against_ranks).
#   e2e_count_curve.sh BIN_DIR SOURCE_DIR MPIRUN_SH
source "$(dirname "$0")/e2e_lib.sh"

/usr/bin/python3 - "$work" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(5)
n = 8000
x = rng.uniform(size=(n, 2))
y = ((x[:, 0] * 8).astype(int) + (x[:, 1] * 8).astype(int)) % 2
flip = rng.uniform(size=n) < 0.05
y = np.where(flip, 1 - y, y)
np.save(f"{sys.argv[1]}/board.npy", np.column_stack([x, y]).astype("<f8"))
PY

cat > "$work/board.toml" <<'TOML'
name = "mpi e2e: 8000 rows, centres.count = choose by the validation curve"
seed = 13
[data]
train = "board.npy"
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
count = "choose"
[output]
plugin = "least-squares"
TOML
# The closed-form path of the width on the subset: as e2e_selection_sample.sh, to 1e-8.
export E2E_COMPARE_REL=1e-8
against_ranks count-curve "$work/board.toml"
/usr/bin/python3 - "$work/count-curve-np3.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["selection"]["count_curve"]
assert c["count"][0] == 267 and len(c["count"]) >= 2, c
assert abs(c["held_out"] - 1600) < 200, c
print(f"ok: counts {c['count']}, held-out errors {c['error']} on {c['held_out']} rows")
PY
