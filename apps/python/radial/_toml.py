"""A dict mirroring a pipeline file -> TOML text, for radial.Pipeline(dict).

Only what pipeline files use: top-level keys, then one table per slot ([basis], [data], ...)
with scalar or list values. Keys with a dot ("centres.count" in [search]) are quoted.
"""

import math
import numbers
import re

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(key):
    key = str(key)
    return key if _BARE.match(key) else _string(key)


def _string(text):
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped + '"'


def _value(value, where):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        if math.isnan(value) or math.isinf(value):
            return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if hasattr(value, "__fspath__"):
        return _string(str(value))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v, where) for v in value) + "]"
    raise TypeError(f"{where}: a {type(value).__name__} cannot be written in a pipeline file; "
                    "use a number, bool, string or list of them")


def value(value, where="value"):
    """One value as TOML text (for Pipeline.set overrides)."""
    return _value(value, where)


def dumps(pipeline):
    """TOML text of `pipeline`, a dict such as {"basis": {"plugin": "gaussian"}, "seed": 3}."""
    top, tables = [], []
    for key, item in pipeline.items():
        if isinstance(item, dict):
            lines = [f"[{_key(key)}]"]
            for name, v in item.items():
                if isinstance(v, dict):
                    raise TypeError(f"[{key}] {name}: nested tables are not part of a pipeline "
                                    "file; give plugin parameters beside 'plugin'")
                lines.append(f"{_key(name)} = {_value(v, f'{key}.{name}')}")
            tables.append("\n".join(lines))
        else:
            top.append(f"{_key(key)} = {_value(item, key)}")
    return "\n\n".join(["\n".join(top)] + tables if top else tables) + "\n"
