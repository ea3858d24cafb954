"""Layouts: a template rendered and cleaned once per pattern of present values, then joined.

When every value a template uses is plain text (no lists or tables), what the rendered text looks
like after cleanup depends only on which values are present, not on what they say. So the
cleaned result is computed once per presence pattern as a *layout* (literal text and slot
numbers) and every later render is a join. The base template of every variant is always built
this way; component templates are when their values allow it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._cleanup import clean_pieces
from ._template import Template, Value, render

__all__ = ["Slot", "layout_of", "flat_values", "flat_scope", "join"]

Layout = tuple[Any, ...]  # str (literal text) or int (a slot number)


class Slot(Value):
    """A value stand-in that remembers which slot it fills."""

    __slots__ = ("index",)

    def __init__(self, text: str, index: int) -> None:
        super().__init__(text)
        self.index = index


def layout_of(template: Template, scope: Mapping[str, Any]) -> Layout:
    """Render with `scope` (values are Slots, booleans or None) and clean, keeping slot numbers."""
    ops: list[Any] = []
    for piece in clean_pieces(render(template, [scope], [])):
        if piece.__class__ is str:
            if ops and ops[-1].__class__ is str:
                ops[-1] += piece
            else:
                ops.append(piece)
        else:
            ops.append(piece.index)
    return tuple(ops)


def flat_values(template: Template, scopes: Sequence[Mapping[str, Any]]
                ) -> tuple[list[Any], tuple[bool, ...]] | None:
    """Each name's value (text, bool or None) and whether it is present, or None when some
    value is a list or table (or a boolean used as text): then only a full render will do."""
    values: list[Any] = []
    presence: list[bool] = []
    for name in template.all_names:
        if "." in name:
            return None
        value: Any = None  # whatever the scope holds: checked by class below
        for scope in reversed(scopes):
            if name in scope:
                value = scope[name]
                break
        cls = value.__class__
        if cls is str:
            presence.append(value != "" and not value.isspace())
        elif value is None:
            presence.append(False)
        elif cls is bool:
            if name in template.variables:
                return None  # the full render reports a boolean used as text
            presence.append(value)
        elif cls is int or cls is float:
            value = str(value)
            presence.append(True)
        else:
            return None
        values.append(value)
    return values, tuple(presence)


def flat_scope(template: Template, values: Sequence[Any]) -> dict[str, Any]:
    return {n: (v if v is None or v.__class__ is bool else Slot(v, i))
            for i, (n, v) in enumerate(zip(template.all_names, values))}


def join(layout: Layout, values: Sequence[Any]) -> str:
    return "".join(op if op.__class__ is str else values[op] for op in layout)
