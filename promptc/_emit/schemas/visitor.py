"""The shape every schema converter shares: one visit method per keyword group.

Like jinja2's `NodeVisitor`, which dispatches on a node's class, a `KeywordVisitor` dispatches on
a schema node's keywords: `GROUPS` lists the groups in the order they are visited, each with the
keywords that call it (`ALWAYS`: every node), and `visit_<group>(v)` handles just those
keywords. A visit method returns True when the node is complete (a `$ref` that stands for the
whole node, say), and the groups after it are skipped. What one group learns for the next (the
node's type, whether it admits null) travels in the `Visit`.

Converters recurse only through `At.deeper`, whose depth they bound, so no input reaches
Python's recursion limit; `SchemaProblem`s are what a converter noticed and the caller reports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import attrs

__all__ = ["ALWAYS", "At", "Converted", "KeywordVisitor", "SchemaProblem", "Visit", "unique"]

ALWAYS: frozenset[str] = frozenset()


@attrs.frozen
class SchemaProblem:
    """One thing wrong with a schema, found while converting it: `code` is the diagnostic code,
    `keyword` the keyword at fault, `path` where it sits (`properties.address.required`)."""

    code: str
    keyword: str
    path: str
    detail: str

    def message(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"keyword {self.keyword!r}{where}: {self.detail}"


@attrs.frozen
class Converted:
    """A schema in one provider's form (None: the form cannot say it) and the problems met."""

    schema: dict[str, Any] | None
    problems: tuple[SchemaProblem, ...] = ()


def unique(problems: list[SchemaProblem]) -> tuple[SchemaProblem, ...]:
    """The problems without repeats (a definition used twice is reported once), in order."""
    return tuple(dict.fromkeys(problems))


@attrs.frozen
class At:
    """Where a node sits: its depth, the objects around it, the `$ref`s followed to reach it
    and its path (segments, joined only for a problem's message)."""

    depth: int = 0
    objects: int = 0
    refs: tuple[str, ...] = ()
    path: tuple[str, ...] = ()

    def deeper(self, *segments: str, objects: int = 0, ref: str = "") -> At:
        return At(self.depth + 1, self.objects + objects,
                  (*self.refs, ref) if ref else self.refs, (*self.path, *segments))

    def where(self, *segments: str) -> str:
        return ".".join((*self.path, *segments))


class Visit:
    """One node being converted: the source `node`, the `out` being built, where it is, and
    what the type group found for the groups after it."""

    __slots__ = ("node", "out", "at", "kind", "nullable")

    def __init__(self, node: Mapping[str, Any], at: At) -> None:
        self.node = node
        self.out: dict[str, Any] = {}
        self.at = at
        self.kind: Any = None
        self.nullable = False


class KeywordVisitor:
    """Converts a node by visiting its keyword groups in `GROUPS` order."""

    GROUPS: ClassVar[tuple[tuple[str, frozenset[str]], ...]] = ()

    __slots__ = ("_visits", "problems")

    def __init__(self) -> None:
        self.problems: list[SchemaProblem] = []
        self._visits: list[tuple[frozenset[str], Callable[[Visit], bool | None]]] = [
            (keywords, getattr(self, f"visit_{group}")) for group, keywords in self.GROUPS]

    def visit(self, node: Mapping[str, Any], at: At) -> dict[str, Any]:
        v = Visit(node, at)
        for keywords, method in self._visits:
            if (not keywords or not keywords.isdisjoint(node)) and method(v):
                break
        return v.out

    def problem(self, code: str, keyword: str, at: At, detail: str, *segments: str) -> None:
        self.problems.append(SchemaProblem(code, keyword, at.where(*segments), detail))
