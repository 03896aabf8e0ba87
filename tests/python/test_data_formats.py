"""The shared data sets (docs/examples/data) written by this file as ARFF, with nominal class
names, and as LIBSVM read back to the same model as from their CSV (issue 28): the same
centres, weights and outputs to the bit (for ARFF the class names in place of the numbers).
The files are written here with Python's own formatting (repr of each float), independent of
Radial's readers."""

import numpy as np
import pytest

import radial
from conftest import EXAMPLES, read_csv

DATA = EXAMPLES / "data"
SHARED = [("iris.csv", None), ("wine.csv", None), ("breast_cancer.csv", None),
          ("ionosphere.csv", None), ("waveform.csv", None),
          ("synth3_train.csv", "synth3_test.csv"), ("sine.train.csv", "sine.test.csv")]


def is_classification(y):
    return bool(np.all(y == np.round(y)))


def class_names(y):
    """Names that sort as the numbers do (c000, c001, ...): the same class indices."""
    labels = sorted(set(y.tolist()))
    return {v: f"c{k:03d}" for k, v in enumerate(labels)}


def write_arff(path, X, y, names, target, labels):
    with open(path, "w") as f:
        f.write("% the shared data set, written by tests/python/test_data_formats.py\n")
        f.write("@RELATION 'shared data'\n\n")
        for n in names:
            f.write(f"@ATTRIBUTE '{n}' NUMERIC\n")
        if labels is None:
            f.write(f"@ATTRIBUTE '{target}' REAL\n")
        else:
            f.write(f"@ATTRIBUTE '{target}' {{{','.join(sorted(labels.values()))}}}\n")
        f.write("\n@DATA\n")
        for i, (row, v) in enumerate(zip(X, y)):
            label = repr(float(v)) if labels is None else labels[v]
            if i % 3 == 2:  # every third row sparse: zeros left out
                pairs = [f"{j} {repr(float(x))}" for j, x in enumerate(row)
                         if x != 0 or np.signbit(x)]
                f.write("{" + ", ".join(pairs + [f"{len(row)} {label}"]) + "}\n")
            else:
                f.write(",".join(repr(float(x)) for x in row) + "," + label + "\n")


def pipeline_file(folder, name, train, test, classification):
    lines = ['name = "round trip"', "seed = 4", "[data]", f'train = "{train}"']
    if test:
        lines.append(f'test = "{test}"')
    lines += ["[basis]", 'plugin = "gaussian"', "[centres]", 'plugin = "kmeans"', "count = 7",
              "[output]", f'plugin = "{"irls" if classification else "least-squares"}"']
    path = folder / name
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("train,test", SHARED, ids=[t for t, _ in SHARED])
def test_arff_reads_back_to_the_model_of_the_csv(tmp_path, train, test):
    X, y, names, target = read_csv(DATA / train)
    classification = is_classification(y)
    labels = class_names(y) if classification else None
    write_arff(tmp_path / "train.arff", X, y, names, target, labels)
    arff_test = None
    if test:
        Xt, yt, _, _ = read_csv(DATA / test)
        write_arff(tmp_path / "test.arff", Xt, yt, names, target, labels)
        arff_test = tmp_path / "test.arff"
    from_csv = radial.Pipeline(pipeline_file(
        tmp_path, "csv.toml", DATA / train, test and DATA / test, classification)).fit()
    from_arff = radial.Pipeline(pipeline_file(
        tmp_path, "arff.toml", tmp_path / "train.arff", arff_test, classification)).fit()
    assert np.array_equal(from_arff.centres, from_csv.centres)
    assert np.array_equal(from_arff.weights, from_csv.weights)
    assert np.array_equal(from_arff.outputs(X), from_csv.outputs(X))
    assert from_arff.feature_names == from_csv.feature_names == names
    if classification:
        assert from_arff.classes == [labels[v] for v in from_csv.classes]
        assert list(from_arff.predict(X)) == [labels[v] for v in from_csv.predict(X)]
        if test:
            assert from_arff.report["test"]["error_rate"] == from_csv.report["test"]["error_rate"]
    else:
        assert np.array_equal(from_arff.predict(X), from_csv.predict(X))


def test_predict_and_evaluate_read_arff(tmp_path, cli):
    X, y, names, target = read_csv(DATA / "iris.csv")
    labels = class_names(y)
    write_arff(tmp_path / "iris.arff", X, y, names, target, labels)
    model = tmp_path / "m.model"
    cli("train", pipeline_file(tmp_path, "p.toml", tmp_path / "iris.arff", None, True),
        "--model", model, "--quiet")
    predicted = cli("predict", model, tmp_path / "iris.arff").stdout.split()
    assert predicted[0] == target
    loaded = radial.load(model)
    assert predicted[1:] == list(loaded.predict(X))
    report = cli("evaluate", model, tmp_path / "iris.arff").stdout
    import json
    assert json.loads(report)["error_rate"] == np.mean(loaded.predict(X) !=
                                                       np.array([labels[v] for v in y]))
    # A malformed file: file:line:column and exit 2.
    lines = (tmp_path / "iris.arff").read_text().splitlines()
    row = lines.index("@DATA") + 1  # the first data row (0-based), a dense one
    column = lines[row].rindex(",") + 2
    lines[row] = lines[row][:column - 1] + "c999"
    (tmp_path / "bad.arff").write_text("\n".join(lines) + "\n")
    for command in ("evaluate", "predict"):
        done = cli(command, model, tmp_path / "bad.arff", check=False)
        assert done.returncode == 2 and done.stdout == ""
        assert (f"{tmp_path / 'bad.arff'}:{row + 1}:{column}: value 'c999' of attribute "
                f"'{target}' is not one of its nominal values") in done.stderr


def write_libsvm(path, X, y):
    """LIBSVM rows: the label, then index:value for the non-zero inputs, 1-based."""
    with open(path, "w") as f:
        f.write("# the shared data set, written by tests/python/test_data_formats.py\n")
        for row, v in zip(X, y):
            pairs = [f"{j + 1}:{repr(float(x))}" for j, x in enumerate(row)
                     if x != 0 or np.signbit(x)]
            f.write(" ".join([repr(float(v))] + pairs) + "\n")


def libsvm_pipeline(folder, train, test, classification, d):
    path = pipeline_file(folder, "libsvm.toml", train, test, classification)
    path.write_text(path.read_text().replace("[data]\n", f"[data]\nfeatures = {d}\n"))
    return path


@pytest.mark.parametrize("train,test", SHARED, ids=[t for t, _ in SHARED])
def test_libsvm_reads_back_to_the_model_of_the_csv(tmp_path, train, test):
    X, y, names, target = read_csv(DATA / train)
    classification = is_classification(y)
    write_libsvm(tmp_path / "train.libsvm", X, y)
    libsvm_test = None
    if test:
        Xt, yt, _, _ = read_csv(DATA / test)
        write_libsvm(tmp_path / "test.libsvm", Xt, yt)
        libsvm_test = tmp_path / "test.libsvm"
    from_csv = radial.Pipeline(pipeline_file(
        tmp_path, "csv.toml", DATA / train, test and DATA / test, classification)).fit()
    from_libsvm = radial.Pipeline(libsvm_pipeline(
        tmp_path, tmp_path / "train.libsvm", libsvm_test, classification, X.shape[1])).fit()
    assert from_libsvm.feature_names == [f"x{j + 1}" for j in range(X.shape[1])]
    assert np.array_equal(from_libsvm.centres, from_csv.centres)
    assert np.array_equal(from_libsvm.weights, from_csv.weights)
    assert np.array_equal(from_libsvm.outputs(X), from_csv.outputs(X))
    assert from_libsvm.classes == from_csv.classes
    if test:
        assert from_libsvm.report["test"]["error_rate"] == from_csv.report["test"]["error_rate"]


def test_predict_and_evaluate_read_libsvm(tmp_path, cli):
    X, y, _, _ = read_csv(DATA / "wine.csv")
    write_libsvm(tmp_path / "wine.svm", X, y)
    model = tmp_path / "m.model"
    cli("train", libsvm_pipeline(tmp_path, tmp_path / "wine.svm", None, True, X.shape[1]),
        "--model", model, "--quiet")
    loaded = radial.load(model)
    predicted = cli("predict", model, tmp_path / "wine.svm").stdout.split()
    assert predicted[0] == "label"
    assert [float(v) for v in predicted[1:]] == list(loaded.predict(X))
    import json
    report = json.loads(cli("evaluate", model, tmp_path / "wine.svm").stdout)
    assert report["error_rate"] == np.mean(loaded.predict(X) != y)
    # The .npy inputs of the same rows predict the same (features x1..xd by number).
    np.save(tmp_path / "wine.npy", np.ascontiguousarray(X))
    assert cli("predict", model, tmp_path / "wine.npy").stdout.split() == predicted
    # A malformed row: file:line:column and exit 2, nothing on stdout.
    lines = (tmp_path / "wine.svm").read_text().splitlines()
    lines[5] = lines[5].replace(" 2:", " 0:", 1)
    (tmp_path / "bad.svm").write_text("\n".join(lines) + "\n")
    column = lines[5].index(" 0:") + 2
    for command in ("evaluate", "predict"):
        done = cli(command, model, tmp_path / "bad.svm", check=False)
        assert done.returncode == 2 and done.stdout == ""
        assert f"{tmp_path / 'bad.svm'}:6:{column}: index 0 is outside" in done.stderr


def test_nominal_inputs_are_coded_one_hot_inside_the_model(tmp_path, cli):
    # A text column and a column named in data.nominal; the coding is checked against a one-hot
    # made here with NumPy, and `radial predict` on the raw rows against the module on it.
    rng = np.random.default_rng(7)
    n = 120
    colour = rng.choice(["red", "green", "blue"], size=n)
    size = rng.integers(1, 4, size=n)
    x = rng.normal(size=n)
    y = ((colour == "red") ^ (x > 0)).astype(int)
    with open(tmp_path / "train.csv", "w") as f:
        f.write("x,colour,size,class\n")
        for row in zip(x, colour, size, y):
            f.write(f"{repr(float(row[0]))},{row[1]},{row[2]},{row[3]}\n")
    path = pipeline_file(tmp_path, "p.toml", tmp_path / "train.csv", None, True)
    path.write_text(path.read_text().replace("[data]\n", '[data]\nnominal = ["size"]\n'))
    model = radial.Pipeline(path).fit()
    categories = {"colour": sorted(set(colour)), "size": sorted(set(size.astype(str)))}
    assert model.feature_names == ["x"] + [f"colour={c}" for c in categories["colour"]] + \
        [f"size={s}" for s in categories["size"]]
    one_hot = np.column_stack(
        [x] + [(colour == c).astype(float) for c in categories["colour"]] +
        [(size.astype(str) == s).astype(float) for s in categories["size"]])
    model.save(tmp_path / "m.model")
    predicted = cli("predict", tmp_path / "m.model", tmp_path / "train.csv").stdout.split()
    assert [float(v) for v in predicted[1:]] == list(model.predict(one_hot))
    inspected = cli("inspect", tmp_path / "m.model").stdout
    assert "nominal input 'colour' (3 categories): \"blue\" \"green\" \"red\"" in inspected
    # An unseen category: an error at its cell (exit 2), or zeros when the pipeline says so.
    (tmp_path / "unseen.csv").write_text("x,colour,size,class\n0.5,red,1,0\n0.5,violet,1,0\n")
    done = cli("predict", tmp_path / "m.model", tmp_path / "unseen.csv", check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert f"{tmp_path / 'unseen.csv'}:3:5: category \"violet\" of input column 'colour'" in \
        done.stderr
    path.write_text(path.read_text().replace("[data]\n", '[data]\nunseen = "zeros"\n'))
    radial.Pipeline(path).fit().save(tmp_path / "z.model")
    zeros = cli("predict", tmp_path / "z.model", tmp_path / "unseen.csv").stdout.split()
    z = radial.load(tmp_path / "z.model")
    coded = np.array([[0.5, 0, 0, 1, 1, 0, 0], [0.5, 0, 0, 0, 1, 0, 0]])
    assert [float(v) for v in zeros[1:]] == list(z.predict(coded))


def write_with_missing(path, X, y, names, target, missing, markers=("?", "", "NA", "NaN")):
    """The rows as CSV with the cells where `missing` is set written as missing markers."""
    with open(path, "w") as f:
        f.write(",".join(names + [target]) + "\n")
        for i, (row, v) in enumerate(zip(X, y)):
            cells = [markers[(i + j) % len(markers)] if missing[i, j] else repr(float(x))
                     for j, x in enumerate(row)]
            f.write(",".join(cells + [repr(float(v))]) + "\n")


@pytest.mark.parametrize("policy", ["mean", "median", "drop-rows"])
def test_missing_values_counted_and_dropped_or_imputed_as_numpy_does(tmp_path, cli, policy):
    # 20% of the input cells of iris removed at random; NumPy's nanmean / nanmedian and the
    # complete rows are the independent reference.
    X, y, names, target = read_csv(DATA / "iris.csv")
    rng = np.random.default_rng(11)
    missing = rng.random(X.shape) < 0.2
    write_with_missing(tmp_path / "train.csv", X, y, names, target, missing)
    path = pipeline_file(tmp_path, "p.toml", tmp_path / "train.csv", None, True)
    path.write_text(path.read_text().replace("[data]\n", f'[data]\nmissing = "{policy}"\n'))
    model = radial.Pipeline(path).fit()
    data = model.report["data"]
    assert data["missing_policy"] == policy
    assert data["missing"] == {n: int(c) for n, c in zip(names, missing.sum(axis=0))}
    observed = np.where(missing, np.nan, X)
    complete = ~missing.any(axis=1)
    if policy == "drop-rows":
        assert data["train_rows"] == complete.sum() and data["dropped_rows"] == (~complete).sum()
        # The same model as from the complete rows alone.
        with open(tmp_path / "complete.csv", "w") as f:
            f.write(",".join(names + [target]) + "\n")
            for row, v in zip(X[complete], y[complete]):
                f.write(",".join(repr(float(x)) for x in row) + f",{repr(float(v))}\n")
        alone = radial.Pipeline(pipeline_file(tmp_path, "c.toml", tmp_path / "complete.csv",
                                              None, True)).fit()
        assert np.array_equal(model.weights, alone.weights)
        return
    fill = np.nanmean(observed, axis=0) if policy == "mean" else np.nanmedian(observed, axis=0)
    # The model imputes the training values: a row of missing cells predicts as the fill row.
    model.save(tmp_path / "m.model")
    (tmp_path / "blank.csv").write_text(",".join(names) + "\n" + ",".join(["?"] * 4) + "\n" +
                                        ",".join(repr(float(v)) for v in fill) + "\n")
    predicted = cli("predict", tmp_path / "m.model", tmp_path / "blank.csv",
                    "--probabilities").stdout.splitlines()
    imputed_row, fill_row = ([float(p) for p in line.split(",")[1:]] for line in predicted[1:3])
    assert imputed_row == pytest.approx(fill_row, abs=1e-12)
    assert fill_row == pytest.approx(model.predict_proba(fill[None, :])[0], abs=1e-12)
    # The training inputs as imputed by NumPy give the model's own training error.
    imputed = np.where(missing, fill[None, :], X)
    assert np.mean(model.predict(imputed) != y) == model.report["train"]["error_rate"]


def test_missing_em_from_files_and_arrays_to_the_same_model(tmp_path, cli):
    # [data] missing = "em": the same model from a CSV with missing markers and from NumPy
    # arrays holding NaN; rows with missing inputs predict through the model file and the CLI
    # as in Python, and a row of complete inputs predicts as under missing = "error".
    X, y, names, target = read_csv(DATA / "iris.csv")
    rng = np.random.default_rng(5)
    missing = rng.random(X.shape) < 0.2
    write_with_missing(tmp_path / "train.csv", X, y, names, target, missing)
    spec = {"name": "em", "seed": 2,
            "data": {"train": str(tmp_path / "train.csv"), "missing": "em"},
            "basis": {"plugin": "gaussian", "density": True},
            "centres": {"plugin": "gmm", "mode": "per-class", "count": 2,
                        "covariance": "full"},
            "output": {"plugin": "bayes"}}
    from_file = radial.Pipeline(spec).fit()
    assert from_file.report["data"]["missing_policy"] == "em"
    del spec["data"]["train"]
    observed = np.where(missing, np.nan, X)
    from_arrays = radial.Pipeline(spec).fit(observed, y)
    assert np.array_equal(from_file.centres, from_arrays.centres)
    assert np.array_equal(from_file.predict_proba(observed), from_arrays.predict_proba(observed))
    assert np.mean(from_file.predict(observed) != y) < 0.1
    from_file.save(tmp_path / "m.model")
    rows = np.array([[5.9, np.nan, 4.2, np.nan], [np.nan] * 4, [6.3, 2.9, 5.6, 1.8]])
    (tmp_path / "rows.csv").write_text(",".join(names) + "\n" + "\n".join(
        ",".join("?" if np.isnan(v) else repr(float(v)) for v in row) for row in rows) + "\n")
    predicted = cli("predict", tmp_path / "m.model", tmp_path / "rows.csv",
                    "--probabilities").stdout.splitlines()[1:]
    p = np.array([[float(v) for v in line.split(",")[1:]] for line in predicted])
    assert p == pytest.approx(from_file.predict_proba(rows), abs=1e-12)
    # No observed input: the class priors.
    assert p[1] == pytest.approx(np.bincount(y.astype(int)) / len(y), abs=1e-12)
