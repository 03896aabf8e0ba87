"""The polynomial term of the conditionally positive definite bases (basis.polynomial, with the
side conditions P_c^T w = 0) against SciPy's RBFInterpolator and a NumPy solve of the
constrained least-squares problem: tests/reference/rbf_interpolator/rbf_interpolator.py wrote
the expected predictions; the CLI (`radial train` + `radial predict`) and the Python estimator
must give them to 1e-8."""

import csv

import numpy as np
import pytest

from conftest import SOURCE, read_csv
from radial.sklearn import RBFRegressor

REF = SOURCE / "tests" / "reference" / "rbf_interpolator"

# case -> (basis plugin, basis parameters, centres table, weight penalty alpha or None)
EVERY_ROW = {"plugin": "subset", "all": True}
FIXED = {"plugin": "fixed", "file": str(REF / "centres.csv")}
CASES = {
    "tps1": ("thin-plate", {"polynomial": 1}, EVERY_ROW, None),
    "tps1_smooth": ("thin-plate", {"polynomial": 1}, EVERY_ROW, 0.1),
    "tps2": ("thin-plate", {"polynomial": 2}, EVERY_ROW, None),
    "cubic1": ("cubic", {"polynomial": 1}, EVERY_ROW, None),
    "cubic1_smooth": ("cubic", {"polynomial": 1}, EVERY_ROW, 0.01),
    "mq0": ("multiquadric", {"polynomial": 0, "c": 0.7}, EVERY_ROW, None),
    "ls_tps1": ("thin-plate", {"polynomial": 1}, FIXED, None),
    "ls_tps1_smooth": ("thin-plate", {"polynomial": 1}, FIXED, 0.01),
}


def expected():
    with open(REF / "expected.csv", newline="") as f:
        rows = list(csv.reader(f))
    values = np.array(rows[1:], dtype=np.float64)
    return {name: values[:, j] for j, name in enumerate(rows[0])}


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v + '"'
    return repr(v)


def pipeline_text(basis, basis_params, centres, alpha):
    lines = ["seed = 1", "[data]", f'train = "{REF / "train.csv"}"', 'target = "y"',
             'task = "regression"', "standardize = false", "[basis]", f'plugin = "{basis}"']
    lines += [f"{k} = {toml_value(v)}" for k, v in basis_params.items()]
    lines += ["[centres]"] + [f"{k} = {toml_value(v)}" for k, v in centres.items()]
    lines += ["[output]", 'plugin = "least-squares"']
    if alpha is not None:
        lines += ["[weight-penalty]", 'plugin = "rkhs"', f"alpha = {alpha!r}"]
    return "\n".join(lines) + "\n"


def close(got, want):
    # 1e-8 of the values' scale (they are of order 1)
    assert np.max(np.abs(got - want)) <= 1e-8 * max(1.0, np.max(np.abs(want))), \
        np.max(np.abs(got - want))


@pytest.mark.parametrize("case", sorted(CASES))
def test_cli_matches_the_reference(case, cli, tmp_path):
    basis, params, centres, alpha = CASES[case]
    file = tmp_path / "p.toml"
    file.write_text(pipeline_text(basis, params, centres, alpha))
    cli("train", "-q", file, "--model", tmp_path / "m.radial")
    out = cli("predict", tmp_path / "m.radial", REF / "query.csv").stdout.splitlines()
    got = np.array(list(csv.reader(out))[1:], dtype=np.float64)[:, 0]
    close(got, expected()[case])


@pytest.mark.parametrize("case", sorted(CASES))
def test_python_matches_the_reference(case, tmp_path):
    basis, params, centres, alpha = CASES[case]
    X, y, _, _ = read_csv(REF / "train.csv", "y")
    Xq = np.loadtxt(REF / "query.csv", delimiter=",", skiprows=1)
    est = RBFRegressor(basis=basis, basis_params=params, centres=centres["plugin"],
                       centres_params={k: v for k, v in centres.items() if k != "plugin"},
                       output="least-squares", weight_penalty="rkhs" if alpha else None,
                       weight_penalty_params={"alpha": alpha} if alpha else None,
                       standardize=False, random_state=1)
    est.fit(X, y)
    close(est.predict(Xq), expected()[case])


def test_the_interpolant_passes_through_the_training_rows(tmp_path):
    # Without smoothing the interpolant reproduces every training target (to rounding).
    X, y, _, _ = read_csv(REF / "train.csv", "y")
    est = RBFRegressor(basis="thin-plate", basis_params={"polynomial": 1}, centres="subset",
                       centres_params={"all": True}, standardize=False).fit(X, y)
    close(est.predict(X), y)


def test_refusals(cli, tmp_path):
    file = tmp_path / "p.toml"
    # An output layer without the side conditions.
    file.write_text(pipeline_text("thin-plate", {"polynomial": 1}, EVERY_ROW, None)
                    .replace('plugin = "least-squares"', 'plugin = "scg"'))
    done = cli("train", "-q", file, "--model", tmp_path / "m.radial", check=False)
    assert done.returncode == 2 and "side conditions" in done.stderr
    # A degree below the kernel's order - 1.
    file.write_text(pipeline_text("thin-plate", {"polynomial": 0}, EVERY_ROW, None))
    done = cli("train", "-q", file, "--model", tmp_path / "m.radial", check=False)
    assert done.returncode == 2 and "polynomial >= 1" in done.stderr
    # Smoothing a conditionally negative definite kernel (Radial's multiquadric is +sqrt).
    file.write_text(pipeline_text("multiquadric", {"polynomial": 0}, EVERY_ROW, 0.1))
    done = cli("train", "-q", file, "--model", tmp_path / "m.radial", check=False)
    assert done.returncode == 2 and "not positive semi-definite under the side conditions" \
        in done.stderr
    # More monomials (degree 2 in 2 inputs: 6) than centres (5).
    file.write_text(pipeline_text("thin-plate", {"polynomial": 2},
                                  {"plugin": "subset", "count": 5}, None))
    done = cli("train", "-q", file, "--model", tmp_path / "m.radial", check=False)
    assert done.returncode == 2 and "more centres than monomials" in done.stderr
    assert not (tmp_path / "m.radial").exists()


def test_a_broken_library_on_the_path_is_reported_not_fatal(tmp_path):
    # A stale file under a plugin's name: the module loads, lists it, and trains without it.
    import os
    import subprocess
    import sys
    (tmp_path / "libradial-basis-stale.so").write_text("not a shared library")
    code = ("import radial, json; print(json.dumps(radial.plugin_load_failures()));"
            "print(len(radial.plugins()) > 10)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "RADIAL_PLUGIN_PATH": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    failures, many = done.stdout.splitlines()
    assert str(tmp_path / "libradial-basis-stale.so") in failures and '"id": "stale"' in failures
    assert many == "True"
