"""Python and the CLI on the example pipelines of docs/examples: the same seed gives the same
model (its bytes, apart from the report's timings) and the same predictions to the bit, with
model files going both ways (Python -> `radial predict`, `radial train` -> radial.load)."""

import csv
import tomllib

import numpy as np
import pytest

import radial
from conftest import EXAMPLES, read_csv

# Every example but waveform-dem-bayes (6 s of training; the same code paths as waveform-gmm).
PIPELINES = sorted(p.name for p in EXAMPLES.glob("*.toml") if p.name != "waveform-dem-bayes.toml")


def cli_predictions(cli, model, data, probabilities):
    args = ["predict", model, data] + (["--probabilities"] if probabilities else [])
    rows = list(csv.reader(cli(*args).stdout.splitlines()))
    return np.array(rows[1:], dtype=np.float64)


@pytest.mark.parametrize("name", PIPELINES)
def test_python_and_cli_models_are_the_same(name, cli, tmp_path):
    file = EXAMPLES / name
    with open(file, "rb") as f:
        data = tomllib.load(f)["data"]
    train_csv = EXAMPLES / data["train"]
    X, y, features, target = read_csv(train_csv, data.get("target"))

    cli("train", "-q", file, "--model", tmp_path / "cli.radial", "--report", tmp_path / "r.json")
    from_cli = radial.load(tmp_path / "cli.radial")
    python = radial.Pipeline(file).fit(X, y, feature_names=features, target_name=target)
    # Same bytes but for the stored report (it holds wall-clock seconds).
    assert python._handle.bytes_without_report() == from_cli._handle.bytes_without_report()

    python.save(tmp_path / "py.radial")
    probabilistic = python.task == "classification" and python.link != "identity"
    for data_file in {train_csv, EXAMPLES / data.get("test", data["train"])}:
        Xd = read_csv(data_file, data.get("target"))[0]
        # Python-saved model through the CLI, CLI-saved model through Python: bit for bit.
        out = cli_predictions(cli, tmp_path / "py.radial", data_file, probabilistic)
        assert np.array_equal(out[:, 0], python.predict(Xd))
        assert np.array_equal(out[:, 0], from_cli.predict(Xd))
        if probabilistic:
            assert np.array_equal(out[:, 1:], python.predict_proba(Xd))
            assert np.array_equal(out[:, 1:], from_cli.predict_proba(Xd))
