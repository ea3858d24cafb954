"""A schema as it arrived from an MCP server, with every malformed keyword value taken out.

One keyword whose value has the wrong shape (`"minimum": "zero"`, `"pattern": 5`,
`"required": "id"`, a property that is not a schema) makes a provider reject the whole request,
every tool in it: google-genai refuses the `Schema`, OpenAI and Anthropic answer 400. `clean`
drops each such value (or the entry of a list or map that is not a schema) and says what it
dropped and where; everything else is kept as it was, unknown keywords included.

Numbers too: a value holding a number no JSON writer can carry (`1e400` reads as infinity, NaN)
or no double can hold (`10**400`) is dropped, whatever its keyword, so no payload ever says
`Infinity` (which no JSON reader takes and the SDKs refuse to send); a count (`maxLength`…) is
a whole number up to 2**53 - 1, the largest every JSON reader holds exactly.

The walk uses an explicit stack: a schema nested a million levels deep is cleaned, not a
RecursionError.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from ..._model.json_schema import unwritable_number
from .visitor import SchemaProblem

__all__ = ["clean", "carried_numbers", "TYPES", "CODE"]

CODE = "schema-keyword-dropped"  # re-exported as KEYWORD_DROPPED
TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})


_LARGEST_COUNT = 2**53 - 1


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _count(v: Any) -> bool:
    return _number(v) and 0 <= v <= _LARGEST_COUNT and (isinstance(v, int) or v.is_integer())


def _carried(value: Any) -> bool:
    """Every number in `value` is one a JSON writer can write and a double can hold."""
    return unwritable_number(value, double=True) is None


def _type(v: Any) -> bool:
    if isinstance(v, str):
        return v in TYPES
    return isinstance(v, list) and bool(v) and all(isinstance(k, str) and k in TYPES for k in v)


# keyword -> (what its value must be, a check). Keywords holding schemas are walked below.
_VALUES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    **{k: ("a number", _number) for k in ("minimum", "maximum", "exclusiveMinimum",
                                           "exclusiveMaximum")},
    "multipleOf": ("a number above 0", lambda v: _number(v) and v > 0),
    **{k: (f"a whole number from 0 to {_LARGEST_COUNT}", _count) for k in (
        "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
        "minContains", "maxContains")},
    **{k: ("a string", lambda v: isinstance(v, str)) for k in (
        "pattern", "format", "title", "description", "$ref", "$id", "$schema", "$comment",
        "$anchor", "contentEncoding", "contentMediaType")},
    **{k: ("true or false", lambda v: isinstance(v, bool)) for k in (
        "uniqueItems", "nullable", "readOnly", "writeOnly", "deprecated")},
    "type": ("a JSON type name or a list of them", _type),
    "enum": ("a list of values", lambda v: isinstance(v, list) and bool(v)),
    "examples": ("a list", lambda v: isinstance(v, list)),
    "required": ("a list of property names", lambda v: isinstance(v, list)),
}
# Keywords whose value is one schema, a list of schemas, or a map of names to schemas.
_SCHEMA = frozenset({"additionalProperties", "not", "if", "then", "else", "contains",
                     "propertyNames", "additionalItems", "unevaluatedItems",
                     "unevaluatedProperties"})
_SCHEMA_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_SCHEMA_MAP = frozenset({"properties", "patternProperties", "$defs", "definitions",
                         "dependentSchemas"})
_WALKED = _SCHEMA | _SCHEMA_LIST | _SCHEMA_MAP | {"items"}

# A path is linked to its parent's, so a node a million levels deep costs one link, not a
# million segments; a problem shows the last few (`where`).
KeyPath = tuple[str, Any] | None  # (segment, parent path)
Work = deque[tuple[Mapping[str, Any], dict[str, Any], KeyPath]]  # (node, its copy, its path)
SHOWN = 6  # segments of a path a problem shows


def where(path: KeyPath) -> str:
    """The last SHOWN segments of a path, joined with dots (`…` before them when cut)."""
    segments: list[str] = []
    while path is not None and len(segments) <= SHOWN:
        segments.append(path[0])
        path = path[1]
    cut = len(segments) > SHOWN
    shown = ".".join(reversed(segments[:SHOWN]))
    return "…." + shown if cut else shown


def _describe(value: Any) -> str:
    try:
        text = repr(value)
    except ValueError:  # an int past Python's 4,300-digit conversion limit
        text = "an integer of more than 4,300 digits"
    return text if len(text) <= 40 else text[:37] + "..."


def _is_schema(value: Any) -> bool:
    return isinstance(value, (Mapping, bool))


class _Cleaner:
    __slots__ = ("problems", "work", "numbers_only")

    def __init__(self, numbers_only: bool = False) -> None:
        self.problems: list[SchemaProblem] = []
        self.work: Work = deque()
        self.numbers_only = numbers_only

    def drop(self, keyword: str, path: KeyPath, detail: str) -> None:
        self.problems.append(SchemaProblem(CODE, keyword, where(path), detail + ": dropped"))

    def child(self, value: Any, path: KeyPath) -> Any:
        """A schema value's copy, its contents queued to be cleaned."""
        if not isinstance(value, Mapping):
            return value
        copy: dict[str, Any] = {}
        self.work.append((value, copy, path))
        return copy

    def node(self, node: Mapping[str, Any], out: dict[str, Any], path: KeyPath) -> None:
        for key, value in node.items():
            kept = self.value(key, value, path)
            if kept is not _DROPPED:
                out[key] = kept

    def value(self, key: str, value: Any, path: KeyPath) -> Any:
        """The keyword's value as kept (_DROPPED: none of it); `path` is the node's."""
        if key not in _WALKED and not _carried(value):  # schemas are cleaned as they are walked
            self.drop(key, path, f"{_describe(value)} is or holds a number JSON cannot carry "
                                 "(too large for a double, or not a number)")
            return _DROPPED
        if self.numbers_only:
            return self.walked(key, value, path) if key in _WALKED else value
        if key in _VALUES:
            want, fits = _VALUES[key]
            if fits(value):
                return self.names(value, path) if key == "required" else value
            self.drop(key, path, f"{_describe(value)} is not {want}")
            return _DROPPED
        if key in _SCHEMA or key == "items":
            return self.one_schema(key, value, path)
        if key in _SCHEMA_LIST:
            return self.schema_list(key, value, path)
        if key in _SCHEMA_MAP:
            return self.schema_map(key, value, path)
        return value

    def walked(self, key: str, value: Any, path: KeyPath) -> Any:
        """A value holding schemas, with only the numbers checked (`numbers_only`): a value
        of the wrong shape is kept as it is, unless it holds such a number."""
        if key in _SCHEMA_MAP and isinstance(value, Mapping):
            kept = {n: self.kept(key, v, (f"{key}.{n}", path)) for n, v in value.items()}
            return {n: v for n, v in kept.items() if v is not _DROPPED}
        if isinstance(value, list) and (key in _SCHEMA_LIST or key == "items"):
            items = [self.kept(key, v, (f"{key}.{i}", path)) for i, v in enumerate(value)]
            return [v for v in items if v is not _DROPPED]
        return self.kept(key, value, (key, path))

    def kept(self, key: str, value: Any, path: KeyPath) -> Any:
        if _is_schema(value):
            return self.child(value, path)
        if _carried(value):
            return value
        self.drop(key, path, f"{_describe(value)} is or holds a number JSON cannot carry")
        return _DROPPED

    def names(self, value: list[Any], path: KeyPath) -> list[Any]:
        kept = [name for name in value if isinstance(name, str)]
        if len(kept) < len(value):
            wrong = [name for name in value if not isinstance(name, str)]
            self.drop("required", path, f"{_describe(wrong)} are not property names")
        return kept

    def one_schema(self, key: str, value: Any, path: KeyPath) -> Any:
        if _is_schema(value):
            return self.child(value, (key, path))
        if key == "items" and isinstance(value, list):  # the older tuple form
            return self.schema_list(key, value, path)
        self.drop(key, path, f"{_describe(value)} is not a schema")
        return _DROPPED

    def schema_list(self, key: str, value: Any, path: KeyPath) -> Any:
        if not isinstance(value, list) or not value:
            self.drop(key, path, f"{_describe(value)} is not a list of schemas")
            return _DROPPED
        kept = []
        for i, entry in enumerate(value):
            if _is_schema(entry):
                kept.append(self.child(entry, (f"{key}.{i}", path)))
            else:
                self.drop(key, path, f"entry {i}, {_describe(entry)}, is not a schema")
        return kept if kept else _DROPPED

    def schema_map(self, key: str, value: Any, path: KeyPath) -> Any:
        if not isinstance(value, Mapping):
            self.drop(key, path, f"{_describe(value)} is not a map of names to schemas")
            return _DROPPED
        kept = {}
        for name, entry in value.items():
            if _is_schema(entry):
                kept[name] = self.child(entry, (f"{key}.{name}", path))
            else:
                self.drop(key, path, f"{name!r}: {_describe(entry)} is not a schema")
        return kept


_DROPPED = object()


def clean(schema: Any, numbers_only: bool = False) -> tuple[Any, tuple[SchemaProblem, ...]]:
    """A copy of `schema` without malformed keyword values, and what was dropped (a value that
    is not a mapping is returned as it is). `numbers_only`: drop only the values holding a
    number JSON cannot carry (`carried_numbers`)."""
    if not isinstance(schema, Mapping):
        return schema, ()
    cleaner = _Cleaner(numbers_only)
    root = cleaner.child(schema, None)
    while cleaner.work:
        cleaner.node(*cleaner.work.popleft())
    return root, tuple(cleaner.problems)


def carried_numbers(schema: Any) -> tuple[Any, tuple[SchemaProblem, ...]]:
    """`schema` as a text prompt shows it: everything kept but the values holding a number
    JSON cannot carry (each dropped and reported), so no prompt says `Infinity` or `NaN`."""
    return clean(schema, numbers_only=True)
