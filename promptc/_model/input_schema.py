"""Structured runtime inputs held to their declared JSON Schema.

The check is the one MCP arguments get (`schema_check`: no I/O, `$ref`s only inside the schema,
bounded work, never an exception), so a value a client sends and a value a model sends are held
to the same promise. Problems name where they are, from the input's name down
(`'FILES[0].name' must be a string, got 3`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._base.frozen import compact_json, thaw
from .._base.memo import Memo
from .schema_check import SchemaChecker, SchemaProblem

__all__ = ["schema_problem", "value_problems"]

# One checker per distinct schema (by its compact JSON text), prepared once.
_CHECKERS: Memo[str, SchemaChecker] = Memo(256)


def _checker(schema: Any) -> SchemaChecker:
    plain = thaw(schema)
    key = compact_json(plain)
    made = _CHECKERS.get(key)
    if made is None:
        made = _CHECKERS.put(key, SchemaChecker(plain))
    return made


def _where(name: str, path: Sequence[Any]) -> str:
    text = name
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _message(name: str, problem: SchemaProblem) -> str:
    return f"{_where(name, problem.path)!r} {problem.message}"


def value_problems(name: str, value: Any, schema: Any, items: bool) -> list[str]:
    """What is wrong with `value` for input `name` whose `schema` describes the whole value,
    or (`items`) each item of a list; a part of the schema that could not be used, or a value
    the check could not finish, is said too (such a value is not taken on trust)."""
    checker = _checker(schema)
    plain = thaw(value)
    found: list[str] = []
    notes: list[str] = []
    for index, item in (enumerate(plain) if items and isinstance(plain, list) else
                        [(None, plain)]):
        verdict = checker.check(item)
        label = name if index is None else f"{name}[{index}]"
        found.extend(_message(label, p) for p in verdict.problems)
        if verdict.uncheckable is not None:
            found.append(f"{label!r} cannot be checked: {verdict.uncheckable}")
        notes.extend(n for n in verdict.notes if n not in notes)
    return found + [f"part of the schema of input {name!r} could not be used: {n}"
                    for n in notes]


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """Why `schema` is not a JSON Schema promptc can hold values to (None: it can): a part
    the checker could not use would leave values unchecked without a word."""
    notes = _checker(schema).check(None).notes
    return notes[0] if notes else None
