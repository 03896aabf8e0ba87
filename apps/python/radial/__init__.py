"""Radial RBF networks in Python: the framework's plugins, pipelines, models and reports.

    import numpy, radial
    pipeline = radial.Pipeline({"basis": {"plugin": "gaussian"},
                                "centres": {"plugin": "kmeans", "count": 12},
                                "output": {"plugin": "irls"}})
    model = pipeline.fit(X, y, seed=1)
    model.predict(X_new); model.save("m.radial"); radial.load("m.radial")

The module is a thin layer over the C++ framework: the same plugins (built-in and those found
through RADIAL_PLUGIN_PATH), pipeline files, model files and reports as the `radial` CLI.
scikit-learn estimators are in radial.sklearn.
"""

import atexit as _atexit
import json as _json
import os as _os

import numpy as _np

from . import _radial
from . import _table
from . import _toml

__version__ = _radial.__version__


class Error(RuntimeError):
    """Any error reported by the Radial framework."""


class InputError(Error, ValueError):
    """Something given was wrong (pipeline, data, model file, parameter); the message is the
    CLI's, naming where (file:line:column) and what to do."""


class PipelineError(InputError):
    """A pipeline file, text or dict is wrong; the message starts with file:line:column."""


class DataError(InputError):
    """Data is wrong (NaN or Inf, labels, a data file's line and column)."""


class ModelFileError(InputError):
    """A model file is corrupted, truncated, of a newer format or inconsistent."""


class PluginError(InputError):
    """A plugin cannot be used, or a model needs one that is not installed."""


class ParameterError(InputError):
    """A plugin parameter outside its type, range or choices."""


class ShapeError(InputError):
    """Arrays of the wrong shape (e.g. 3 features where 2 were trained)."""


class NumericalError(Error, ArithmeticError):
    """Numerical trouble no guard could recover from."""


_radial._set_exception_classes({cls.__name__: cls for cls in (
    Error, InputError, PipelineError, DataError, ModelFileError, PluginError, ParameterError,
    ShapeError, NumericalError)})
_radial._set_module_folder(_os.path.dirname(_os.path.abspath(_radial.__file__)))
# A fit interrupted by Ctrl-C finishes its current stage in the background; exit waits for it.
_atexit.register(_radial._wait_for_background_work)


def plugins():
    """Every loaded plugin as a dict: id, slot, version, summary, paper, library and params
    (a list of dicts: name, type, default, required, min, max, choices, constraint, doc)."""
    return _radial.plugins()


def plugin_load_failures():
    """The plugin libraries of the search path that failed to load and were left out, as dicts:
    file, message and id (the id the library's descriptor or file name gives; may be empty).
    Pipelines that do not use them run; one that names such an id is refused with the message."""
    return _radial.plugin_load_failures()


def _labels(y):
    """y as the framework takes it: text class labels (str or bytes elements) as a list of
    str, anything else unchanged."""
    if y is None or isinstance(y, _np.ndarray) and y.dtype.kind not in "USO":
        return y
    values = _np.asarray(y)
    if values.dtype.kind not in "USO" or values.ndim != 1:
        return y
    items = values.tolist()
    if not all(isinstance(v, (str, bytes)) for v in items):
        return y
    return [v.decode() if isinstance(v, bytes) else v for v in items]


class Model:
    """A trained network: predictions, its file, its training report."""

    def __init__(self, handle):
        self._handle = handle

    def _reads_table(self, X):
        # Raw rows: a table with text or category columns, or a DataFrame for a model that
        # codes nominal inputs (its columns matched by name, as a CSV file's are).
        return _table.is_table(X) or (_table.is_frame(X) and
                                      bool(self._handle.nominal_names))

    def _from_table(self, method, X):
        names = None if _table.is_frame(X) else list(self._handle.raw_names)
        if names is not None and _np.ndim(X) == 2 and _np.shape(X)[1] != len(names):
            raise ShapeError(f"X has {_np.shape(X)[1]} columns but the model reads "
                             f"{len(names)} raw columns ({', '.join(names)}); give them in "
                             "this order, or a DataFrame with these column names")
        columns = _table.columns_of(X, names)
        with _table.TableFile() as table:
            _table.write_csv(table.path, columns)
            try:
                return getattr(self._handle, method)(table.path)
            except Error as error:
                raise _table.rename_file(error, table.path) from None

    def _frame_values(self, X):
        # A numeric DataFrame: its columns in the model's feature order when it has them all.
        if _table.is_frame(X):
            names = [str(c) for c in X.columns]
            wanted = list(self._handle.feature_names)
            if set(wanted) <= set(names):
                X = X[[X.columns[names.index(n)] for n in wanted]]
            return _np.ascontiguousarray(X.to_numpy(dtype=_np.float64, na_value=_np.nan))
        return X

    def predict(self, X):
        """Class labels (classification) or values (regression), one per row of X: float64,
        or str for a model trained on text labels.

        X: float64, n_samples x n_features, raw (the model's standardiser is applied here),
        copied once into the framework's row-major matrix with the GIL released; or the raw
        rows the model was trained on: a pandas DataFrame (columns matched by name) or a NumPy
        object array (the model's raw columns in order) with text, category and missing cells,
        read and coded as `radial predict` reads the same rows from a CSV file."""
        if self._reads_table(X):
            return self._from_table("predict_file", X)
        return self._handle.predict(self._frame_values(X))

    def predict_proba(self, X):
        """Class probabilities, n_samples x n_classes (columns in the order of .classes); X as
        for predict."""
        if self._reads_table(X):
            return self._from_table("predict_proba_file", X)
        return self._handle.predict_proba(self._frame_values(X))

    def outputs(self, X):
        """The network's raw outputs y(x): probabilities, or linear outputs (n x outputs)."""
        if self._reads_table(X):
            return self._from_table("outputs_file", X)
        return self._handle.outputs(self._frame_values(X))

    def save(self, path):
        """Writes the model file (the CLI's format; `radial predict --model path` reads it)."""
        self._handle.save(_os.fspath(path))

    def to_bytes(self):
        """The model file's bytes."""
        return self._handle.to_bytes()

    @property
    def report(self):
        """The training report as a dict (the CLI's --report JSON): learning curves, warnings,
        cross-validation and search tables. A loaded model gives the report stored in it."""
        text = self._handle.report_json
        return _json.loads(text) if text else {}

    task = property(lambda self: self._handle.task, doc="'classification' or 'regression'")
    classes = property(lambda self: list(self._handle.class_names or self._handle.class_values),
                       doc="class labels in output order (classification): text labels as "
                           "str, numbers as float")
    feature_names = property(lambda self: list(self._handle.feature_names),
                             doc="the coded input columns (a nominal input as 'name=category')")
    raw_names = property(lambda self: list(self._handle.raw_names),
                         doc="the columns a table or data file gives (before 1-of-C coding)")
    nominal_names = property(lambda self: list(self._handle.nominal_names),
                             doc="the raw columns coded 1-of-C (nominal inputs)")
    target_name = property(lambda self: self._handle.target_name)
    n_features = property(lambda self: len(self._handle.feature_names))
    link = property(lambda self: self._handle.link)
    basis = property(lambda self: self._handle.basis_id, doc="the basis plugin id")
    output = property(lambda self: self._handle.output_id, doc="the output plugin id")
    centres = property(lambda self: self._handle.centres, doc="centre means, M x d (standardised)")
    weights = property(lambda self: self._handle.weights, doc="(M+1) x outputs, bias last")
    shapes = property(lambda self: self._handle.shapes,
                      doc="the centres' shapes as variances (standardised): spherical M x 1, "
                          "diagonal M x d, full M x d*d, none 0 x 0")
    pipeline_text = property(lambda self: self._handle.pipeline_text)
    seed = property(lambda self: self._handle.seed)
    plugin_versions = property(lambda self: dict(self._handle.plugin_versions))

    def __repr__(self):
        return (f"<radial.Model {self.task}, basis {self.basis}, {self.centres.shape[0]} centres, "
                f"output {self.output}>")

    def __getstate__(self):
        return {"bytes": self.to_bytes(), "report": self._handle.report_json}

    def __setstate__(self, state):
        self._handle = _radial.from_bytes(state["bytes"], "<pickle>")


def load(path):
    """Reads a model file written by radial.Model.save or `radial train --model`."""
    return Model(_radial.load(_os.fspath(path)))


_parsed = {}  # pipeline text, label, overrides -> its parsed handle (Pipeline._parse)
_dumped = {}  # repr of a pipeline dict -> its TOML text (Pipeline(dict))


class Pipeline:
    """A pipeline, validated against the loaded plugins as the CLI does.

    Pipeline("file.toml"), Pipeline(path), Pipeline(text=...) or Pipeline({...}) with a dict
    mirroring the file. Errors are PipelineError with the CLI's file:line:column message. A
    pipeline without [data] train is fitted on arrays: fit(X, y).
    """

    def __init__(self, source=None, *, text=None, overrides=()):
        self._overrides = list(overrides)
        if text is not None:
            self._source = ("text", text, "<string>")
        elif isinstance(source, dict):
            # The text of the same dict once: an estimator refitted in a cross-validation gives
            # the same dict every fit.
            key = repr(source)
            text = _dumped.get(key)
            if text is None:
                text = _toml.dumps(source)
                if len(_dumped) >= 64:
                    del _dumped[next(iter(_dumped))]
                _dumped[key] = text
            self._source = ("text", text, "<dict>")
        elif isinstance(source, (str, _os.PathLike)):
            source = _os.fspath(source)
            if "\n" in source or "[" in source and not _os.path.exists(source):
                self._source = ("text", source, "<string>")
            else:
                self._source = ("file", source, source)
        else:
            raise TypeError("Pipeline(source): give a file path, TOML text or a dict")
        self._parse()

    def _parse(self):
        kind, value, label = self._source
        if kind == "file":
            self._handle = _radial._Pipeline.read(value, self._overrides)
            return
        # A parsed text is immutable and the plugins are loaded once, so the same text parses to
        # the same handle: an estimator refitted in a cross-validation parses it once, not per
        # fit (0.1 ms of a 0.7 ms fit on 20 rows).
        key = (value, label, tuple(self._overrides), _os.getcwd())  # relative paths
        handle = _parsed.pop(key, None)
        if handle is None:
            handle = _radial._Pipeline.parse(value, label, self._overrides)
            if len(_parsed) >= 64:
                del _parsed[next(iter(_parsed))]  # the least recently used
        _parsed[key] = handle
        self._handle = handle

    def set(self, key, value):
        """Overrides one setting ("centres.count", 12) as `radial train --set` does; returns
        self. The pipeline is validated again at once."""
        previous = self._overrides
        self._overrides = previous + [f"{key}={_toml.value(value, key)}"]
        try:
            self._parse()
        except Exception:
            self._overrides = previous
            raise
        return self

    def fit(self, X=None, y=None, X_test=None, y_test=None, *, seed=None, threads=None,
            feature_names=None, target_name=None):
        """Trains the pipeline; returns a Model.

        X: float64 array, n_samples x n_features, C- or F-ordered (copied once into the
        framework's row-major matrix, which the trainer standardises in place); y: float64,
        n_samples (integers: classification, else regression, unless [data] task says), or
        class labels as text (an array or list of str: the model keeps them, predict returns
        them and .classes lists them in increasing order). With
        no X, the pipeline's [data] files are read, as `radial train` does. seed and threads
        override the pipeline's. The GIL is released; Ctrl-C raises KeyboardInterrupt.
        """
        handle = self._handle.fit(X, _labels(y), X_test, _labels(y_test), seed, threads,
                                  list(feature_names) if feature_names is not None else [],
                                  target_name or "")
        return Model(handle)

    name = property(lambda self: self._handle.name)
    seed = property(lambda self: self._handle.seed)
    threads = property(lambda self: self._handle.threads)
    text = property(lambda self: self._handle.text, doc="the text as read, overrides noted")
    settings = property(lambda self: self._handle.settings,
                        doc="every setting as canonical TOML without [data]")
    task = property(lambda self: self._handle.task)
    standardize = property(lambda self: self._handle.standardize)
    components = property(lambda self: self._handle.components,
                          doc="{slot: {'plugin': id, 'params': {...}}} after validation")

    def __getstate__(self):
        return {"source": self._source, "overrides": self._overrides}

    def __setstate__(self, state):
        self._source, self._overrides = state["source"], state["overrides"]
        self._parse()

    def __repr__(self):
        slots = self.components
        parts = ", ".join(f"{slot} {c['plugin']}" for slot, c in slots.items())
        return f"<radial.Pipeline {self.name!r}: {parts}>"


__all__ = ["Pipeline", "Model", "load", "plugins", "plugin_load_failures", "Error", "InputError", "PipelineError",
           "DataError", "ModelFileError", "PluginError", "ParameterError", "ShapeError",
           "NumericalError"]
