"""Layouts: a template rendered and cleaned once per *shape*, then joined per request.

What the post-processor does to a rendered template depends only on the template's literal text
and on which inserted values are present, never on what the values say (they are opaque atoms).
So a render is split in two:

- `collect` walks the template with the request's data and returns the inserted texts, in order,
  plus the *shape*: for every section the number of times its body ran, for every value whether it
  is present (non-blank). The shape is a tuple of ints, typed and complete for the layout.
- `layout_of` renders once per shape with numbered stand-ins for the values and cleans the result
  into a layout: literal strings and value numbers. `join` puts a request's texts into it.

A request whose shape was seen before costs a walk and a join; cleaning runs only on a new shape.
Values that are not text (a list used as `{{x}}`, a boolean used as text) make `collect` return
None, and the caller renders in full, which reports them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .cleanup import clean, clean_pieces
from .template import _MISSING, Problem, Template, Value, _lookup, _Section, _truthy, _Var, render

__all__ = ["Layout", "Collected", "collect", "layout_of", "join", "render_clean", "Slot"]

Layout = tuple[Any, ...]  # str (literal text) or int (the number of a collected text)
Collected = tuple[list[str], list[str], tuple[int, ...]]  # texts, their names, shape


class Slot(Value):
    """A value stand-in that remembers which collected text it is."""

    __slots__ = ("index",)

    def __init__(self, text: str, index: int) -> None:
        super().__init__(text)
        self.index = index


class _NotText(Exception):
    """A value that only a full render can report (a list or table used as text, a boolean)."""


def collect(template: Template, scopes: list[Any]) -> Collected | None:
    """The present inserted texts in render order, their names, and the shape (or None)."""
    texts: list[str] = []
    names: list[str] = []
    shape: list[int] = []
    try:
        _collect(template.nodes, scopes, texts, names, shape)
    except _NotText:
        return None
    return texts, names, tuple(shape)


def _text_of(value: Any) -> str | None:
    """The text a value inserts (None: nothing), exactly as `render` inserts it."""
    cls = value.__class__
    if cls is str:
        return value
    if value is _MISSING or value is None:
        return None
    if isinstance(value, Value):
        return value.text
    if isinstance(value, (int, float)) and cls is not bool:
        return str(value)
    raise _NotText


def _collect(nodes: tuple[Any, ...], scopes: list[Any], texts: list[str], names: list[str],
             shape: list[int]) -> None:
    for node in nodes:
        cls = node.__class__
        if cls is str:
            continue
        value = _lookup(node.path, scopes)
        if cls is _Var:
            text = value if value.__class__ is str else _text_of(value)
            if not text or text.isspace():
                shape.append(0)
            else:
                shape.append(1)
                texts.append(text)
                names.append(node.name)
            continue
        truthy = _truthy(value)
        if node.inverted:
            shape.append(0 if truthy else 1)
            if not truthy:
                _collect(node.children, scopes, texts, names, shape)
            continue
        if not truthy:
            shape.append(0)
            continue
        vcls = value.__class__
        if vcls is list or vcls is tuple or (vcls is not dict and isinstance(value, (list, tuple))):
            shape.append(len(value))
            for item in value:
                scopes.append(item)
                _collect(node.children, scopes, texts, names, shape)
                scopes.pop()
        elif vcls is dict or isinstance(value, Mapping):
            shape.append(1)
            scopes.append(value)
            _collect(node.children, scopes, texts, names, shape)
            scopes.pop()
        else:
            shape.append(1)
            _collect(node.children, scopes, texts, names, shape)


def layout_of(template: Template, scopes: list[Any]) -> Layout:
    """Render with numbered stand-ins for the present values and clean: the shape's layout."""
    counter = [0]

    def number(text: str | None) -> Any:
        if text is None or not text or text.isspace():
            return None
        slot = Slot(text, counter[0])
        counter[0] += 1
        return slot
    pieces = render(template, scopes, [], None, number)
    ops: list[Any] = []
    run: list[str] = []
    for piece in clean_pieces(pieces):
        if piece.__class__ is str:
            run.append(piece)
        else:
            if run:
                ops.append("".join(run))
                run = []
            ops.append(piece.index)
    if run:
        ops.append("".join(run))
    return tuple(ops)


def join(layout: Layout, texts: Sequence[str]) -> str:
    return "".join([op if op.__class__ is str else texts[op] for op in layout])


LayoutStore = Callable[[tuple[int, ...]], Layout | None]


def render_clean(template: Template, scopes: list[Any], get: LayoutStore,
                 put: Callable[[tuple[int, ...], Layout], Layout],
                 problem: Problem | None = None) -> str:
    """Render and clean `template`, through the caller's layout memo when the values allow."""
    collected = collect(template, scopes)
    if collected is None:
        return clean(render(template, scopes, [], problem))
    texts, _names, shape = collected
    layout = get(shape)
    if layout is None:
        layout = put(shape, layout_of(template, scopes))
    return join(layout, texts)
