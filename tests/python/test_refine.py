"""Whole-network training from Python ([refine] in a pipeline dict): per-input widths learned
end to end find the relevant inputs among irrelevant ones, which one shared width cannot
(issue 27: friedman1 with 95 standard-normal noise columns; ERBF's defaults reach R^2 0.994), and
the model exposes the refined shapes. About 15 s on 2 cores."""
import numpy as np
import pytest
import radial

sklearn = pytest.importorskip("sklearn")
from sklearn.datasets import make_friedman1  # noqa: E402
from sklearn.model_selection import KFold  # noqa: E402


def spec(refine):
    s = {"name": "noise", "seed": 1, "data": {"standardize": True, "task": "regression"},
         "basis": {"plugin": "gaussian", "width_rule": "nearest", "width_scale": 1.0},
         "centres": {"plugin": "kmeans", "count": 15},
         "output": {"plugin": "least-squares"},
         "weight-penalty": {"plugin": "weight-decay", "alpha": 1e-3}}
    if refine:
        s["refine"] = {"plugin": "lbfgs", "iterations": 2000, "widths": "diagonal"}
    return s


def test_per_input_widths_find_the_relevant_inputs():
    x, y = make_friedman1(n_samples=2000, noise=0.1, random_state=42)
    x = np.hstack([x, np.random.RandomState(0).standard_normal((2000, 95))])
    tr, te = next(KFold(5, shuffle=True, random_state=0).split(x))

    def r2(model):
        p = model.predict(x[te]).ravel()
        return 1 - ((p - y[te]) ** 2).sum() / ((y[te] - y[te].mean()) ** 2).sum()

    two_stage = radial.Pipeline(spec(False)).fit(x[tr], y[tr], seed=1)
    refined = radial.Pipeline(spec(True)).fit(x[tr], y[tr], seed=1)
    assert r2(two_stage) < 0.5
    # The bar comes from the spread over seeds (issue 46: 0.9895 on one machine against a bar
    # of 0.99 tuned at 0.992). Seeds 1-8 here: refined 0.9889 to 0.9982 (seed 1: 0.9928), two
    # stages -0.03 to 0.07; the bar is the lowest less that spread (0.009), so another BLAS
    # kernel or machine cannot cross it while the refinement still finds the inputs.
    assert r2(refined) >= 0.98
    report = refined.report["refine"]
    assert report["final_error"] < report["figures"]["start_error"]
    # The start's spherical shapes (one variance per centre, the nearest-centre rule) are now
    # diagonal: one positive variance per centre and input.
    assert two_stage.shapes.shape == (15, 1)
    shapes = refined.shapes
    assert shapes.shape == (15, 105)
    assert np.all(np.isfinite(shapes)) and np.all(shapes > 0)
    assert not np.allclose(shapes, shapes[:, :1])


def test_estimators_take_a_refiner():
    from radial.sklearn import RBFClassifier
    from sklearn.base import clone
    d = np.loadtxt(radial_examples() / "data" / "iris.csv", delimiter=",", skiprows=1)
    x, y = d[:, :-1], d[:, -1]
    plain = RBFClassifier(centres_params={"count": 6}, random_state=0).fit(x, y)
    refined = RBFClassifier(centres_params={"count": 6}, refine="lbfgs",
                            refine_params={"iterations": 50}, random_state=0).fit(x, y)
    assert "refine" not in plain.report_
    r = refined.report_["refine"]
    assert r["plugin"] == "lbfgs" and 0 < r["iterations"] <= 50
    assert r["final_error"] < r["figures"]["start_error"]
    assert clone(refined).get_params()["refine_params"] == {"iterations": 50}
    with pytest.raises(ValueError, match="refine_params"):
        RBFClassifier(refine_params={"iterations": 5}).fit(x, y)


def radial_examples():
    import os
    import pathlib
    return pathlib.Path(os.environ.get("RADIAL_SOURCE_DIR", ".")) / "docs" / "examples"
