"""Declared runtime inputs: a variant's `[inputs.<NAME>]` tables, checked key by key, and the
JSON Schema a client can render as a form. What a request's values must be, and what a template
sees of them, is promptc/_model/input_values.py."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from .._base.errors import VariantConfigError
from .._base.frozen import freeze, thaw
from .._base.suggest import did_you_mean
from .input_schema import schema_problem
from .input_values import (check_value, read_value, render_value, resolve_inputs,
                           value_problem)

__all__ = ["InputSpec", "INPUT_TYPES", "INPUT_KEYS", "parse_inputs", "check_value",
           "resolve_inputs", "inputs_schema", "render_value", "example_values", "stand_in_values"]

INPUT_TYPES = ("string", "number", "boolean", "select", "date", "list", "object")

# The keys every input takes, and those only some types take.
_COMMON_KEYS = ("type", "required", "default", "example", "label", "description", "trusted")
_TYPE_KEYS: dict[str, tuple[str, ...]] = {
    "string": ("pattern", "max_length", "multiline", "allow_empty"),
    "number": ("min", "max"), "boolean": (), "select": ("options",), "date": (),
    "list": ("max_items", "schema"), "object": ("schema",),
}
INPUT_KEYS = (*_COMMON_KEYS, *dict.fromkeys(k for keys in _TYPE_KEYS.values() for k in keys))


@attrs.frozen
class InputSpec:
    """A runtime value a variant accepts: validated at compile time, rendered as a form field."""

    name: str
    type: str = "string"
    required: bool = False
    default: Any = None
    options: tuple[str, ...] = ()
    label: str = ""
    description: str = ""
    origin: str = ""
    schema: Any = None  # a list's items or an object: JSON Schema (None: fields unchecked)
    pattern: str = ""  # a string's whole value must match it
    max_length: int | None = None
    multiline: bool = False  # a one-line string refuses a line break
    allow_empty: bool = False  # an empty string satisfies `required`
    trusted: bool = False  # written by the deployment itself: not neutralised as outside text
    example: Any = None  # the value previews use (`render --examples`)
    min: float | None = None
    max: float | None = None
    max_items: int | None = None


def parse_inputs(table: Mapping[str, Any], source: str) -> dict[str, InputSpec]:
    if not isinstance(table, Mapping):
        raise VariantConfigError("must be a table of [inputs.<NAME>] tables", source=source,
                                 field="inputs")
    return {name: _parse_input(name, spec, source, f"inputs.{name}")
            for name, spec in table.items()}


def _keys(spec: Mapping[str, Any], tp: str, source: str, field: str) -> None:
    """Every key known, and meant for this type of input."""
    allowed = (*_COMMON_KEYS, *_TYPE_KEYS[tp])
    for key in spec:
        if key not in INPUT_KEYS:
            raise VariantConfigError(
                f"unknown key{did_you_mean(key, INPUT_KEYS)}; an input takes "
                f"{', '.join(_COMMON_KEYS)}, and by type: " +
                "; ".join(f"{t} {', '.join(k)}" for t, k in _TYPE_KEYS.items() if k),
                source=source, field=f"{field}.{key}")
        if key not in allowed:
            takers = [t for t, keys in _TYPE_KEYS.items() if key in keys]
            raise VariantConfigError(
                f"only {' and '.join(takers)} inputs take {key!r}; this one is a {tp} input "
                f"(its keys: {', '.join(allowed)})", source=source, field=f"{field}.{key}")


def _parse_input(name: str, spec: Any, source: str, field: str) -> InputSpec:
    """One `[inputs.<name>]` table, checked key by key."""
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
        raise VariantConfigError("input names must be identifiers", source=source, field=field)
    if not isinstance(spec, Mapping):
        raise VariantConfigError("must be a table", source=source, field=field)
    tp = spec.get("type", "string")
    if tp not in INPUT_TYPES:
        raise VariantConfigError(f"type must be one of {list(INPUT_TYPES)}" +
                                 did_you_mean(str(tp), INPUT_TYPES), source=source,
                                 field=f"{field}.type")
    _keys(spec, tp, source, field)
    _check_key_types(spec, source, field)
    made = InputSpec(
        name=name, type=tp, required=spec.get("required", False),
        options=_input_options(tp, spec.get("options", []), source, field),
        label=spec.get("label", ""), description=spec.get("description", ""), origin=source,
        schema=_schema(spec.get("schema"), source, field),
        pattern=_pattern(spec.get("pattern", ""), source, field),
        max_length=spec.get("max_length"), multiline=spec.get("multiline", False),
        allow_empty=spec.get("allow_empty", False), trusted=spec.get("trusted", False),
        min=spec.get("min"), max=spec.get("max"), max_items=spec.get("max_items"))
    if made.min is not None and made.max is not None and made.min > made.max:
        raise VariantConfigError(f"min ({made.min}) is more than max ({made.max})",
                                 source=source, field=f"{field}.min")
    return attrs.evolve(made, default=_own_value(made, spec, "default", source, field),
                        example=_own_value(made, spec, "example", source, field))


def _own_value(spec: InputSpec, table: Mapping[str, Any], key: str, source: str, field: str
               ) -> Any:
    """A `default` or `example`, which must keep the declaration like any value (frozen: a
    declaration is hashable)."""
    if key not in table:
        return None
    value = read_value(spec.type, table[key])
    problem = value_problem(spec, value)
    if problem:
        raise VariantConfigError(f"{key} {problem}", source=source, field=f"{field}.{key}")
    return freeze(value)


def _input_options(tp: str, options: Any, source: str, field: str) -> tuple[str, ...]:
    """A select input's options (a list of strings); other types take none."""
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise VariantConfigError("must be a list of strings", source=source,
                                 field=f"{field}.options")
    if tp == "select" and not options:
        raise VariantConfigError("a select input needs options", source=source,
                                 field=f"{field}.options")
    return tuple(options)


_BOOLEANS = ("required", "multiline", "allow_empty", "trusted")
_COUNTS = ("max_length", "max_items")


def _check_key_types(spec: Mapping[str, Any], source: str, field: str) -> None:
    """Switches are booleans, lengths whole numbers, bounds numbers, words strings."""
    for key in _BOOLEANS:
        if key in spec and not isinstance(spec[key], bool):
            raise VariantConfigError("must be true or false", source=source,
                                     field=f"{field}.{key}")
    for key in ("label", "description", "pattern"):
        if key in spec and not isinstance(spec[key], str):
            raise VariantConfigError("must be a string", source=source, field=f"{field}.{key}")
    for key in _COUNTS:
        if key in spec and (not isinstance(spec[key], int) or isinstance(spec[key], bool) or
                            spec[key] < 0):
            raise VariantConfigError("must be a whole number ≥ 0", source=source,
                                     field=f"{field}.{key}")
    for key in ("min", "max"):
        if key in spec and check_value("number", (), spec[key]) is not None:
            raise VariantConfigError("must be a number", source=source, field=f"{field}.{key}")


def _schema(schema: Any, source: str, field: str) -> Any:
    if schema is None:
        return None
    if not isinstance(schema, Mapping):
        raise VariantConfigError("must be a table (a JSON Schema)", source=source,
                                 field=f"{field}.schema")
    found = schema_problem(schema)
    if found:
        raise VariantConfigError(f"is not a JSON Schema promptc can check: {found}",
                                 source=source, field=f"{field}.schema")
    return freeze(dict(schema))


def _pattern(pattern: str, source: str, field: str) -> str:
    """A pattern that compiles, and whose matching time cannot explode: no repeat of a part
    that itself repeats or has alternatives (`(a+)+`, `(a|ab)*`), unless that part is atomic
    (`(?>…)`) or its repeat possessive (`++`, `*+`), which never backtrack."""
    if not pattern:
        return ""
    import re._parser as parser  # only for a declaration with a pattern
    try:
        parsed = parser.parse(pattern)
    except re.error as exc:
        raise VariantConfigError(f"is not a regular expression: {exc}", source=source,
                                 field=f"{field}.pattern") from None
    if _risky(parsed, parser, False):
        raise VariantConfigError(
            "repeats a part that itself repeats or has alternatives (like (a+)+ or (a|b)*), "
            "so matching could take exponential time: write it without the nesting, or make "
            "the outer repeat possessive (*+, ++) or the group atomic ((?>…))",
            source=source, field=f"{field}.pattern")
    return pattern


def _risky(items: Any, parser: Any, repeated: bool) -> bool:
    """Whether a parsed pattern nests a backtracking repeat or an alternation inside a
    repeat (recursive only in the pattern's own nesting, which its author wrote)."""
    for op, arg in items:
        if op is parser.POSSESSIVE_REPEAT or op is parser.ATOMIC_GROUP:
            inner = arg[2] if op is parser.POSSESSIVE_REPEAT else arg
            if _risky(inner, parser, False):  # never backtracked into: safe where it stands
                return True
        elif op in (parser.MAX_REPEAT, parser.MIN_REPEAT):
            many = arg[1] > 1
            if (many and repeated) or _risky(arg[2], parser, repeated or many):
                return True
        elif op is parser.BRANCH:
            if repeated or any(_risky(branch, parser, False) for branch in arg[1]):
                return True
        elif op in (parser.SUBPATTERN, parser.ASSERT, parser.ASSERT_NOT):
            if _risky(arg[-1], parser, repeated):
                return True
        elif op is parser.GROUPREF or op is parser.GROUPREF_EXISTS:
            return True  # a back-reference: no linear bound
    return False


# --- for people and forms ----------------------------------------------------------------------

def example_values(specs: Sequence[InputSpec]) -> tuple[dict[str, Any], list[str]]:
    """The values a preview uses: each input's example, else its default (the default
    applies anyway); and the inputs that have neither."""
    values: dict[str, Any] = {}
    lacking: list[str] = []
    for s in specs:
        if s.example is not None:
            values[s.name] = thaw(s.example)
        elif s.default is None:
            lacking.append(s.name)
    return values, lacking


_STAND_INS: dict[str, Any] = {"string": "x", "number": 0, "boolean": False,
                              "date": "2026-01-01", "list": [], "object": {}}


def stand_in_values(specs: Sequence[InputSpec]) -> dict[str, Any]:
    """Values to render a variant with when no request is at hand (lint): each input's
    example, else for a required input without a default a plain value of its type."""
    values, lacking = example_values(specs)
    for s in specs:
        if s.name in lacking and s.required:
            values[s.name] = s.options[0] if s.type == "select" else \
                s.min if s.type == "number" and s.min is not None else _STAND_INS[s.type]
    return values


def _form_type(s: InputSpec) -> dict[str, Any]:
    if s.type == "select":
        return {"type": "string", "enum": list(s.options)}
    if s.type == "date":
        return {"type": "string", "format": "date"}
    if s.type == "list":
        prop: dict[str, Any] = {"type": "array"}
        if s.schema is not None:
            prop["items"] = thaw(s.schema)
        if s.max_items is not None:
            prop["maxItems"] = s.max_items
        return prop
    if s.type == "object":
        return {**thaw(s.schema), "type": "object"} if s.schema is not None else \
            {"type": "object"}
    return {"type": s.type}


def _form_rules(s: InputSpec) -> dict[str, Any]:
    rules: dict[str, Any] = {}
    if s.pattern:  # JSON Schema's pattern searches; the declaration's matches the whole value
        rules["pattern"] = f"^(?:{s.pattern})$"
    if s.max_length is not None:
        rules["maxLength"] = s.max_length
    if s.type == "string" and s.required and not s.allow_empty:
        rules["minLength"] = 1
    if s.min is not None:
        rules["minimum"] = s.min
    if s.max is not None:
        rules["maximum"] = s.max
    return rules


def inputs_schema(variant_id: str, specs: Sequence[InputSpec]) -> dict[str, Any]:
    """The inputs as a JSON Schema (draft 2020-12) a UI can render as a form."""
    props: dict[str, Any] = {}
    required = []
    for s in specs:
        prop: dict[str, Any] = {"title": s.label or s.name}
        if s.description:
            prop["description"] = s.description
        prop.update(_form_type(s))
        prop.update(_form_rules(s))
        if s.default is not None:
            prop["default"] = thaw(s.default)
        if s.example is not None:
            prop["examples"] = [thaw(s.example)]
        props[s.name] = prop
        if s.required and s.default is None:
            required.append(s.name)
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Runtime inputs of variant {variant_id}",
        "type": "object",
        "properties": props,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    return schema
