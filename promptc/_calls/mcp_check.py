"""An MCP tool's arguments checked against the input schema its server declared.

The checking is `_model.schema_check`'s (no I/O, no exception, bounded time and memory,
whatever the server's schema and the model's arguments say); this module turns what it finds into
messages for the model. One prepared checker is kept per distinct schema in the tool set's memo.

What cannot be checked is said, never guessed: arguments nesting deeper than
`values.MAX_NESTING`, a schema nesting deeper than `MAX_SCHEMA_NESTING`, or a check that would
take more than its bounded number of steps are refused with a problem (`uncheckable`); a part of
the schema that cannot be used (a `$ref` to anything outside the schema, which is never fetched, a
pattern RE2 cannot run, a keyword that is not valid JSON Schema) is left unchecked, and the call
says so in a warning (`schema-unchecked`). Problems are sorted by where they are, so the same
call gives the same message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from .._base.memo import Cache
from .._model.json_schema import nesting_depth
from .._model.schema_check import MAX_SCHEMA_NESTING, SchemaChecker, SchemaProblem
from .records import CallProblem, CallWarning, Notice, Problem
from .values import MAX_NESTING

__all__ = ["MAX_SCHEMA_NESTING", "MAX_PROBLEMS", "Verdict", "check_arguments", "Cache",
           "value_at"]

MAX_PROBLEMS = 8


@attrs.frozen
class Verdict:
    problems: tuple[CallProblem, ...] = ()
    warnings: tuple[CallWarning, ...] = ()


def _checker(schema: Mapping[str, Any], key: str, cache: Cache) -> SchemaChecker:
    made: SchemaChecker | None = cache.get(("mcp-schema", key))
    if made is None:
        made = cache.put(("mcp-schema", key), SchemaChecker(schema))
    return made


def check_arguments(arguments: Mapping[str, Any], schema: Mapping[str, Any], key: str,
                    label: str, cache: Cache) -> Verdict:
    """What is wrong with `arguments` for the tool `label` (`server/tool` or its function
    name) whose input schema is `schema` (`key`: its canonical JSON text)."""
    if nesting_depth(arguments, MAX_NESTING) > MAX_NESTING:
        return _uncheckable(label, f"the arguments nest more than {MAX_NESTING} levels deep")
    if nesting_depth(schema, MAX_SCHEMA_NESTING) > MAX_SCHEMA_NESTING:
        return _uncheckable(label, f"its server's input schema nests more than "
                                   f"{MAX_SCHEMA_NESTING} levels deep")
    verdict = _checker(schema, key, cache).check(dict(arguments))
    warnings: tuple[CallWarning, ...] = ()
    if verdict.notes:
        warnings = (CallWarning(Notice.SCHEMA_UNCHECKED, f"part of the input schema of {label} "
                                f"could not be used: {'; '.join(verdict.notes)}", name=label),)
    if verdict.uncheckable is not None:
        return Verdict(_uncheckable(label, f"{verdict.uncheckable} against its server's "
                                           "input schema").problems, warnings)
    problems: list[CallProblem] = []
    for problem in verdict.problems:
        problems.append(_problem(problem, schema, label))
    return Verdict(_capped(problems, verdict.more), warnings)


def _uncheckable(label: str, why: str) -> Verdict:
    return Verdict((CallProblem(Problem.UNCHECKABLE,
                                f"the call to {label} cannot be checked: {why}"),))


def _missing(label: str, name: str) -> CallProblem:
    return CallProblem(Problem.MISSING_PARAMETER,
                       f"tool {label!r} is missing its required parameter {name!r}", name)


def _problem(problem: SchemaProblem, schema: Mapping[str, Any], label: str) -> CallProblem:
    path = problem.path
    if not path and problem.key is not None:
        if problem.keyword == "required":
            return _missing(label, problem.key)
        if problem.keyword in ("additionalProperties", "unevaluatedProperties"):
            known = schema.get("properties")
            names = ", ".join(known) if isinstance(known, Mapping) and known else "none"
            return CallProblem(Problem.UNKNOWN_PARAMETER, f"tool {label!r} has no parameter "
                               f"{problem.key!r} (its parameters: {names})", problem.key)
    top = str(path[0]) if path else None
    code = Problem.NOT_AN_OPTION if problem.keyword in ("enum", "const") else Problem.BAD_VALUE
    return CallProblem(code, f"{value_at(path, label)} {problem.message}", top)


def value_at(path: Sequence[Any], label: str) -> str:
    """How a message names the value at `path` in the arguments of `label`."""
    if not path:
        return f"the arguments of {label}"
    text = str(path[0])
    for part in path[1:]:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return f"parameter {text!r} of {label}"


def _capped(problems: list[CallProblem], more: int) -> tuple[CallProblem, ...]:
    if len(problems) + more <= MAX_PROBLEMS:
        return tuple(problems)
    rest = len(problems) + more - MAX_PROBLEMS + 1
    return (*problems[:MAX_PROBLEMS - 1],
            CallProblem(Problem.BAD_VALUE, f"and {rest} more problems of the same call"))
