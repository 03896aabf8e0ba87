"""radial.sklearn: scikit-learn's own estimator checks, model selection over slot parameters,
and the estimators being the radial pipeline they describe."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

import radial
from radial.sklearn import RBFClassifier, RBFRegressor
from conftest import EXAMPLES, read_csv


@pytest.mark.parametrize("estimator", [RBFClassifier(), RBFRegressor()],
                         ids=["classifier", "regressor"])
def test_check_estimator(estimator):
    with warnings.catch_warnings():
        # Checks needing pandas (not a dependency) are skipped with a SkipTestWarning.
        warnings.simplefilter("ignore")
        check_estimator(estimator)


def iris():
    X, y, _, _ = read_csv(EXAMPLES / "data" / "iris.csv")
    return X, y


def test_grid_search_over_centre_count():
    X, y = iris()
    # Width 1 on standardised inputs; the default (NETLAB's rule: the largest squared distance
    # between centres) is too wide for iris.
    base = RBFClassifier(basis_params={"width": 1.0}, centres_params={"count": 2}, random_state=0)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    search = GridSearchCV(base, {"centres_params__count": [2, 4, 8]}, cv=cv).fit(X, y)
    assert base.centres_params == {"count": 2}  # the caller's dict is not modified
    for count, score in zip([2, 4, 8], search.cv_results_["mean_test_score"]):
        one = RBFClassifier(basis_params={"width": 1.0}, centres_params={"count": count},
                            random_state=0)
        assert score == pytest.approx(cross_val_score(one, X, y, cv=cv).mean(), abs=1e-12)
    best = search.best_params_["centres_params__count"]
    assert search.best_estimator_.centres_params == {"count": best}
    assert search.best_estimator_.model_.centres.shape == (best, 4)
    assert search.best_score_ > 0.85


def test_estimator_is_the_pipeline_it_names():
    X, y = iris()
    names = np.array(["setosa", "versicolor", "virginica"])
    labels = names[y.astype(int)]
    est = RBFClassifier(basis="thin-plate", centres_params={"count": 6}, output="irls",
                        weight_penalty="weight-decay", weight_penalty_params={"alpha": 0.01},
                        random_state=7).fit(X, labels)
    assert list(est.classes_) == ["setosa", "versicolor", "virginica"]
    assert est.n_features_in_ == 4
    direct = radial.Pipeline({"seed": 7, "threads": 1,
                              "data": {"standardize": True, "task": "classification"},
                              "basis": {"plugin": "thin-plate"},
                              "centres": {"plugin": "kmeans", "count": 6},
                              "output": {"plugin": "irls"},
                              "weight-penalty": {"plugin": "weight-decay", "alpha": 0.01}})
    model = direct.fit(X, y)
    assert np.array_equal(est.predict_proba(X), model.predict_proba(X))
    assert np.array_equal(est.predict(X), names[model.predict(X).astype(int)])
    assert est.report_["data"]["train_rows"] == 150


def test_kernel_prior_is_its_own_slot():
    X, y = iris()
    est = RBFClassifier(basis="gaussian", basis_params={"density": True}, centres="prbf",
                        centres_params={"count": 4, "iterations": 10}, output="bayes",
                        kernel_prior="bhattacharyya", kernel_prior_params={"alpha": 10},
                        random_state=3).fit(X, y)
    spec = {"seed": 3, "threads": 1, "data": {"standardize": True, "task": "classification"},
            "basis": {"plugin": "gaussian", "density": True},
            "centres": {"plugin": "prbf", "count": 4, "iterations": 10},
            "output": {"plugin": "bayes"}}
    with_prior = radial.Pipeline({**spec, "kernel-prior": {"plugin": "bhattacharyya",
                                                           "alpha": 10}}).fit(X, y)
    without = radial.Pipeline(spec).fit(X, y)
    assert np.array_equal(est.predict_proba(X), with_prior.predict_proba(X))
    assert not np.array_equal(est.predict_proba(X), without.predict_proba(X))
    with pytest.raises(ValueError, match="kernel_prior_params .* given without kernel_prior"):
        RBFClassifier(kernel_prior_params={"alpha": 1}).fit(X, y)


# The deprecated regularizer= (radial/pipeline/legacy_prior_table.hpp) is the compatibility path that
# tests/naming/check_slot_names.py allows this file to name.
def test_deprecated_regularizer_goes_to_its_plugins_slot():
    X, y = iris()
    common = dict(basis="thin-plate", centres_params={"count": 6}, output="irls", random_state=7)
    new = RBFClassifier(weight_penalty="weight-decay", weight_penalty_params={"alpha": 0.01},
                        **common).fit(X, y)
    old = RBFClassifier(regularizer="weight-decay", regularizer_params={"alpha": 0.01}, **common)
    assert old.get_params()["regularizer_params__alpha"] == 0.01
    with pytest.warns(FutureWarning, match="use weight_penalty= and weight_penalty_params="):
        old.fit(X, y)
    assert np.array_equal(old.predict_proba(X), new.predict_proba(X))
    assert "deprecated-table" in [w["guard"] for w in old.report_["warnings"]]
    assert "deprecated-table" not in [w["guard"] for w in new.report_["warnings"]]


def test_in_a_pipeline_with_cross_val_score_and_clone():
    X, y = iris()
    pipe = make_pipeline(StandardScaler(), RBFClassifier(basis_params={"width": 1.0}, output="irls",
                                                         centres_params={"count": 6},
                                                         random_state=0))
    scores = cross_val_score(pipe, X, y, cv=5)
    assert scores.mean() > 0.9
    copy = clone(pipe)
    assert copy.get_params()["rbfclassifier__centres_params__count"] == 6


def test_regressor_matches_a_sine():
    X, y, _, _ = read_csv(EXAMPLES / "data" / "sine.train.csv", "y")
    Xt, yt, _, _ = read_csv(EXAMPLES / "data" / "sine.test.csv", "y")
    est = RBFRegressor(basis_params={"width": 1.0}, centres_params={"count": 10},
                       random_state=0).fit(X, y)
    assert est.score(Xt, yt) > 0.9


def test_missing_em_estimator_takes_nan_and_beats_mean_imputation_on_iris():
    # missing="em" keeps NaN cells missing (mixture EM over the observed inputs, the Bayes
    # posterior of the marginal densities); "error" refuses them as scikit-learn does.
    X, y = iris()
    X = np.where(np.random.default_rng(0).random(X.shape) < 0.2, np.nan, X)
    common = dict(basis_params={"density": True}, centres="gmm",
                  centres_params={"mode": "per-class", "count": 2}, output="bayes",
                  random_state=0, threads=1)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    em = cross_val_score(RBFClassifier(missing="em", **common), X, y, cv=folds).mean()
    mean = cross_val_score(RBFClassifier(missing="mean", **common), X, y, cv=folds).mean()
    assert em >= mean
    assert RBFClassifier(missing="em", **common).fit(X, y).model_.pipeline_text.count('"em"')
    with pytest.raises(ValueError, match="NaN"):
        RBFClassifier(**common).fit(X, y)
