"""The classic RBF algorithms from Python and from the CLI: OLS centres, GRNN and PNN, named in
the estimators and in a pipeline like any other plugin. Predictions against the direct formulas
in NumPy (Specht 1991 eq 3, Specht 1990), the OLS network's training error against least squares
on the centres it chose, and the CLI giving the Python estimator's predictions."""

import json

import numpy as np
import pytest

from conftest import EXAMPLES, SOURCE, read_csv
from radial.sklearn import RBFClassifier, RBFRegressor

DATA = EXAMPLES / "data"


def kernels(x, train, sigma):
    d2 = ((x[:, None, :] - train[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-d2 / (2.0 * sigma ** 2))


def test_grnn_is_specht_eq_3():
    x, y, _, _ = read_csv(DATA / "sine.train.csv")
    xt, _, _, _ = read_csv(DATA / "sine.test.csv")
    model = RBFRegressor(basis_params={"width": 0.05}, centres="subset",
                         centres_params={"all": True}, output="grnn", standardize=False,
                         random_state=0).fit(x, y)
    k = kernels(xt, x, 0.05)
    np.testing.assert_allclose(model.predict(xt), (k @ y) / k.sum(axis=1), rtol=1e-11)


def test_pnn_posteriors_and_equal_priors():
    x, y, _, _ = read_csv(DATA / "iris.csv")
    for priors in ("data", "equal"):
        model = RBFClassifier(basis_params={"width": 0.5}, centres="subset",
                              centres_params={"all": True}, output="pnn",
                              output_params={"priors": priors}, standardize=False,
                              random_state=0).fit(x, y)
        k = kernels(x, x, 0.5)
        f = np.column_stack([k[:, y == c].mean(axis=1) for c in (0, 1, 2)])
        n = np.array([(y == c).sum() for c in (0, 1, 2)], dtype=float)
        h = n / n.sum() if priors == "data" else np.full(3, 1 / 3)
        p = f * h
        np.testing.assert_allclose(model.predict_proba(x), p / p.sum(axis=1, keepdims=True),
                                   rtol=1e-11, atol=1e-15)


def test_ols_network_has_the_columns_it_chose():
    x, y, _, _ = read_csv(DATA / "sine.train.csv")
    model = RBFRegressor(basis_params={"width": 0.1}, centres="ols",
                         centres_params={"count": 10}, standardize=False,
                         random_state=0).fit(x, y)
    rows = [int(r) for r in model.report_["centres"]["series"]["selected_rows"]]
    design = np.column_stack([kernels(x, x[rows], 0.1), np.ones(len(y))])
    fitted = design @ np.linalg.lstsq(design, y, rcond=None)[0]
    np.testing.assert_allclose(model.predict(x), fitted, rtol=1e-8, atol=1e-10)


def test_ols_reestimated_lambda_from_python():
    # lambda = "reestimate" named from the estimator: the rows chosen and Orr's lambda after
    # each step are the NumPy reference's (tests/reference/ols_reference.py).
    reference = json.loads((SOURCE / "tests" / "reference" / "ols" /
                            "ols_reference.json").read_text())
    case = next(c for c in reference["cases"] if c["name"] == "sine reestimate gcv")
    x, y, _, _ = read_csv(DATA / "sine.train.csv")
    model = RBFRegressor(basis_params={"width": 0.1}, centres="ols",
                         centres_params={"count": 60, "stop": "gcv", "lambda": "reestimate",
                                         "candidates": 0},
                         standardize=False, random_state=0).fit(x, y)
    series = model.report_["centres"]["series"]
    assert [int(r) for r in series["selected_rows"]] == case["selected"]
    np.testing.assert_allclose(series["lambda"], case["lambda_path"], rtol=1e-8)


@pytest.mark.parametrize("output", ["least-squares", "grnn"])
def test_cli_and_python_agree(cli, tmp_path, output):
    centres = ('plugin = "ols"\ncount = 12\nstop = "gcv"' if output == "least-squares"
               else 'plugin = "subset"\nall = true')
    pipeline = tmp_path / "p.toml"
    pipeline.write_text(f'seed = 3\n[data]\ntrain = "{DATA / "sine.train.csv"}"\n'
                        f'[basis]\nplugin = "gaussian"\nwidth = 0.3\n'
                        f'[centres]\n{centres}\n[output]\nplugin = "{output}"\n')
    cli("train", pipeline, "--quiet", "--model", tmp_path / "m.model")
    done = cli("predict", tmp_path / "m.model", DATA / "sine.test.csv")
    from_cli = np.loadtxt(done.stdout.splitlines()[1:], delimiter=",")
    x, y, _, _ = read_csv(DATA / "sine.train.csv")
    xt, _, _, _ = read_csv(DATA / "sine.test.csv")
    params = ({"count": 12, "stop": "gcv"} if output == "least-squares" else {"all": True})
    model = RBFRegressor(basis_params={"width": 0.3},
                         centres="ols" if output == "least-squares" else "subset",
                         centres_params=params, output=output, random_state=3).fit(x, y)
    ours = from_cli if from_cli.ndim == 1 else from_cli[:, -1]
    np.testing.assert_allclose(model.predict(xt), ours, rtol=1e-9, atol=1e-12)
