"""An MCP tool's arguments checked against the input schema its server declared.

The validator is `jsonschema` (the reference implementation of JSON Schema, maintained, with
Draft 2020-12, which MCP names as the default dialect; a schema's own `$schema` picks another
draft). It is imported on the first MCP call checked, never on the per-request path, and one
validator is built per distinct schema and kept in the tool set's memo.

What cannot be checked is said, never guessed: arguments nesting deeper than
`values.MAX_NESTING`, a schema nesting deeper than `MAX_SCHEMA_NESTING`, or a validation that
would exhaust Python's recursion are refused with a problem (`uncheckable`); a schema that is not
valid JSON Schema is checked for its `required` names only, and the call says so in a warning.
Problems are sorted by where they are, so the same call gives the same message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from .._base.memo import Cache
from .._model.json_schema import nesting_depth
from .records import CallProblem, CallWarning, Notice, Problem
from .values import MAX_NESTING

__all__ = ["MAX_SCHEMA_NESTING", "MAX_PROBLEMS", "Verdict", "check_arguments", "Cache",
           "value_at"]

MAX_SCHEMA_NESTING = 128
MAX_PROBLEMS = 8
_MAX_SHOWN = 60


@attrs.frozen
class Verdict:
    problems: tuple[CallProblem, ...] = ()
    warnings: tuple[CallWarning, ...] = ()


@attrs.frozen
class _Compiled:
    validator: Any  # a jsonschema Validator, or None when the schema is not valid
    schema_error: str = ""


def _compiled(schema: Mapping[str, Any], key: str, cache: Cache) -> _Compiled:
    made: _Compiled | None = cache.get(("mcp-validator", key))
    if made is None:
        made = cache.put(("mcp-validator", key), _compile(schema))
    return made


def _compile(schema: Mapping[str, Any]) -> _Compiled:
    import jsonschema
    from jsonschema.exceptions import SchemaError
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        return _Compiled(None, _clip(exc.message))
    except RecursionError:
        return _Compiled(None, "it nests too deeply to be read")
    return _Compiled(cls(schema))


def check_arguments(arguments: Mapping[str, Any], schema: Mapping[str, Any], key: str,
                    label: str, cache: Cache) -> Verdict:
    """What is wrong with `arguments` for the tool `label` (`server/tool` or its function
    name) whose input schema is `schema` (`key`: its canonical JSON text)."""
    if nesting_depth(arguments, MAX_NESTING) > MAX_NESTING:
        return _uncheckable(label, f"the arguments nest more than {MAX_NESTING} levels deep")
    if nesting_depth(schema, MAX_SCHEMA_NESTING) > MAX_SCHEMA_NESTING:
        return _uncheckable(label, f"its server's input schema nests more than "
                                   f"{MAX_SCHEMA_NESTING} levels deep")
    compiled = _compiled(schema, key, cache)
    if compiled.validator is None:
        return _required_only(arguments, schema, label, compiled.schema_error)
    try:
        errors = list(compiled.validator.iter_errors(dict(arguments)))
    except RecursionError:
        return _uncheckable(label, "checking the arguments against its server's input schema "
                                   "goes deeper than Python allows")
    errors.sort(key=lambda e: ([str(p) for p in e.absolute_path], str(e.validator),
                               e.message))
    problems: list[CallProblem] = []
    for error in errors:
        problems.extend(_problems(error, label))
    return Verdict(_capped(problems))


def _uncheckable(label: str, why: str) -> Verdict:
    return Verdict((CallProblem(Problem.UNCHECKABLE,
                                f"the call to {label} cannot be checked: {why}"),))


def _required_only(arguments: Mapping[str, Any], schema: Mapping[str, Any], label: str,
                   why: str) -> Verdict:
    required = schema.get("required")
    names = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
    problems = tuple(_missing(label, name) for name in names if name not in arguments)
    warning = CallWarning(Notice.SCHEMA_UNCHECKED,
                          f"the input schema of {label} is not valid JSON Schema ({why}); "
                          "only its required parameters were checked", name=label)
    return Verdict(problems, (warning,))


def _missing(label: str, name: str) -> CallProblem:
    return CallProblem(Problem.MISSING_PARAMETER,
                       f"tool {label!r} is missing its required parameter {name!r}", name)


def _problems(error: Any, label: str) -> list[CallProblem]:
    path = list(error.absolute_path)
    keyword = str(error.validator)
    top = str(path[0]) if path else None
    if keyword == "required" and not path:
        name = _quoted_name(error.message)
        return [_missing(label, name)]
    if keyword == "additionalProperties" and error.validator_value is False:
        return _extras(error, path, label)
    where = value_at(path, label)
    if keyword == "type":
        return [CallProblem(Problem.BAD_VALUE, f"{where} must be {_types(error.validator_value)}"
                            f", got {_shown(error.instance)}", top)]
    if keyword == "enum":
        options = ", ".join(_shown(o) for o in error.validator_value[:20])
        return [CallProblem(Problem.NOT_AN_OPTION, f"{where} must be one of {options}; got "
                            f"{_shown(error.instance)}", top)]
    if keyword == "required":
        return [CallProblem(Problem.BAD_VALUE, f"{where} is missing its required key "
                            f"{_quoted_name(error.message)!r}", top)]
    return [CallProblem(Problem.BAD_VALUE, f"{where} does not fit the tool's schema "
                        f"({keyword}: {_clip(error.message)})", top)]


def _extras(error: Any, path: Sequence[Any], label: str) -> list[CallProblem]:
    known = error.schema.get("properties")
    known = known if isinstance(known, Mapping) else {}
    extras = [k for k in error.instance if k not in known] if isinstance(error.instance,
                                                                          Mapping) else []
    if not path:
        names = ", ".join(known) or "none"
        return [CallProblem(Problem.UNKNOWN_PARAMETER, f"tool {label!r} has no parameter "
                            f"{k!r} (its parameters: {names})", k) for k in extras]
    top = str(path[0])
    where = value_at(path, label)
    return [CallProblem(Problem.BAD_VALUE, f"{where} has no key {k!r}", top) for k in extras]


def value_at(path: Sequence[Any], label: str) -> str:
    """How a message names the value at `path` in the arguments of `label`."""
    if not path:
        return f"the arguments of {label}"
    text = str(path[0])
    for part in path[1:]:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return f"parameter {text!r} of {label}"


def _types(value: Any) -> str:
    names = [value] if isinstance(value, str) else [str(v) for v in value]
    return " or ".join(names)


def _quoted_name(message: str) -> str:
    """The property jsonschema names in "'x' is a required property"."""
    if message.startswith("'") and "' is a required property" in message:
        return message[1:message.index("' is a required property")]
    return message


def _shown(value: Any) -> str:
    import json
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return _clip(text, _MAX_SHOWN)


def _clip(text: str, most: int = 160) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _capped(problems: list[CallProblem]) -> tuple[CallProblem, ...]:
    if len(problems) <= MAX_PROBLEMS:
        return tuple(problems)
    rest = len(problems) - MAX_PROBLEMS + 1
    return (*problems[:MAX_PROBLEMS - 1],
            CallProblem(Problem.BAD_VALUE, f"and {rest} more problems of the same call"))
