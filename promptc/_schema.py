"""Turn JSON/TOML data into frozen attrs records, rejecting unknown or mistyped fields by path.

One small interpreter of attrs field annotations serves every record loaded from a file (contexts,
provider info, tool specs), so each error names the file and the dotted field path at fault.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from ._errors import PromptcError
from ._frozen import FrozenDict, freeze

__all__ = ["build_record", "field_names"]

_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "a boolean"}


def _fail(error: type[PromptcError], source: str | None, path: str, message: str) -> PromptcError:
    return error(message, source=source, field=path or None)


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "a table/object"
    if value is None:
        return "null"
    return type(value).__name__


_hints_cache: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _hints_cache.get(cls)
    if hints is None:
        hints = _hints_cache[cls] = typing.get_type_hints(cls)
    return hints


def field_names(cls: type) -> list[str]:
    return [f.name for f in attrs.fields(cls) if not f.name.startswith("_")]


def _convert(tp: Any, value: Any, path: str, source: str | None,
             error: type[PromptcError]) -> Any:
    origin = typing.get_origin(tp)
    if tp is Any:
        return freeze(value)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        non_none = [a for a in args if a is not type(None)]
        errors: list[PromptcError] = []
        for arg in non_none:
            try:
                return _convert(arg, value, path, source, error)
            except PromptcError as exc:
                errors.append(exc)
        raise errors[0]
    if origin is Literal:
        options = typing.get_args(tp)
        if value not in options:
            raise _fail(error, source, path,
                        f"must be one of {', '.join(repr(o) for o in options)}, got {value!r}")
        return value
    if origin is tuple:
        item_tp = typing.get_args(tp)[0]
        if not isinstance(value, (list, tuple)):
            raise _fail(error, source, path, f"must be a list, got {_describe(value)}")
        return tuple(_convert(item_tp, item, f"{path}[{i}]", source, error)
                     for i, item in enumerate(value))
    if tp is FrozenDict or origin in (Mapping, dict) or tp is Mapping:
        if not isinstance(value, Mapping):
            raise _fail(error, source, path, f"must be a table/object, got {_describe(value)}")
        args = typing.get_args(tp)
        if args and args[1] is not Any:
            for k, v in value.items():
                _convert(args[1], v, f"{path}.{k}", source, error)
        return freeze(dict(value))
    if attrs.has(tp):
        return build_record(tp, value, path=path, source=source, error=error)
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _fail(error, source, path, f"must be a number, got {_describe(value)}")
        return float(value)
    if tp in (str, int, bool):
        if type(value) is not tp:
            raise _fail(error, source, path,
                        f"must be {_TYPE_NAMES[tp]}, got {_describe(value)}")
        return value
    raise TypeError(f"unsupported annotation {tp!r} at {path}")  # a bug in promptc, not input


def build_record(cls: type, data: Any, *, path: str = "", source: str | None = None,
                 error: type[PromptcError], aliases: Mapping[str, str] | None = None) -> Any:
    """Build `cls` from a mapping; unknown keys and wrong types raise `error` naming the path."""
    if isinstance(data, cls):
        return data
    if not isinstance(data, Mapping):
        raise _fail(error, source, path, f"must be a table/object, got {_describe(data)}")
    hints = _hints(cls)
    known = field_names(cls)
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        name = aliases.get(key, key) if aliases else key
        sub = f"{path}.{key}" if path else str(key)
        if name not in known:
            from ._suggest import did_you_mean
            raise _fail(error, source, sub, "unknown field" + did_you_mean(str(key), known))
        kwargs[name] = _convert(hints[name], value, sub, source, error)
    for f in attrs.fields(cls):
        if f.init and f.default is attrs.NOTHING and f.name not in kwargs and \
                not f.name.startswith("_"):
            raise _fail(error, source, path, f"missing required field {f.name!r}")
    try:
        return cls(**kwargs)
    except PromptcError as exc:
        if exc.source is None and source is not None:
            field = ".".join(p for p in (path, exc.field) if p) or None
            raise error(exc.message, source=source, field=field) from None
        raise
    except (TypeError, ValueError) as exc:
        raise _fail(error, source, path, str(exc)) from None
