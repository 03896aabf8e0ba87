"""radial.plugins(), Pipeline from file / text / dict with set(), fit, predict, report, files.
Values checked against an independent computation (NumPy least squares on the thin-plate
design matrix) and the pipeline files themselves."""

import pickle

import numpy as np
import pytest

import radial
from conftest import EXAMPLES, two_class


def test_plugins_lists_every_slot_with_parameter_tables():
    plugins = radial.plugins()
    slots = {p["slot"] for p in plugins}
    assert {"basis", "centres", "output"} <= slots
    kmeans = next(p for p in plugins if p["id"] == "kmeans")
    count = next(q for q in kmeans["params"] if q["name"] == "count")
    assert count["type"] == "integer" and count["default"] == "auto" and count["min"] == 1
    assert kmeans["version"] and kmeans["library"].endswith(".so")


def test_pipeline_from_file_text_and_dict_agree():
    from_file = radial.Pipeline(EXAMPLES / "two-class-kmeans-thin-plate.toml")
    as_dict = {"name": "d", "seed": 1, "basis": {"plugin": "thin-plate"},
               "centres": {"plugin": "kmeans", "count": 10},
               "output": {"plugin": "least-squares"}}
    from_dict = radial.Pipeline(as_dict)
    from_text = radial.Pipeline(text=radial._toml.dumps(as_dict))
    assert from_file.components == from_dict.components == from_text.components
    assert from_file.components["centres"]["params"]["count"] == 10
    from_dict.set("centres.count", 12)
    assert from_dict.components["centres"]["params"]["count"] == 12
    assert "centres.count=12" in from_dict.text  # overrides noted, as the CLI's --set


def test_fit_from_files_equals_fit_on_arrays_of_the_same_files():
    pipeline = radial.Pipeline(EXAMPLES / "three-class-iris.toml")
    from conftest import read_csv
    X, y, names, target = read_csv(EXAMPLES / "data" / "iris.csv")
    a = pipeline.fit()
    b = pipeline.fit(X, y, feature_names=names, target_name=target)
    assert a._handle.bytes_without_report() == b._handle.bytes_without_report()
    assert a.classes == [0.0, 1.0, 2.0]


def test_thin_plate_least_squares_weights_match_numpy():
    # Independent check: phi(r) = r^2 log r on the model's own centres, bias column last,
    # least squares by NumPy.
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(150, 2))
    y = np.sin(3 * X[:, 0]) + X[:, 1] ** 2
    pipeline = radial.Pipeline({"data": {"standardize": False, "task": "regression"},
                                "basis": {"plugin": "thin-plate"},
                                "centres": {"plugin": "kmeans", "count": 12},
                                "output": {"plugin": "least-squares"}})
    model = pipeline.fit(X, y, seed=5)
    C = model.centres
    r = np.sqrt(((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2))
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = np.where(r > 0, r ** 2 * np.log(r), 0.0)
    design = np.hstack([phi, np.ones((len(X), 1))])
    w, *_ = np.linalg.lstsq(design, y, rcond=None)
    np.testing.assert_allclose(model.weights[:, 0], w, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(model.predict(X), design @ w, rtol=1e-9, atol=1e-9)


def test_c_and_fortran_order_give_the_same_model():
    X, y = two_class()
    pipeline = radial.Pipeline({"basis": {"plugin": "gaussian"},
                                "centres": {"plugin": "kmeans", "count": 6},
                                "output": {"plugin": "irls"}})
    a = pipeline.fit(np.ascontiguousarray(X), y, seed=2)
    b = pipeline.fit(np.asfortranarray(X), y, seed=2)
    c = pipeline.fit(np.hstack([X, X])[:, :2], y, seed=2)  # strided view
    assert a._handle.bytes_without_report() == b._handle.bytes_without_report()
    assert a._handle.bytes_without_report() == c._handle.bytes_without_report()
    p = a.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    assert np.array_equal(a.predict(X), np.argmax(p, axis=1).astype(float))


def test_report_has_learning_curve_and_save_load_round_trip(tmp_path):
    X, y = two_class()
    pipeline = radial.Pipeline({"basis": {"plugin": "gaussian"},
                                "centres": {"plugin": "kmeans", "count": 6},
                                "output": {"plugin": "irls"}})
    model = pipeline.fit(X, y, seed=4)
    report = model.report
    assert report["data"]["train_rows"] == 200
    assert len(report["output"]["learning_curve"]) >= 1
    model.save(tmp_path / "m.radial")
    loaded = radial.load(tmp_path / "m.radial")
    assert loaded.to_bytes() == model.to_bytes()
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert loaded.report == report
    again = pickle.loads(pickle.dumps(model))
    assert np.array_equal(again.predict_proba(X), model.predict_proba(X))


def test_text_labels_round_trip_through_fit_predict_save_and_the_files(tmp_path):
    # Species names in an order their codes do not follow; the expected coding is NumPy's
    # np.unique (sorted labels), independent of Radial's reader.
    from conftest import read_csv
    X, codes, names, target = read_csv(EXAMPLES / "data" / "iris.csv")
    species = np.array(["setosa", "versicolor", "Virginica"])[codes.astype(int)]
    expected_classes, expected_codes = np.unique(species, return_inverse=True)
    pipeline = radial.Pipeline(EXAMPLES / "three-class-iris.toml")
    by_text = pipeline.fit(X, species, feature_names=names, target_name=target)
    by_code = pipeline.fit(X, expected_codes.astype(np.float64), feature_names=names,
                           target_name=target)
    assert by_text.classes == list(expected_classes) == ["Virginica", "setosa", "versicolor"]
    predicted = by_text.predict(X)
    assert predicted.dtype.kind == "U"
    assert list(predicted) == list(expected_classes[by_code.predict(X).astype(int)])
    assert np.array_equal(by_text.weights, by_code.weights)
    # A list of str is text labels too; a test set is coded by the training names.
    listed = pipeline.fit(X, list(species), X, list(species), feature_names=names,
                          target_name=target)
    assert listed.report["test"]["error_rate"] == np.mean(predicted != species)
    with pytest.raises(radial.DataError, match=r"y_test\[0\]: class label \"virginica\""):
        pipeline.fit(X, species, X[:1], np.array(["virginica"]))
    # The model file keeps the names; the CSV reader gives the same model as the arrays.
    by_text.save(tmp_path / "m.model")
    assert radial.load(tmp_path / "m.model").classes == by_text.classes
    with open(tmp_path / "iris.csv", "w") as f:
        f.write(",".join(names + [target]) + "\n")
        for row, label in zip(X, species):
            f.write(",".join(repr(float(v)) for v in row) + "," + label + "\n")
    text = (EXAMPLES / "three-class-iris.toml").read_text().replace(
        "data/iris.csv", str(tmp_path / "iris.csv"))
    (tmp_path / "p.toml").write_text(text)
    from_file = radial.Pipeline(tmp_path / "p.toml").fit()
    assert from_file.classes == by_text.classes
    assert np.array_equal(from_file.weights, by_text.weights)
    assert list(from_file.predict(X)) == list(predicted)
