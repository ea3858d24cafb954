"""Build frozen attrs records from JSON/TOML data, rejecting unknown or mistyped fields by path.

Records check their own field types when constructed (the validators below), so a record made in
Python is as typed as one loaded from a file. This module adds what only data needs: unknown keys,
missing required fields, nested records inside lists, and errors that name the file and the
dotted path (`mcp_servers[0].tools[2].name`). What each class needs is worked out once per class.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .errors import PromptcError
from .suggest import did_you_mean
from .surrogates import surrogate_in, surrogate_problem

__all__ = ["build_record", "field_names", "describe", "typed", "text", "optional", "one_of"]

Validator = Callable[[Any, Any, Any], None]


def describe(value: Any) -> str:
    """How an error message names a value's JSON type. A subclass of a JSON type (a
    `StrEnum` member, an `IntEnum`) is named as what it is, since the exact type is asked
    for: "got a string" would contradict "must be a string"."""
    kind = type(value)
    for base, name in ((str, "str"), (int, "int"), (float, "float")):
        if isinstance(value, base) and kind is not base and kind is not bool:
            return f"{value!r}, whose type {kind.__name__} is a subclass of {name}: pass a " \
                f"plain {name}"
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


_NAMES = {str: "a string", int: "an integer", bool: "a boolean", float: "a number"}


def typed(kind: type, error: type[PromptcError]) -> Validator:
    """An attrs validator: the value has exactly this JSON type (a bool is not an integer)."""
    def check(_instance: Any, attribute: Any, value: Any) -> None:
        if type(value) is not kind and not (kind is float and type(value) is int):
            raise error(f"must be {_NAMES[kind]}, got {describe(value)}", field=attribute.name)
    return check


def text(error: type[PromptcError]) -> Validator:
    """An attrs validator: a string that UTF-8 can carry (no lone surrogate)."""
    def check(_instance: Any, attribute: Any, value: Any) -> None:
        if type(value) is not str:
            raise error(f"must be a string, got {describe(value)}", field=attribute.name)
        code = surrogate_in(value)
        if code is not None:
            raise error(surrogate_problem(code), field=attribute.name)
    return check


def optional(kind: type | Validator, error: type[PromptcError]) -> Validator:
    """`kind`'s check (a type, or a validator such as `text(error)`), or None."""
    inner = typed(kind, error) if isinstance(kind, type) else kind

    def check(instance: Any, attribute: Any, value: Any) -> None:
        if value is not None:
            inner(instance, attribute, value)
    return check


def one_of(options: tuple[str, ...], error: type[PromptcError]) -> Validator:
    def check(_instance: Any, attribute: Any, value: Any) -> None:
        if type(value) is not str or value not in options:
            raise error(f"must be one of {', '.join(repr(o) for o in options)}, got {value!r}",
                        field=attribute.name)
    return check


def field_names(cls: type) -> list[str]:
    return [f.name for f in attrs.fields(cls) if not f.name.startswith("_")]


# What a field holding nested records needs: ("one", cls) | ("many", cls); other fields are
# passed to the record as they are and its converters and validators check them.
Nested = tuple[str, type]
_plans: dict[type, tuple[dict[str, Nested | None], tuple[str, ...]]] = {}


def _nested(tp: Any) -> Nested | None:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        found = [n for a in typing.get_args(tp) if (n := _nested(a)) is not None]
        return found[0] if found else None
    if origin is tuple:
        args = typing.get_args(tp)
        if args and attrs.has(args[0]):
            return ("many", args[0])
        return None
    if isinstance(tp, type) and attrs.has(tp):
        return ("one", tp)
    return None


def _plan(cls: type) -> tuple[dict[str, Nested | None], tuple[str, ...]]:
    plan = _plans.get(cls)
    if plan is None:
        hints = typing.get_type_hints(cls)
        fields = {f.name: _nested(hints[f.name]) for f in attrs.fields(cls)
                  if not f.name.startswith("_")}
        required = tuple(f.name for f in attrs.fields(cls)
                         if f.init and f.default is attrs.NOTHING and not f.name.startswith("_"))
        plan = _plans[cls] = (fields, required)
    return plan


def _unknown(key: Any, fields: Mapping[str, Any], aliases: Mapping[str, str] | None) -> str:
    """`unknown field (did you mean 'x'?); the fields are: …`, each as a file spells it (an
    alias in place of the field it names)."""
    renamed = {field: alias for alias, field in (aliases or {}).items()}
    written = [renamed.get(field, field) for field in fields]
    return f"unknown field{did_you_mean(str(key), written)}; the fields are: {', '.join(written)}"


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def build_record(cls: type, data: Any, *, path: str = "", source: str | None = None,
                 error: type[PromptcError], aliases: Mapping[str, str] | None = None) -> Any:
    """Build `cls` from a mapping; unknown keys and wrong types raise `error` naming the path."""
    if isinstance(data, cls):
        return data
    if not isinstance(data, Mapping):
        raise error(f"must be a table/object, got {describe(data)}", source=source,
                    field=path or None)
    fields, required = _plan(cls)
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        name = aliases.get(key, key) if aliases else key
        if name not in fields:
            raise error(_unknown(key, fields, aliases), source=source, field=_join(path, key))
        nested = fields[name]
        if nested is not None and value is not None:
            value = _built(nested, value, _join(path, key), source, error)
        kwargs[name] = value
    _check_required(required, kwargs, path, source, error)
    return _construct(cls, kwargs, path, source, error)


def _built(nested: Nested, value: Any, path: str, source: str | None,
           error: type[PromptcError]) -> Any:
    """A field's nested record, or its tuple of records (items already built are kept)."""
    kind, sub = nested
    if kind == "one":
        return build_record(sub, value, path=path, source=source, error=error)
    if not isinstance(value, (list, tuple)):
        raise error(f"must be a list, got {describe(value)}", source=source, field=path)
    return tuple(item if isinstance(item, sub) else
                 build_record(sub, item, path=f"{path}[{i}]", source=source, error=error)
                 for i, item in enumerate(value))


def _check_required(required: tuple[str, ...], kwargs: Mapping[str, Any], path: str,
                    source: str | None, error: type[PromptcError]) -> None:
    for name in required:
        if name not in kwargs:
            raise error(f"missing required field {name!r}", source=source, field=path or None)


def _construct(cls: type, kwargs: dict[str, Any], path: str, source: str | None,
               error: type[PromptcError]) -> Any:
    """`cls(**kwargs)`; what its own validators raise is re-raised as `error` at `path`."""
    try:
        return cls(**kwargs)
    except PromptcError as exc:
        field = ".".join(p for p in (path, exc.field) if p) or None
        raise error(exc.message, source=exc.source or source, field=field) from None
    except (TypeError, ValueError) as exc:
        raise error(str(exc), source=source, field=path or None) from None
