"""Declared runtime inputs: a variant's declarations, the values a request carries (validated,
defaults filled), and the JSON Schema a client can render as a form."""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from .._base.errors import VariantConfigError
from .._base.records import describe
from .._base.suggest import did_you_mean
from .._text.template import Flag
from .diagnostics import Reporter

__all__ = ["InputSpec", "INPUT_TYPES", "parse_inputs", "check_value", "resolve_inputs",
           "inputs_schema"]

INPUT_TYPES = ("string", "number", "boolean", "select", "date")


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


_INPUT_KEYS = ("type", "required", "default", "options", "label", "description")


def parse_inputs(table: Mapping[str, Any], source: str) -> dict[str, InputSpec]:
    return {name: _parse_input(name, spec, source, f"inputs.{name}")
            for name, spec in table.items()}


def _parse_input(name: str, spec: Any, source: str, field: str) -> InputSpec:
    """One `[inputs.<name>]` table, checked key by key."""
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
        raise VariantConfigError("input names must be identifiers", source=source, field=field)
    if not isinstance(spec, Mapping):
        raise VariantConfigError("must be a table", source=source, field=field)
    for key in spec:
        if key not in _INPUT_KEYS:
            raise VariantConfigError("unknown key" + did_you_mean(key, _INPUT_KEYS),
                                     source=source, field=f"{field}.{key}")
    tp = spec.get("type", "string")
    if tp not in INPUT_TYPES:
        raise VariantConfigError(f"type must be one of {list(INPUT_TYPES)}" +
                                 did_you_mean(str(tp), INPUT_TYPES), source=source,
                                 field=f"{field}.type")
    options = _input_options(tp, spec.get("options", []), source, field)
    _check_key_types(spec, source, field)
    default = spec.get("default")
    problem = check_value(tp, options, default) if default is not None else None
    if problem:
        raise VariantConfigError(f"default {problem}", source=source, field=f"{field}.default")
    return InputSpec(name=name, type=tp, required=spec.get("required", False), default=default,
                     options=options, label=spec.get("label", ""),
                     description=spec.get("description", ""), origin=source)


def _input_options(tp: str, options: Any, source: str, field: str) -> tuple[str, ...]:
    """A select input's options (a list of strings); other types take none."""
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise VariantConfigError("must be a list of strings", source=source,
                                 field=f"{field}.options")
    if tp == "select" and not options:
        raise VariantConfigError("a select input needs options", source=source,
                                 field=f"{field}.options")
    if tp != "select" and options:
        raise VariantConfigError("only select inputs take options", source=source,
                                 field=f"{field}.options")
    return tuple(options)


def _check_key_types(spec: Mapping[str, Any], source: str, field: str) -> None:
    """`required` is a boolean; `label` and `description` are strings."""
    if "required" in spec and not isinstance(spec["required"], bool):
        raise VariantConfigError("must be true or false", source=source,
                                 field=f"{field}.required")
    for key in ("label", "description"):
        if key in spec and not isinstance(spec[key], str):
            raise VariantConfigError("must be a string", source=source, field=f"{field}.{key}")


def _shown(value: Any) -> str:
    """A value as a message quotes it: a scalar's short repr, a container's kind (the repr of
    a list nested thousands deep would raise RecursionError, and a long one drowns the
    message)."""
    if isinstance(value, (list, tuple, dict)):
        return describe(value)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_value(tp: str, options: Sequence[str], value: Any) -> str | None:
    """A problem with `value` for an input of type `tp`, or None when it is fine."""
    check = _VALUE_CHECKS.get(tp)
    if check is None:
        return f"has unknown type {tp!r}"
    return check(options, value)


def _string_problem(_options: Sequence[str], value: Any) -> str | None:
    return None if isinstance(value, str) else f"must be a string, got {_shown(value)}"


def _number_problem(_options: Sequence[str], value: Any) -> str | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return None if ok else f"must be a number, got {_shown(value)}"


def _boolean_problem(_options: Sequence[str], value: Any) -> str | None:
    return None if isinstance(value, bool) else f"must be true or false, got {_shown(value)}"


def _select_problem(options: Sequence[str], value: Any) -> str | None:
    if value in options:
        return None
    return f"must be one of {list(options)}, got {_shown(value)}"


def _date_problem(_options: Sequence[str], value: Any) -> str | None:
    if isinstance(value, str):
        try:
            datetime.date.fromisoformat(value)
            return None
        except ValueError:
            pass
    return f"must be an ISO date (YYYY-MM-DD), got {_shown(value)}"


# input type -> what is wrong with a value for it (None: nothing)
_VALUE_CHECKS: dict[str, Callable[[Sequence[str], Any], str | None]] = {
    "string": _string_problem, "number": _number_problem, "boolean": _boolean_problem,
    "select": _select_problem, "date": _date_problem,
}


def _as_text(value: Any) -> str:
    if isinstance(value, bool):  # a switch for sections, "true" or "false" as text
        return Flag("true" if value else "false")
    return str(value)


def resolve_inputs(specs: Sequence[InputSpec], runtime: Mapping[str, Any],
                   overridable: Mapping[str, str], report: Reporter) -> dict[str, str]:
    """Validate runtime values against declarations; return the text value of every input.

    `overridable` maps the names a runtime value may set without a declaration (component
    sections, standard placeholders, placeholder defaults) to what such a value replaces. The
    runtime layer is the top placeholder layer, so such a value is applied, but never quietly:
    it is reported (a warning, refused in strict mode) naming what it replaces.
    """
    values: dict[str, str] = {}
    for spec in specs:
        value = _declared_value(spec, runtime, report)
        if value is not None:
            values[spec.name] = value
    declared = {s.name: s for s in specs}
    for name, value in runtime.items():
        if name not in declared:
            text = _undeclared_value(name, value, declared, overridable, report)
            if text is not None:
                values[name] = text
    return values


def _declared_value(spec: InputSpec, runtime: Mapping[str, Any], report: Reporter
                    ) -> str | None:
    """A declared input's text: the runtime value if valid, else its default (None: none)."""
    if spec.name not in runtime:
        if spec.default is None and spec.required:
            report("error", "input-missing", f"required input {spec.name!r} has no value",
                   spec.name)
        return None if spec.default is None else _as_text(spec.default)
    value = runtime[spec.name]
    problem = check_value(spec.type, spec.options, value)
    if problem:
        report("error", "input-invalid", f"input {spec.name!r} {problem}", spec.name)
        return None if spec.default is None else _as_text(spec.default)
    return _as_text(value)


def _undeclared_value(name: str, value: Any, declared: Mapping[str, InputSpec],
                      overridable: Mapping[str, str], report: Reporter) -> str | None:
    """A runtime value no input declares: used (and reported) only where it replaces
    something a runtime value may set."""
    replaces = overridable.get(name)
    if replaces is None:
        report("warning", "input-undeclared",
               f"runtime value {name!r} is not a declared input of this variant" +
               did_you_mean(name, [*declared, *sorted(overridable)]), name)
        return None
    if not isinstance(value, (str, int, float, bool)):
        report("error", "input-invalid", f"runtime value {name!r} must be text, a number "
               f"or a boolean, not {type(value).__name__}; it is not used", name)
        return None
    report("warning", "input-undeclared",
           f"runtime value {name!r} is not a declared input of this variant: it replaces "
           f"{replaces} (request-class from now on)", name)
    return value if isinstance(value, str) else _as_text(value)


def inputs_schema(variant_id: str, specs: Sequence[InputSpec]) -> dict[str, Any]:
    """The inputs as a JSON Schema (draft 2020-12) a UI can render as a form."""
    props: dict[str, Any] = {}
    required = []
    for s in specs:
        prop: dict[str, Any] = {"title": s.label or s.name}
        if s.description:
            prop["description"] = s.description
        if s.type == "select":
            prop["type"] = "string"
            prop["enum"] = list(s.options)
        elif s.type == "date":
            prop["type"] = "string"
            prop["format"] = "date"
        else:
            prop["type"] = s.type
        if s.default is not None:
            prop["default"] = s.default
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
