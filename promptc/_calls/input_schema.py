"""Structured runtime inputs checked against their declared JSON Schema.

The check is the call checker's (`mcp_check.check_arguments`: bounded, no I/O, `$ref`s only
inside the schema), reached through these two functions alone, so the checker behind them can
change without the inputs noticing. The value is checked as the one argument of a tool whose
schema has the input's schema as that argument's: problems then name where they are
(`FILES[0].name`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._base.frozen import compact_json, thaw
from .._base.memo import Memo
from .mcp_check import check_arguments
from .records import Notice

__all__ = ["schema_problem", "value_problems"]

_VALIDATORS: Memo[Any, Any] = Memo(256)  # the checker's validators, by the schema's JSON text


def _wrapped(name: str, schema: Any, items: bool) -> dict[str, Any]:
    inner = thaw(schema)
    return {"type": "object", "properties": {name: {"type": "array", "items": inner}
                                             if items else inner}}


def value_problems(name: str, value: Any, schema: Any, items: bool) -> Sequence[str]:
    """What is wrong with `value` for input `name` whose `schema` describes the whole value,
    or (`items`) each item of a list."""
    wrapped = _wrapped(name, schema, items)
    verdict = check_arguments({name: thaw(value)}, wrapped, compact_json(wrapped),
                              f"input {name!r}", _VALIDATORS)
    label = f" of input {name!r}"
    return [p.message.replace(label, "").removeprefix("parameter ") for p in verdict.problems] + \
        [w.message for w in verdict.warnings]


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """Why `schema` is not a JSON Schema the checker can hold values to (None: it is)."""
    wrapped = _wrapped("value", schema, False)
    verdict = check_arguments({}, wrapped, compact_json(wrapped), "schema", _VALIDATORS)
    unchecked = [w.message for w in verdict.warnings if w.code == Notice.SCHEMA_UNCHECKED]
    if unchecked:
        text = unchecked[0]
        return text[text.find("(") + 1:text.rfind(")")] if "(" in text else text
    problems = [p.message for p in verdict.problems]
    return problems[0] if problems else None
