"""A JSON value checked against a JSON Schema, with fixed bounds whatever either holds.

Both sides come from outside: the schema from an MCP server or a pack's declaration, the value
from a model or a client. So checking promises, for any schema and any value:

* **no I/O**: a `$ref` resolves only inside the schema (`schema_refs`); one that names anything
  else is never fetched or read, and the part behind it is reported as not checked (`notes`);
* **no exception**: what cannot be used is a note (a keyword whose value is not JSON Schema, a
  reference that names nothing, a pattern RE2 cannot run), what cannot be checked at all is
  `uncheckable`;
* **bounded time and memory**: every step is counted and the walk stops past its budget
  (`MAX_STEPS`, plus `STEPS_PER_VALUE` for each node of the value: linear in the value's size)
  or deeper than `MAX_DEPTH` (then `uncheckable`); patterns run on RE2 (linear, no backtracking);
  `uniqueItems`, `enum` and `const` compare hashed canonical forms (linear); at most
  `MAX_KEPT` problems are kept.

Why not a general validator: the reference implementation (`jsonschema`) fetches remote `$ref`s
and reads `file:` ones, raises on a reference it cannot resolve, runs patterns on a backtracking
engine and compares `uniqueItems` pairwise. The tests keep it as the oracle this checker must
agree with on every schema both can check.

Dialect: Draft 2020-12 (MCP's default), plus the older spellings still met in the wild
(`definitions`, `dependencies`, array-form `items` with `additionalItems`, boolean
`exclusiveMinimum`/`exclusiveMaximum`). `format` is an annotation (as 2020-12 has it);
`$dynamicRef` and `$recursiveRef` are not followed (a note says so).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .json_schema import nesting_depth, nesting_size
from .schema_keywords import (STEPS, Out, Path, SchemaProblem, Seen, Step, describe_type,
                              is_type, unevaluated)
from .schema_refs import Prepared, canonical, shown

__all__ = ["SchemaProblem", "SchemaVerdict", "SchemaChecker", "check_against_schema",
           "MAX_STEPS", "STEPS_PER_VALUE", "MAX_DEPTH", "MAX_SCHEMA_NESTING",
           "MAX_VALUE_NESTING", "MAX_KEPT", "describe_type", "is_type"]

MAX_STEPS = 200_000  # and `STEPS_PER_VALUE` more for each node of the value checked
STEPS_PER_VALUE = 16
MAX_DEPTH = 160  # nested subschema applications (each costs a few Python frames)
MAX_SCHEMA_NESTING = 128
MAX_VALUE_NESTING = 64
MAX_KEPT = 32


@attrs.frozen
class SchemaVerdict:
    """What checking found. `notes`: parts of the schema that could not be used, so were not
    checked (each says why). `uncheckable`: why the value could not be checked at all (then the
    problems are only those found before the check stopped). `more`: problems found past the
    `MAX_KEPT` kept."""

    problems: tuple[SchemaProblem, ...] = ()
    notes: tuple[str, ...] = ()
    uncheckable: str | None = None
    more: int = 0
    steps: int = 0  # the work the check did (what the bounds count)

    @property
    def fits(self) -> bool:
        return not self.problems and self.uncheckable is None


class _Stop(Exception):
    """Ends a check that would exceed its bounds (caught in `SchemaChecker.check`)."""


class SchemaChecker:
    """One schema, prepared once (references, patterns, options), then checked against values.
    Safe to share between threads: what it memoizes is the same whoever computes it."""

    __slots__ = ("schema", "prepared", "_too_deep")

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        deep = nesting_depth(schema, MAX_SCHEMA_NESTING) > MAX_SCHEMA_NESTING
        self._too_deep = deep
        self.prepared = Prepared({} if deep else schema)

    def check(self, value: Any) -> SchemaVerdict:
        if self._too_deep:
            return SchemaVerdict(uncheckable=f"the schema nests more than {MAX_SCHEMA_NESTING} "
                                             "levels deep")
        if nesting_depth(value, MAX_VALUE_NESTING) > MAX_VALUE_NESTING:
            return SchemaVerdict(uncheckable=f"the value nests more than {MAX_VALUE_NESTING} "
                                             "levels deep")
        run = _Run(self.prepared, MAX_STEPS + STEPS_PER_VALUE * nesting_size(value))
        why = None
        try:
            run.apply(self.schema, value, (), "", 0, run.problems)
        except _Stop as stop:
            why = str(stop)
        except RecursionError:
            why = "checking it goes deeper than Python allows"
        problems = sorted(run.problems, key=_order)
        return SchemaVerdict(tuple(problems), tuple(run.notes), why, run.more, run.steps)


def check_against_schema(value: Any, schema: Any) -> SchemaVerdict:
    """`value` checked against `schema` (see the module's promise). To check many values
    against one schema, keep a `SchemaChecker`."""
    return SchemaChecker(schema).check(value)


def _order(problem: SchemaProblem) -> tuple[Any, ...]:
    return ([str(p) for p in problem.path], problem.keyword, problem.message)


# --- the walk ---------------------------------------------------------------------------------



class _Run:
    """One check of one value: the step count, the problems and the notes."""

    def __init__(self, prepared: Prepared, budget: int) -> None:
        self.prepared = prepared
        self.track = prepared.uses_unevaluated
        self.budget = budget
        self.steps = 0
        self.problems: list[SchemaProblem] = []
        self.more = 0
        self.notes: list[str] = []
        self._noted: set[str] = set()
        self._forms: dict[int, tuple[Any, Any]] = {}

    def canonical(self, value: Any) -> Any:
        """`canonical(value)`, worked out once per value in a run (many subschemas may
        compare one large value)."""
        if not isinstance(value, (list, tuple, Mapping)):
            return canonical(value)
        found = self._forms.get(id(value))
        if found is None or found[0] is not value:
            self.tick(1 + nesting_size(value) // 64)
            found = self._forms[id(value)] = (value, canonical(value))
        return found[1]

    def tick(self, cost: int = 1) -> None:
        self.steps += cost
        if self.steps > self.budget:
            raise _Stop(f"checking it takes more than {self.budget:,} steps")

    def note(self, text: str) -> None:
        if text not in self._noted:
            self._noted.add(text)
            self.notes.append(text)

    def bad(self, keyword: str, value: Any, why: str) -> None:
        self.note(f'"{keyword}": {shown(value)} is not valid JSON Schema ({why}), so it was '
                  "not checked")

    def fail(self, out: Out, path: Path, keyword: str, message: str | Callable[[], str],
             key: str | None = None) -> bool:
        """Record a problem (a message that costs a value's JSON is made only when kept);
        False, so a step can return it."""
        if out is not None:
            if len(out) >= MAX_KEPT:
                self.more += 1
            else:
                text = message if isinstance(message, str) else message()
                out.append(SchemaProblem(path, keyword, text, key))
        return False

    def fits(self, node: Any, value: Any, path: Path, base: str, depth: int) -> Seen | None:
        """Whether `value` fits `node`, problems not collected (`anyOf`, `not`, `if`…)."""
        return self.apply(node, value, path, base, depth, None)

    def apply(self, node: Any, value: Any, path: Path, base: str, depth: int, out: Out
              ) -> Seen | None:
        """`node` applied to `value`: what it evaluated when the value fits, else None (and
        the problems in `out`)."""
        self.steps += 1
        if self.steps > self.budget:
            raise _Stop(f"checking it takes more than {self.budget:,} steps")
        if depth > MAX_DEPTH:
            raise _Stop(f"its schema applies subschemas more than {MAX_DEPTH} levels deep")
        if node is True:
            return Seen()
        if node is False:
            self.fail(out, path, "false", "is not allowed here (the schema admits no value)")
            return None
        if not isinstance(node, Mapping):
            self.note(f"{shown(node)} stands where a schema should, so it was not checked")
            return Seen()
        ident, steps = self._plan(node)
        if ident is not None:
            joined = self.prepared.join(base, ident)
            base = joined.partition("#")[0] if joined is not None else base
        seen = Seen()
        ok = True
        for step in steps:
            if not step(self, node, value, path, base, depth, out, seen):
                ok = False
                if out is None:
                    return None
        if ok and self.track:
            self.tick((len(seen.keys) + len(seen.indexes)) // 64)
            ok = unevaluated(self, node, value, path, base, depth, out, seen)
        return seen if ok else None

    def _plan(self, node: Mapping[str, Any]) -> tuple[str | None, tuple[Step, ...]]:
        """The node's `$id` (when it changes the base) and its steps, each once (one step
        reads its sibling keywords), worked out once per node."""
        found = self.prepared.plans.get(id(node))
        if found is None or found[0] is not node:
            steps: dict[Step, None] = {}
            for keyword in node:
                step = STEPS.get(keyword)
                if step is not None:
                    steps[step] = None
            ident = node.get("$id")
            ident = ident if isinstance(ident, str) and not ident.startswith("#") else None
            found = self.prepared.plans[id(node)] = (node, (ident, tuple(steps)))
        plan: tuple[str | None, tuple[Step, ...]] = found[1]
        return plan




