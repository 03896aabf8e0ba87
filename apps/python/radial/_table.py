"""Tables as users hold them: a pandas DataFrame, or a NumPy object array, with text, category
and missing cells, handed to the framework's CSV reader so that they are coded exactly as
`radial train` and `radial predict` code the same table read from a CSV file.

A table is written to a temporary CSV file (removed at once) in a form the reader reads back
cell for cell: numbers as Python's repr (which reads back to the same double), text cells
quoted (so "NA" or " a " stay the text they are), missing cells (None, NaN, pandas.NA, NaT)
empty and unquoted. Text, category and boolean columns are named in [data] nominal, so they are
nominal inputs whatever their first cell holds; the reader codes them 1-of-C with categories in
increasing byte order, as it codes a CSV file's text columns.
"""

import math
import numbers
import os
import tempfile

import numpy as np

try:  # pandas is optional: without it only NumPy arrays are tables
    import pandas as _pd
except ImportError:  # pragma: no cover
    _pd = None

FILE_NAME = "X.csv"


def is_frame(X):
    return _pd is not None and isinstance(X, _pd.DataFrame)


def _text_dtype(dtype):
    """Whether a column of this dtype holds categories (not numbers): text, category, bool."""
    if _pd is not None and (isinstance(dtype, (_pd.CategoricalDtype, _pd.StringDtype)) or
                            _pd.api.types.is_bool_dtype(dtype)):
        return True
    try:
        return np.dtype(dtype).kind in "OUSb"
    except TypeError:  # pandas' nullable numbers (Int64, Float64)
        return False


def is_table(X):
    """A DataFrame with a column that is not numbers, or a NumPy array of objects or text: what
    only the table path reads. Numeric frames and float arrays keep the array path."""
    if is_frame(X):
        return any(_text_dtype(t) for t in X.dtypes)
    return isinstance(X, np.ndarray) and X.dtype.kind in "OUS"


def _missing(value):
    if value is None:
        return True
    if _pd is not None and (value is _pd.NA or value is _pd.NaT):
        return True
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isnan(value)


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _number(value):
    return repr(float(value))


def _text(value):
    text = value.decode() if isinstance(value, bytes) else str(value)
    return '"' + text.replace('"', '""') + '"'


def columns_of(X, names=None):
    """[(name, list of cells, nominal)] of a table; `names` for an array (default x0, x1...)."""
    if is_frame(X):
        out = []
        for name, dtype in zip(X.columns, X.dtypes):
            column = X[name]
            values = column.astype(object).tolist()
            nominal = _text_dtype(dtype)
            if nominal and dtype == np.dtype(object) and \
                    all(_missing(v) or _is_number(v) for v in values):
                nominal = False  # an object column of numbers and gaps: numbers
            out.append((str(name), values, nominal))
        return out
    array = np.asarray(X, dtype=object)
    if array.ndim != 2:
        raise ValueError(f"X has {array.ndim} dimension(s), not 2 (rows x features)")
    if names is None:
        names = [f"x{j}" for j in range(array.shape[1])]
    out = []
    for j, name in enumerate(names):
        values = array[:, j].tolist()
        nominal = not all(_missing(v) or _is_number(v) for v in values)
        out.append((str(name), values, nominal))
    return out


def write_csv(path, columns, target=None):
    """Writes `columns` (columns_of) and an optional target column (name, values) as CSV."""
    header = [name for name, _, _ in columns] + ([target[0]] if target is not None else [])
    cells = [(values, nominal) for _, values, nominal in columns]
    if target is not None:
        values = list(target[1])
        cells.append((values, not all(_is_number(v) or _missing(v) for v in values)))
    rows = len(cells[0][0]) if cells else 0
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write(",".join(_text(n) for n in header) + "\n")
        for i in range(rows):
            line = []
            for values, nominal in cells:
                value = values[i]
                if _missing(value):
                    line.append("")
                elif nominal or not _is_number(value):
                    line.append(_text(value))
                else:
                    line.append(_number(value))
            out.write(",".join(line) + "\n")


class TableFile:
    """A temporary folder holding X.csv, removed on exit; `where` names it in messages."""

    def __enter__(self):
        self._folder = tempfile.TemporaryDirectory(prefix="radial-table-")
        self.path = os.path.join(self._folder.name, FILE_NAME)
        return self

    def __exit__(self, *exc):
        self._folder.cleanup()
        return False


def rename_file(error, path, label="X"):
    """The framework's message with the temporary file's path replaced by `label`, as the same
    exception type: "X (as CSV):5:3" is line 5 of the table written as CSV (line 1 the column
    names, so row 4 of the table counting from 1), character 3; the message names the column."""
    text = str(error)
    if path not in text:
        return error
    return type(error)(text.replace(path, f"{label} (as CSV)"))
