#!/usr/bin/env bash
# The auto count's pilot (8,000 rows of two separable classes: auto count 1,069): its 200
# centres are fitted on the selection's rows, drawn by row number in the whole file, so the
# pilot's error rate, its choice and the model are one process's under 1, 2 and 3 ranks
# (e2e_lib.sh, against_ranks).
#   e2e_count_pilot.sh BIN_DIR SOURCE_DIR MPIRUN_SH
source "$(dirname "$0")/e2e_lib.sh"

/usr/bin/python3 - "$work" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(6)
n = 8000
y = np.arange(n) % 2
x = rng.normal(size=(n, 2)) + 6.0 * y[:, None]
np.save(f"{sys.argv[1]}/blobs.npy", np.column_stack([x, y]).astype("<f8"))
PY

cat > "$work/blobs.toml" <<'TOML'
name = "mpi e2e: 8000 rows, the auto count's pilot"
seed = 17
[data]
train = "blobs.npy"
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
[output]
plugin = "least-squares"
TOML
export E2E_COMPARE_REL=1e-8
against_ranks count-pilot "$work/blobs.toml"
/usr/bin/python3 - "$work/count-pilot-np3.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["selection"]
p = s["pilot"]
assert p["centres"] == 200 and p["count"] == 200, p
assert p["loo_error"] + p["standard_error"] <= 0.005, p
assert s["chosen"]["centres.count"] == 200, s["chosen"]
print(f"ok: pilot {p}")
PY
