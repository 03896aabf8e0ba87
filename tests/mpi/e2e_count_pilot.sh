#!/usr/bin/env bash
# The auto count's pilot (8,000 rows of a disc's inside and outside with a margin between them:
# auto count 1,069): its 200 centres are fitted on the selection's rows, drawn by row number in
# the whole file, so the pilot's error rate, its choice and the model are one process's under 1,
# 2 and 3 ranks (e2e_lib.sh, against_ranks). The width scale is given and only the penalty of
# the default's (rkhs) chosen: the pilot's whole grid of widths reaches some whose Gram is
# singular to rounding (the curves' dof at alpha = 1e-9 of the mean eigenvalue then differ by
# 1e-3 between rank counts, the choice and the weights not).
#   e2e_count_pilot.sh BIN_DIR SOURCE_DIR MPIRUN_SH
source "$(dirname "$0")/e2e_lib.sh"

/usr/bin/python3 - "$work" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(6)
n = 8000
x = rng.uniform(size=(2 * n, 2))
r = np.hypot(x[:, 0] - 0.5, x[:, 1] - 0.5)
keep = (r < 0.28) | (r > 0.32)
x, r = x[keep][:n], r[keep][:n]
np.save(f"{sys.argv[1]}/disc.npy", np.column_stack([x, r < 0.3]).astype("<f8"))
PY

cat > "$work/disc.toml" <<'TOML'
name = "mpi e2e: 8000 rows, the auto count's pilot"
seed = 17
[data]
train = "disc.npy"
[basis]
plugin = "gaussian"
width_scale = 0.5
[centres]
plugin = "kmeans"
[weight-penalty]
plugin = "rkhs"
alpha = "choose"
[output]
plugin = "least-squares"
TOML
export E2E_COMPARE_REL=1e-8
against_ranks count-pilot "$work/disc.toml"
/usr/bin/python3 - "$work"/count-pilot-{single,np1,np2,np3}.json <<'PY'
import json, sys
runs = [json.load(open(f)) for f in sys.argv[1:]]
runs = [r["selection"] for r in runs]
s = runs[0]
p = s["pilot"]
assert p["centres"] == 200 and p["count"] == 200, p
assert p["loo_error"] + p["standard_error"] <= 0.005, p
assert s["chosen"]["centres.count"] == 200, s["chosen"]
for r in runs[1:]:
    assert r["pilot"] == p, (r["pilot"], p)
    for key, value in s["chosen"].items():
        assert abs(r["chosen"][key] - value) <= 1e-9 * abs(value), (key, r["chosen"][key], value)
print(f"ok: pilot {p}, chosen {s['chosen']} under 1, 2 and 3 ranks")
PY
