"""scikit-learn estimators over radial pipelines: RBFClassifier and RBFRegressor.

Constructor parameters name the pipeline's slots and their parameters:

    RBFClassifier(basis="gaussian", centres="kmeans", centres_params={"count": 64},
                  output="irls", weight_penalty="weight-decay", weight_penalty_params={"alpha": 1e-3})

The defaults choose for themselves, within the fit: k-means centres, as many as
min(N/2, ceil(max(8, 4 ln N - 24) sqrt(N)), max(10000, 40 K)) for K classes (for classes past
800, 200 when 200 centres fitted on a sample already reach a leave-one-out error rate of at
most 0.005); Gaussian widths by NETLAB's nearest-centre rule with the scale, and a penalty
(weight decay, or the RKHS norm for classes and past 800 centres), chosen by closed-form
leave-one-out (Orr 1996); least-squares output weights (1-of-K targets for the classifier:
regularised least squares, whose leave-one-out error is exact), solved by conjugate gradient
with thousands of centres. docs/defaults.md has the details. Name output="irls" for
probabilities (predict_proba).

Each fit builds the pipeline dict {"basis": {"plugin": basis, **basis_params}, ...} and trains
it with radial.Pipeline.fit, so the plugins, validation messages and models are the CLI's
(the slot weight_penalty is the table [weight-penalty], kernel_prior is [kernel-prior]).
`<slot>_params__<key>` works in set_params, so GridSearchCV can search
{"centres_params__count": [8, 16, 32]}.

regularizer= and regularizer_params=, the one argument of both priors before they became two
slots, are still accepted with a FutureWarning and go to the slot of the plugin they name.
"""

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import DataError, Error, Pipeline
from . import _table

_SLOTS = ("basis", "centres", "output", "weight_penalty", "kernel_prior", "refine")
_OPTIONAL = ("weight_penalty", "kernel_prior", "refine")
# Deprecated: both priors' one argument before the split (radial/pipeline/legacy_prior_table.hpp).
_LEGACY = "regularizer"


class _RBFBase(BaseEstimator):
    """What both estimators share: the parameters, the pipeline dict, seeds, set_params of slot
    parameters."""

    _task = None

    def __init__(self, basis="gaussian", basis_params=None, centres="kmeans",
                 centres_params=None, output="least-squares", output_params=None,
                 weight_penalty=None, weight_penalty_params=None, kernel_prior=None,
                 kernel_prior_params=None, standardize=True, random_state=None, threads=0,
                 regularizer=None, regularizer_params=None, refine=None, refine_params=None,
                 missing="error", nominal_scale="input", unseen="zeros"):
        self.basis = basis
        self.basis_params = basis_params
        self.centres = centres
        self.centres_params = centres_params
        self.output = output
        self.output_params = output_params
        self.weight_penalty = weight_penalty
        self.weight_penalty_params = weight_penalty_params
        self.kernel_prior = kernel_prior
        self.kernel_prior_params = kernel_prior_params
        self.standardize = standardize
        self.random_state = random_state
        self.threads = threads
        self.regularizer = regularizer  # deprecated
        self.regularizer_params = regularizer_params
        self.refine = refine
        self.refine_params = refine_params
        self.missing = missing
        self.nominal_scale = nominal_scale
        self.unseen = unseen

    def _pipeline(self, seed, data=None):
        spec = {"name": type(self).__name__, "seed": int(seed), "threads": int(self.threads),
                "data": {"standardize": bool(self.standardize), "task": self._task,
                         "missing": str(self.missing),
                         "nominal_scale": str(self.nominal_scale), "unseen": str(self.unseen),
                         **(data or {})}}
        for slot in _SLOTS + (_LEGACY,):
            plugin = getattr(self, slot)
            params = getattr(self, slot + "_params") or {}
            if plugin is None:
                if slot not in _OPTIONAL + (_LEGACY,):
                    raise ValueError(f"{slot} is None; name a {slot} plugin (radial.plugins())")
                if params:
                    raise ValueError(f"{slot}_params {params!r} given without {slot}")
                continue
            if slot == _LEGACY:
                warnings.warn(f"{_LEGACY}= and {_LEGACY}_params= are deprecated: use "
                              "weight_penalty= and weight_penalty_params= for a prior on the "
                              "output weights (weight-decay), kernel_prior= and "
                              "kernel_prior_params= for a prior on the kernels (bhattacharyya)",
                              FutureWarning, stacklevel=4)
            if not isinstance(params, dict):
                raise ValueError(f"{slot}_params must be a dict of {slot} plugin parameters, "
                                 f"not {type(params).__name__}")
            spec[slot.replace("_", "-")] = {"plugin": plugin, **params}
        return Pipeline(spec)

    def _seed(self):
        if isinstance(self.random_state, numbers.Integral):
            if self.random_state < 0:
                raise ValueError(f"random_state = {self.random_state}; give an integer >= 0")
            return int(self.random_state)
        # None or a RandomState: one draw, as scikit-learn estimators seed their own code.
        return int(check_random_state(self.random_state).randint(0, 2**31 - 1))

    def _fit(self, X, y):
        if X.shape[0] < 2:
            raise ValueError(f"n_samples = {X.shape[0]}: an RBF network needs at least 2 rows")
        self.pipeline_ = self._pipeline(self._seed())
        # Column names from a DataFrame (feature_names_in_) go into the model file, as a CSV
        # header's would.
        names = getattr(self, "feature_names_in_", None)
        names = [str(n) for n in names] if names is not None else [f"x{j}" for j in
                                                                    range(X.shape[1])]
        self.model_ = self.pipeline_.fit(X, y, feature_names=names, target_name="y")
        return self

    def _refuse_nan(self, X):
        # NaN is refused with the estimator's parameter that reads it (scikit-learn's own
        # message would suggest another estimator).
        if self.missing != "error":
            return
        values = X.to_numpy() if _table.is_frame(X) else X
        if not isinstance(values, np.ndarray) or values.dtype.kind not in "fc":
            return
        if not np.isnan(values.sum()):  # no NaN (the sum of any NaN is NaN): one pass
            return
        bad = np.argwhere(np.isnan(values))
        if len(bad):
            i, j = (int(k) for k in bad[0])
            raise DataError(f"X[{i}, {j}] is NaN, a missing value ({len(bad)} in X); give "
                            f"{type(self).__name__}(missing=\"mean\"), \"median\" or \"em\" "
                            "(EM over the observed inputs) to read missing inputs, or "
                            "\"drop-rows\" to leave such training rows out")

    def _fit_table(self, X, target):
        """Fits on a table with text, category or missing cells (radial._table): written as CSV
        and read by the framework's reader, as `radial train` reads the same table."""
        columns = _table.columns_of(X)
        if len(columns[0][1] if columns else []) < 2:
            raise ValueError(f"n_samples = {len(X)}: an RBF network needs at least 2 rows")
        if len(target) != len(columns[0][1]):
            raise ValueError(f"X has {len(columns[0][1])} rows but y has {len(target)}")
        names = [name for name, _, _ in columns]
        self.n_features_in_ = len(columns)
        if _table.is_frame(X) and all(isinstance(c, str) for c in X.columns):
            self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        target_name = "y"
        while target_name in names:
            target_name += "_"
        seed = self._seed()
        self.pipeline_ = self._pipeline(seed)
        with _table.TableFile() as table:
            _table.write_csv(table.path, columns, (target_name, target))
            data = {"train": table.path, "target": target_name,
                    "nominal": [name for name, _, nominal in columns if nominal]}
            try:
                self.model_ = self._pipeline(seed, data).fit()
            except Error as error:
                raise self._in_our_words(_table.rename_file(error, table.path)) from None
        self._table = True
        return self

    def _in_our_words(self, error):
        # The framework's messages name [data] keys; an estimator's user sets its parameters.
        name = type(self).__name__
        text = str(error).replace("data.missing = ", "missing=")
        text = text.replace('set data.unseen = "zeros" when training',
                            f'give {name}(unseen="zeros")')
        text = text.replace("read missing inputs with missing=",
                            f"read missing inputs with {name}(missing=...): ")
        return type(error)(text)

    def _model_outputs(self, method, X):
        """model_.<method>(X) for predict: a table (or any X after a fit on one) through the
        table path, else as a float64 array."""
        if getattr(self, "_table", False) or _table.is_table(X):
            if _table.is_frame(X):
                self._check_feature_names(X, reset=False)
            elif not getattr(self, "_table", False):
                raise ValueError("X holds text cells, but this estimator was fitted on numbers "
                                 "only; give numbers, or fit it on the table")
            else:
                X = np.asarray(X, dtype=object)
            if X.ndim != 2 or X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1] if X.ndim == 2 else X.ndim} features, but "
                                 f"{type(self).__name__} is expecting {self.n_features_in_} "
                                 "features as input")
            try:
                return getattr(self.model_, method)(X)
            except Error as error:
                raise self._in_our_words(error) from None
        self._refuse_nan(X)
        X = self._validate_data(X, dtype=np.float64, reset=False,
                                force_all_finite=self._finite())
        return getattr(self.model_, method)(X)

    @property
    def report_(self):
        """The training report of the fitted model (radial.Model.report)."""
        check_is_fitted(self, "model_")
        return self.model_.report

    def get_params(self, deep=True):
        params = super().get_params(deep=False)
        if deep:
            for slot in _SLOTS + (_LEGACY,):
                given = params.get(slot + "_params")
                if isinstance(given, dict):
                    for key, value in given.items():
                        params[f"{slot}_params__{key}"] = value
        return params

    def set_params(self, **params):
        # "<slot>_params__<key>" sets one entry of a copy of the slot's dict (a dict has no
        # set_params of its own, which BaseEstimator.set_params would look for).
        nested = {}
        for name in list(params):
            head, sep, key = name.partition("__")
            if sep and head in {s + "_params" for s in _SLOTS + (_LEGACY,)}:
                nested.setdefault(head, {})[key] = params.pop(name)
        super().set_params(**params)
        for head, values in nested.items():
            merged = dict(getattr(self, head) or {})
            merged.update(values)
            setattr(self, head, merged)
        return self

    def _finite(self):
        # NaN is a missing cell unless missing = "error" (scikit-learn's force_all_finite).
        return True if self.missing == "error" else "allow-nan"

    def _more_tags(self):
        # "string": X may hold text cells (nominal inputs), so object arrays are tables.
        return {"requires_y": True, "allow_nan": self.missing != "error",
                "X_types": ["2darray", "string"]}


class RBFClassifier(ClassifierMixin, _RBFBase):
    """A radial basis function network classifier.

    Parameters: basis, centres, output, weight_penalty, kernel_prior (plugin ids,
    radial.plugins(); the priors None by default), their parameter dicts basis_params,
    centres_params, output_params, weight_penalty_params, kernel_prior_params, standardize
    (inputs to zero mean, unit variance on the training rows), random_state (int seed,
    RandomState or None), threads (row-block workers; 0, the default, is every core, as in
    the CLI; results never depend on it: give 1 inside a parallel cross-validation) and refine
    with refine_params (None by default: "lbfgs", "network-bfgs" or "network-scg" trains the
    centres, widths and weights together after the two stages), and missing ("error" by
    default: NaN in X is refused; "mean", "median" or "em" as [data] missing, where "em" keeps
    NaN cells missing for the mixture EM and the network), nominal_scale ("input": one scale
    per nominal input, the default; "category": the coding before issue 47) and unseen
    ("zeros", the default: a category that predict meets but fit did not is an all-zero row of
    its indicators; "error" refuses it).

    X may be a pandas DataFrame (or NumPy object array) with text, string and category columns
    (nominal inputs) and missing cells (NaN, None), and y text labels: the table is coded as
    `radial train` codes the same table read from CSV (radial._table).

    Fitted attributes: classes_, n_features_in_ (raw columns), feature_names_in_ (when X is a
    DataFrame whose column names are all strings),
    model_ (radial.Model), pipeline_ (radial.Pipeline), report_ (the training report).
    """

    _task = "classification"

    def fit(self, X, y):
        self._table = False
        if _table.is_table(X):
            y = np.asarray(y)
            check_classification_targets(y)
            coded = self._classes(y)
            return self._fit_table(X, coded.tolist())
        self._refuse_nan(X)
        X, y = self._validate_data(X, y, dtype=np.float64, force_all_finite=self._finite())
        check_classification_targets(y)
        coded = self._classes(y)
        return self._fit(X, coded.astype(np.float64))

    def _classes(self, y):
        self.classes_, coded = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"y has 1 class ({self.classes_[0]!r}); a classifier needs at "
                             "least 2 classes")
        # Radial codes labels 0..K-1 in increasing order, as np.unique: the same indices.
        return coded

    def predict(self, X):
        check_is_fitted(self, "model_")
        return self.classes_[self._model_outputs("predict", X).astype(np.intp)]

    def _has_probabilities(self):
        # The least-squares output gives scores, not probabilities; irls, scg, bfgs and bayes
        # give probabilities.
        return self.output != "least-squares"

    @available_if(_has_probabilities)
    def predict_proba(self, X):
        """Class probabilities (columns in the order of classes_); needs an output plugin with
        probabilistic outputs (irls, scg, bfgs, bayes), else radial.InputError: the default
        least-squares output gives scores, not probabilities."""
        check_is_fitted(self, "model_")
        return self._model_outputs("predict_proba", X)

    @available_if(_has_probabilities)
    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))


class RBFRegressor(RegressorMixin, _RBFBase):
    """A radial basis function network regressor (one target); parameters as RBFClassifier,
    the output layer by default linear least squares."""

    _task = "regression"

    def fit(self, X, y):
        self._table = False
        if _table.is_table(X):
            y = np.asarray(y, dtype=np.float64)
            if y.ndim != 1:
                raise ValueError(f"y has shape {y.shape}; RBFRegressor takes one target")
            return self._fit_table(X, y.tolist())
        self._refuse_nan(X)
        X, y = self._validate_data(X, y, dtype=np.float64, y_numeric=True,
                                   force_all_finite=self._finite())
        return self._fit(X, np.ascontiguousarray(y, dtype=np.float64))

    def predict(self, X):
        check_is_fitted(self, "model_")
        return self._model_outputs("predict", X)


__all__ = ["RBFClassifier", "RBFRegressor"]
