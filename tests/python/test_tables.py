"""Tables as users hold them (issue 47): pandas DataFrames with numeric, text, string and
category columns, NaN and None as missing cells, and text labels, coded as `radial train`
codes the same table read from CSV; the task never guessed from many integers; messages that
name the estimator's parameter."""

import csv

import numpy as np
import pytest

import radial
from conftest import two_class
from radial.sklearn import RBFClassifier, RBFRegressor

pd = pytest.importorskip("pandas")


def shops(n=240, seed=0):
    """A table with every kind of column: numbers (float, int), object text, pandas string,
    category; NaN and None in several; text labels that depend on numbers and text."""
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x2 = rng.integers(0, 50, size=n)
    colour = rng.choice(["red", "green", "blue", "dark blue"], size=n)
    size = rng.choice(["S", "M", "L"], size=n, p=[0.6, 0.3, 0.1])
    region = rng.choice(["north", "south", "east", "west", "far, away"], size=n)
    score = x1 + (colour == "red") - 0.02 * x2 + (size == "L") + 0.3 * rng.normal(size=n)
    label = np.where(score > 0, "buys", "leaves")
    frame = pd.DataFrame({
        "x1": x1, "x2": x2,
        "colour": pd.Series(colour, dtype=object),
        "size": pd.Series(size, dtype="string"),
        "region": pd.Categorical(region),
    })
    frame.loc[3, "x1"] = np.nan
    frame.loc[7, "colour"] = None
    frame.loc[11, "size"] = pd.NA
    frame.loc[13, "region"] = np.nan
    frame.loc[17, "colour"] = np.nan
    return frame, pd.Series(label, name="label")


def write_pipeline(path, estimator, train, target):
    """The estimator's pipeline (its parameters, seed and [data] settings) as a file reading
    `train` (CSV)."""
    path.write_text(estimator._pipeline(estimator._seed(),
                                        {"train": str(train), "target": target}).text)


def test_a_dataframe_trains_and_predicts_as_the_same_table_through_the_cli(cli, tmp_path):
    frame, y = shops()
    train, test = frame.iloc[:180], frame.iloc[180:]
    clf = RBFClassifier(missing="mean", random_state=3).fit(train, y.iloc[:180])
    predicted = clf.predict(test)
    assert set(predicted) <= {"buys", "leaves"} and list(clf.classes_) == ["buys", "leaves"]
    assert list(clf.feature_names_in_) == ["x1", "x2", "colour", "size", "region"]
    assert clf.n_features_in_ == 5
    assert clf.model_.nominal_names == ["colour", "size", "region"]
    assert "colour=dark blue" in clf.model_.feature_names
    assert "region=far, away" in clf.model_.feature_names

    # The same table as CSV, as a user writes it with pandas, through `radial train`.
    table = train.assign(label=y.iloc[:180].values)
    table.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    # Every text column's first cell is text, so the CLI finds the same nominal columns.
    write_pipeline(tmp_path / "p.toml", clf, tmp_path / "train.csv", "label")
    cli("train", "-q", tmp_path / "p.toml", "--model", tmp_path / "m.radial")
    out = cli("predict", tmp_path / "m.radial", tmp_path / "test.csv").stdout.splitlines()
    assert list(csv.reader(out))[0] == ["label"]
    assert [row[0] for row in csv.reader(out[1:])] == list(predicted)
    # The CLI's model codes the same columns, and scales them the same way.
    from_cli = radial.load(tmp_path / "m.radial")
    assert from_cli.feature_names == clf.model_.feature_names
    assert np.array_equal(from_cli.centres, clf.model_.centres)

    # radial.Model.predict takes the raw rows: the DataFrame, or an object array in the
    # model's raw column order; the same labels (as class indices for the estimator's model).
    indices = clf.model_.predict(test)
    assert list(clf.classes_[indices.astype(int)]) == list(predicted)
    rows = test.astype(object).to_numpy()
    assert np.array_equal(clf.model_.predict(rows), indices)
    assert list(from_cli.predict(test)) == list(predicted)
    # A frame with the columns in another order and an extra one reads by name.
    shuffled = test[["region", "x2", "size", "colour", "x1"]].assign(extra=1.0)
    assert list(from_cli.predict(shuffled)) == list(predicted)


def test_regression_on_a_dataframe_and_pickling(tmp_path):
    import pickle
    frame, _ = shops()
    target = 0.05 * frame["x2"].to_numpy() + 1.5 * (frame["colour"] == "red").to_numpy()
    X = frame
    reg = RBFRegressor(missing="median", random_state=0).fit(X, target)
    assert reg.score(X, target) > 0.5
    again = pickle.loads(pickle.dumps(reg))
    assert np.array_equal(again.predict(X), reg.predict(X))


def test_missing_cells_are_refused_with_the_estimators_parameter():
    frame, y = shops()
    with pytest.raises(radial.DataError) as caught:
        RBFClassifier().fit(frame, y)
    message = str(caught.value)
    # The first missing cell is x1's NaN (line 5 of the table as CSV, row 3).
    assert message.startswith("X (as CSV):5:")
    assert "empty cell in column 'x1'" in message
    assert 'RBFClassifier(missing=...): "drop-rows", "mean", "median" or "em"' in message
    # An empty cell of a text column is a missing category, not a missing number.
    text_only = frame.drop(columns="x1")
    with pytest.raises(radial.DataError) as caught:
        RBFClassifier().fit(text_only, y)
    message = str(caught.value)
    assert "empty cell in the text column 'colour' (a nominal input); fill in a category" \
        in message
    assert "fill in a number" not in message and '"em"' in message
    # NaN in a float array: the estimator's parameter, "em" among the choices (scikit-learn's
    # own message would suggest another estimator).
    X, labels = two_class(40)
    X[5, 1] = np.nan
    with pytest.raises(radial.DataError) as caught:
        RBFClassifier().fit(X, labels)
    assert str(caught.value).startswith("X[5, 1] is NaN, a missing value (1 in X); give "
                                        'RBFClassifier(missing="mean"), "median" or "em"')
    with pytest.raises(radial.DataError, match=r'RBFRegressor\(missing="mean"\)'):
        RBFRegressor().fit(X, labels)
    # A model without missing values refuses them at predict too, naming the parameter.
    fitted = RBFClassifier(random_state=0).fit(
        text_only.fillna({"colour": "red", "size": "S", "region": "north"}), y)
    with pytest.raises(radial.DataError) as caught:
        fitted.predict(text_only.iloc[:10])
    assert "empty cell in the text column 'colour'" in str(caught.value)
    assert "RBFClassifier(missing=...)" in str(caught.value)


def test_many_integer_values_are_never_silently_classes():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(300, 2))
    price = np.round(100000 + 200000 * X[:, 0] + 5000 * rng.normal(size=300))
    with pytest.raises(radial.DataError) as caught:
        radial.Pipeline({"basis": {"plugin": "gaussian"}, "centres": {"plugin": "kmeans"},
                         "output": {"plugin": "least-squares"}}).fit(X, price)
    message = str(caught.value)
    assert "distinct integer values in 300 rows" in message
    assert 'set task = "regression" in [data]' in message
    model = radial.Pipeline({"data": {"task": "regression"}, "basis": {"plugin": "gaussian"},
                             "centres": {"plugin": "kmeans"},
                             "output": {"plugin": "least-squares"}}).fit(X, price)
    assert model.task == "regression"
    assert model.report["data"]["task"] == "regression"
    assert model.report["data"]["task_from"] == "data.task"
    # The estimators say their task, so a regressor takes the prices as they are.
    assert RBFRegressor(random_state=0).fit(X, price).model_.task == "regression"
    small = radial.Pipeline({"basis": {"plugin": "gaussian"}, "centres": {"plugin": "kmeans"},
                             "output": {"plugin": "least-squares"}}).fit(*two_class(60))
    assert (small.report["data"]["task"], small.report["data"]["classes"],
            small.report["data"]["task_from"]) == ("classification", 2, "integer target")


def test_nominal_scale_is_an_estimator_parameter():
    frame, y = shops()
    X = frame.fillna({"x1": 0.0, "colour": "red", "size": "S", "region": "north"})
    new = RBFClassifier(random_state=0).fit(X, y)
    old = RBFClassifier(random_state=0, nominal_scale="category").fit(X, y)
    assert 'nominal_scale = "input"' in new.model_.pipeline_text
    assert 'nominal_scale = "category"' in old.model_.pipeline_text
    assert not np.array_equal(new.model_.centres, old.model_.centres)
    with pytest.raises(radial.PipelineError, match="nominal_scale is one of input"):
        RBFClassifier(nominal_scale="per-column").fit(X, y)


def test_unseen_categories_are_zeros_by_default_or_refused_naming_the_parameter():
    frame, y = shops()
    X = frame.fillna({"x1": 0.0, "colour": "red", "size": "S", "region": "north"})
    new_rows = X.iloc[:4].astype({"colour": object}).copy()
    new_rows.loc[new_rows.index[1], "colour"] = "violet"
    predicted = RBFClassifier(random_state=0).fit(X, y).predict(new_rows)
    assert len(predicted) == 4
    strict = RBFClassifier(random_state=0, unseen="error").fit(X, y)
    with pytest.raises(radial.DataError) as caught:
        strict.predict(new_rows)
    message = str(caught.value)
    assert message.startswith("X (as CSV):3:")
    assert 'category "violet" of input column \'colour\' does not occur in the training data' \
        in message
    assert message.endswith('give RBFClassifier(unseen="zeros") to read unseen categories as '
                            "all-zero indicators, or remove the row")


def test_raw_rows_of_the_wrong_shape_or_kind_are_refused():
    frame, y = shops()
    X = frame.fillna({"x1": 0.0, "colour": "red", "size": "S", "region": "north"})
    clf = RBFClassifier(output="irls", random_state=0).fit(X, y)
    # Probabilities of raw rows, as predict reads them.
    proba = clf.predict_proba(X.iloc[:5])
    assert proba.shape == (5, 2) and np.allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(clf.model_.predict_proba(X.iloc[:5]), proba)
    # An object array needs the model's raw columns, in order.
    with pytest.raises(radial.ShapeError) as caught:
        clf.model_.predict(X.iloc[:5, :4].astype(object).to_numpy())
    assert str(caught.value) == ("X has 4 columns but the model reads 5 raw columns (x1, x2, "
                                 "colour, size, region); give them in this order, or a "
                                 "DataFrame with these column names")
    # Text cells for an estimator fitted on numbers only.
    numbers = RBFClassifier(random_state=0).fit(*two_class(40))
    with pytest.raises(ValueError, match="X holds text cells, but this estimator was fitted on "
                                         "numbers only"):
        numbers.predict(np.array([["a", 1.0], ["b", 2.0]], dtype=object))
