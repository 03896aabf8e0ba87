"""Bad input raises Python exceptions (radial.InputError family, also ValueError) carrying the
CLI's messages, and the process carries on."""

import numpy as np
import pytest

import radial
from conftest import two_class

GOOD = """[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
count = 4
[output]
plugin = "irls"
"""


def with_data(tmp_path, text):
    """`text` with a [data] table first (the CLI needs one), the positions shifted by 2 lines."""
    data = tmp_path / "d.csv"
    data.write_text("x1,x2,label\n0,0,0\n1,1,1\n0,1,0\n1,0,1\n2,2,0\n")
    return f'[data]\ntrain = "{data}"\n' + text


def cli_error(done):
    assert done.returncode == 2
    prefix = "radial: error: "
    assert done.stderr.startswith(prefix)
    return done.stderr[len(prefix):].strip()


def pipeline_error(cli, file, text, error_type):
    """The error of radial.Pipeline on `text` written to `file`, checked to be the CLI's."""
    file.write_text(text)
    with pytest.raises(error_type) as caught:
        radial.Pipeline(file)
    assert str(caught.value) == cli_error(cli("validate", file, check=False))
    return caught.value


def test_unknown_plugin_has_the_cli_message(cli, tmp_path):
    file = tmp_path / "p.toml"
    error = pipeline_error(cli, file, with_data(tmp_path, GOOD.replace('"gaussian"', '"gausian"')),
                           radial.PipelineError)
    assert str(error).startswith(f"{file}:4:10: unknown basis plugin 'gausian' "
                                 "(did you mean 'gaussian'?)")
    assert isinstance(error, ValueError)


def test_bad_parameter_has_the_cli_message(cli, tmp_path):
    file = tmp_path / "p.toml"
    error = pipeline_error(cli, file, with_data(tmp_path, GOOD.replace("count = 4", "count = 0")),
                           radial.InputError)
    assert "Violated constraint: count >= 1" in str(error)
    # The same through an override, as --set.
    file.write_text(with_data(tmp_path, GOOD))
    pipeline = radial.Pipeline(file)
    with pytest.raises(radial.InputError) as caught:
        pipeline.set("centres.count", 0)
    done = cli("validate", file, "--set", "centres.count=0", check=False)
    assert str(caught.value) == cli_error(done)
    assert pipeline.components["centres"]["params"]["count"] == 4  # unchanged after the error


def test_unknown_key_in_a_dict():
    with pytest.raises(radial.PipelineError, match=r"<dict>:\d+:\d+: .*did you mean 'count'"):
        radial.Pipeline({"basis": {"plugin": "gaussian"},
                         "centres": {"plugin": "kmeans", "cuont": 3},
                         "output": {"plugin": "irls"}})


def test_wrong_dtype_and_shape():
    X, y = two_class(40)
    pipeline = radial.Pipeline(text=GOOD)
    with pytest.raises(radial.InputError, match=r"X has dtype int64; .*astype\(numpy.float64\)"):
        pipeline.fit(X.astype(np.int64), y)
    with pytest.raises(radial.InputError, match="y has dtype float32"):
        pipeline.fit(X, y.astype(np.float32))
    with pytest.raises(radial.ShapeError, match=r"X has 1 dimension\(s\), not 2"):
        pipeline.fit(X[:, 0], y)
    with pytest.raises(radial.ShapeError, match="y has 39 values but X has 40 rows"):
        pipeline.fit(X, y[:-1])
    with pytest.raises(radial.InputError, match="not a NumPy array"):
        pipeline.fit(X.tolist(), y)
    model = pipeline.fit(X, y, seed=1)
    with pytest.raises(radial.ShapeError, match="X has 3 columns but the model was trained on 2"):
        model.predict(np.hstack([X, X[:, :1]]))


def test_nan_in_X_is_refused_with_the_readers_words(cli, tmp_path):
    X, y = two_class(40)
    X[3, 1] = np.nan
    with pytest.raises(radial.DataError) as caught:
        radial.Pipeline(text=GOOD).fit(X, y)
    assert str(caught.value).startswith("X[3, 1] is NaN")
    # The CLI's reader says the same about a CSV cell.
    data = tmp_path / "nan.csv"
    data.write_text("x1,x2,label\n1,2,0\nnan,3,1\n")
    file = tmp_path / "p.toml"
    file.write_text(f'[data]\ntrain = "{data}"\n' + GOOD)
    cli_message = cli_error(cli("train", "-q", file, check=False))
    # Both call NaN a missing value and name the settings that read it, "em" among them: the
    # CLI its [data] key, Python the estimators' parameter (issue 47).
    assert 'is NaN, a missing value; ' in cli_message
    assert cli_message.endswith('data.missing = "drop-rows", "mean", "median" or "em"')
    assert str(caught.value).startswith("X[3, 1] is NaN, a missing value")
    assert 'missing="mean", "median" or "em"' in str(caught.value)
    with pytest.raises(radial.DataError, match="infinite"):
        X[3, 1] = np.inf
        radial.Pipeline(text=GOOD).fit(X, y)


def test_model_file_errors_have_the_cli_message(cli, tmp_path):
    bad = tmp_path / "bad.radial"
    bad.write_text("garbage\n")
    data = tmp_path / "d.csv"
    data.write_text("x1,x2\n1,2\n")
    with pytest.raises(radial.ModelFileError) as caught:
        radial.load(bad)
    assert str(caught.value) == cli_error(cli("predict", bad, data, check=False))


def test_fitting_from_arrays_needs_them_and_files_need_data():
    with pytest.raises(radial.InputError, match=r"no \[data\] train file: pass the data"):
        radial.Pipeline(text=GOOD).fit()
    with pytest.raises(radial.InputError, match="needs y"):
        radial.Pipeline(text=GOOD).fit(np.zeros((3, 2)))


def test_the_process_carries_on_after_errors():
    X, y = two_class(60)
    for _ in range(3):
        with pytest.raises(radial.InputError):
            radial.Pipeline(text=GOOD.replace("count = 4", "count = 100")).fit(X, y)
    model = radial.Pipeline(text=GOOD).fit(X, y, seed=1)
    assert model.predict(X).shape == (60,)


def test_a_huge_or_endless_pipeline_file_is_refused_before_it_is_held(tmp_path):
    """Issue 25, defect 4: Pipeline(path) read the whole file before its 1 MB check (3.0 GB
    for a 1.5 GB sparse file; a character device grew until MemoryError)."""
    import os
    import resource
    sparse = tmp_path / "sparse.toml"
    with open(sparse, "wb") as f:
        f.truncate(1500 << 20)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(radial.PipelineError, match="larger than 1.0 MB"):
        radial.Pipeline(str(sparse))
    endless = tmp_path / "zero"
    try:
        os.mknod(endless, 0o600 | 0o020000, os.makedev(1, 5))  # a /dev/zero of our own
    except PermissionError:
        endless = None
    if endless is not None:
        with pytest.raises(radial.PipelineError, match="larger than 1.0 MB"):
            radial.Pipeline(str(endless))
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 64 << 10, grown_kb


def test_feature_names_are_checked_as_a_header_is_and_threads_is_not_negative():
    """Issue 25 (minor): duplicate feature_names and threads=-1 were accepted."""
    X = np.random.default_rng(0).random((40, 2))
    y = (X[:, 0] > 0.5).astype(float)
    p = radial.Pipeline(text=GOOD)
    with pytest.raises(radial.InputError, match="'a' twice"):
        p.fit(X, y, feature_names=["a", "a"])
    with pytest.raises(radial.ShapeError, match="1 names for 2 columns"):
        p.fit(X, y, feature_names=["a"])
    with pytest.raises(radial.ParameterError, match="negative"):
        p.fit(X, y, threads=-1)
    assert p.fit(X, y, feature_names=["a", "b"]).feature_names == ["a", "b"]
