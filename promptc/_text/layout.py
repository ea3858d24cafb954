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
A list item given as a `Row` keeps what a section body collects over it, so a session that
brings the same rows (an MCP server's tools) walks them once.
Values that are not text (a list used as `{{x}}`, a boolean used as text) make `collect` return
None, and the caller renders in full, which reports them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from .cleanup import clean, clean_pieces
from .template import (_MISSING, Flag, Problem, Structured, Template, Value, _lookup, _Section,
                       _truthy, _Var, render)

__all__ = ["Layout", "Collected", "collect", "layout_of", "laid_out", "join", "filled",
           "render_clean", "Slot", "Row", "Filled", "stand_in"]

# Literal text (str, at even places, "" where two values meet) and the number of a collected
# text (int, at odd places), alternating: (str, int, str, ..., str).
Layout = tuple[Any, ...]
Collected = tuple[list[str], list[str], tuple[int, ...]]  # texts, their names, shape


class Slot(Value):
    """A value stand-in that remembers which collected text it is."""

    __slots__ = ("index",)

    def __init__(self, text: str, index: int) -> None:
        super().__init__(text)
        self.index = index


class _NotText(Exception):
    """A value that only a full render can report (a list or table used as text, a boolean)."""


def collect(template: Template, scopes: list[Any], named: bool = True) -> Collected | None:
    """The present inserted texts in render order, their names (unless not `named`: then
    none), and the shape (or None: a value only a full render can report).

    Without names, a list item given as a `Row` (or the innermost scope given as `Filled`)
    adds the texts and shape kept on it for that section body, instead of being walked."""
    if not named and scopes and isinstance(scopes[-1], Filled):
        try:
            kept = scopes[-1].fragment(template.nodes)
        except _NotText:
            return None
        if kept is not None:
            return list(kept[0]), [], kept[1]
    walk = _Collect(named)
    try:
        walk.nodes(template.nodes, list(scopes) if scopes else [_EMPTY])
    except _NotText:
        return None
    return walk.texts, walk.names, tuple(walk.shape)


def _text_of(value: Any) -> str | None:
    """The text a value inserts (None: nothing), exactly as `render` inserts it."""
    if type(value) in (str, _StandIn):  # text exactly; a stand-in is collected as itself
        return value  # type: ignore[no-any-return]
    if value is _MISSING or value is None:
        return None
    if isinstance(value, Value):
        return value.text
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if type(value) is Flag:
        return str(value)
    if isinstance(value, Structured):
        return value.text
    raise _NotText


_EMPTY: dict[str, Any] = {}


class _StandIn(str):
    """A stand-in for a text that is filled in per use (see Filled): a fragment keeps it as
    itself, and its text, never blank and never written by anyone else, is unique."""

    __slots__ = ()


_stand_ins = itertools.count()


def stand_in(label: str) -> str:
    """A new stand-in (for a value each use of a Row fills in: see Filled)."""
    return _StandIn(f"\x00{label}:{next(_stand_ins)}\x00")


class Row(dict):  # type: ignore[type-arg]
    """A table whose collected texts the collect walk may remember.

    A section body that reads only the row's own keys gives the same texts and shape every
    time it runs over that row, whatever the scopes around it: the first walk's fragment is
    kept on the row, per body (its nodes). Rows are never changed once made. A row may hold
    stand-ins (`stand_in`) where each use puts its own text (see Filled).
    """

    __slots__ = ("fragments", "stand_ins")

    def __init__(self, values: Mapping[str, Any]) -> None:
        super().__init__(values)
        self.fragments: dict[Any, Fragment | None] = {}
        self.stand_ins: dict[Any, tuple[tuple[int, str], ...]] = {}

    def fragment(self, body: Body) -> Fragment | None:
        """What `body` (a section's nodes) collects over this row, or None when it looks up
        something the row does not have: the scopes around it could answer that."""
        fragments = self.fragments
        if body in fragments:
            return fragments[body]
        made = fragments[body] = _fragment(self, body)
        return made

    def holes(self, body: Body) -> tuple[Fragment, tuple[tuple[int, str], ...]] | None:
        """The fragment, and where its stand-ins sit in its texts (found once per body)."""
        made = self.fragment(body)
        if made is None:
            return None
        found = self.stand_ins.get(body)
        if found is None:
            found = self.stand_ins[body] = tuple(
                (at, text) for at, text in enumerate(made[0]) if isinstance(text, _StandIn))
        return made, found

    def _refuse(self, *_args: Any, **_kwargs: Any) -> None:
        raise TypeError("a Row is read-only")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _refuse  # type: ignore


class Filled(Mapping[str, Any]):
    """A shared Row used with its stand-ins filled in: the texts one use (a session) brings.

    `fills` gives the text of every stand-in in the row. When each is text that is not blank,
    the row's walk sees the same truth in every test and inserts a text where it inserted the
    stand-in, so a body that reads only the row is collected from the row's kept fragment with
    the texts put in place. Anything else reads the values as a table, which `make` builds only
    then.
    """

    __slots__ = ("row", "fills", "_make", "_table")

    def __init__(self, row: Row, fills: Mapping[str, str],
                 make: Callable[[], Mapping[str, Any]]) -> None:
        self.row = row
        self.fills = fills
        self._make = make
        self._table: Mapping[str, Any] | None = None

    def _values(self) -> Mapping[str, Any]:
        table = self._table
        if table is None:
            table = self._table = self._make()
        return table

    def __getitem__(self, key: str) -> Any:
        return self._values()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values())

    def __len__(self) -> int:
        return len(self._values())

    def fragment(self, body: Body) -> Fragment | None:
        fills = self.fills
        for text in fills.values():
            if not isinstance(text, str) or not text or text.isspace():
                return None  # absent or blank: another shape, so the table is walked
        made = self.row.holes(body)
        if made is None:
            return None
        (texts, shape), holes = made
        filled = list(texts)
        for at, stand in holes:
            fill = fills.get(stand)
            if fill is None:
                return None  # a stand-in without its text: the table says what it is
            filled[at] = fill
        return tuple(filled), shape


Fragment = tuple[tuple[str, ...], tuple[int, ...]]  # the texts and shape one item adds
Body = tuple[Any, ...]  # a section's nodes (or a template's): what a fragment is kept for


class _Outside(dict):  # type: ignore[type-arg]
    """The scopes around a row while its fragment is made: empty, and noting any lookup
    that reaches them (then the fragment depends on them, and is not kept)."""

    __slots__ = ("reached",)

    def __init__(self) -> None:
        super().__init__()
        self.reached = False

    def __contains__(self, key: object) -> bool:
        self.reached = True
        return False


def _fragment(row: Row, body: Body) -> Fragment | None:
    """What `body` collects over `row` alone, or None when a lookup went past the row."""
    outside = _Outside()
    walk = _Collect(False)
    walk.nodes(body, [outside, row])
    if outside.reached:
        return None
    return tuple(walk.texts), tuple(walk.shape)


class _Collect:
    """One collect walk: `render`'s walk over the same scopes, keeping only the inserted texts
    (and their names, when `named`) and the shape."""

    __slots__ = ("texts", "names", "shape", "named")

    def __init__(self, named: bool) -> None:
        self.texts: list[str] = []
        self.names: list[str] = []
        self.shape: list[int] = []
        self.named = named

    def nodes(self, nodes: Body, scopes: list[Any]) -> None:
        for node in nodes:  # literal text (str) collects nothing
            kind = type(node)
            if kind is _Var:
                self.variable(node.name, _lookup(node.path, scopes))
            elif kind is _Section:
                self.section(node, scopes, _lookup(node.path, scopes))

    def variable(self, name: str, value: Any) -> None:
        text = value if type(value) is str else _text_of(value)  # text, the usual value, first
        if text and not text.isspace():
            self.texts.append(text)
            if self.named:
                self.names.append(name)
            self.shape.append(1)
        else:
            self.shape.append(0)

    def section(self, node: Any, scopes: list[Any], value: Any) -> None:
        truthy = _truthy(value)
        if node.inverted or not truthy:
            shown = node.inverted and not truthy
            self.shape.append(1 if shown else 0)
            if shown:
                self.nodes(node.children, scopes)
            return
        items = value if isinstance(value, (list, tuple)) else (value,)
        # a list: its items; a table, or a truthy plain value: the section's `{{.}}`
        self.shape.append(len(items))
        for item in items:
            kept = item.fragment(node.children) if isinstance(item, Row) and not self.named \
                else None
            if kept is not None:
                self.texts.extend(kept[0])
                self.shape.extend(kept[1])
                continue
            scopes.append(item)
            self.nodes(node.children, scopes)
            scopes.pop()


def layout_of(template: Template, scopes: list[Any]) -> tuple[Layout, Collected] | None:
    """Render once with numbered stand-ins for the present values and clean: the layout of this
    render's shape, and what `collect` would have returned (None: a value is not text)."""
    texts: list[str] = []
    names: list[str] = []
    shape: list[int] = []
    not_text: list[str] = []

    def number(text: str, name: str) -> Any:
        if not text or text.isspace():
            return None
        slot = Slot(text, len(texts))
        texts.append(text)
        names.append(name)
        return slot

    pieces = render(template, scopes, [], lambda name, _m, _l: not_text.append(name), number,
                    shape)
    if not_text:
        return None
    ops: list[Any] = []
    run: list[str] = []
    for piece in clean_pieces(pieces):
        if isinstance(piece, str):
            run.append(piece)
        else:
            ops.append("".join(run))  # literal text before every number, "" included
            run = []
            ops.append(piece.index)
    ops.append("".join(run))
    return tuple(ops), (texts, names, tuple(shape))


def filled(layout: Layout, texts: Sequence[str]) -> list[str]:
    """The layout's pieces with each number replaced by its text. A layout alternates literal
    text and numbers, so the numbers are its odd places, replaced in one slice assignment:
    no test of each piece's type, which a layout of a hundred pieces made cost microseconds."""
    parts = list(layout)
    parts[1::2] = map(texts.__getitem__, layout[1::2])
    return parts


def join(layout: Layout, texts: Sequence[str]) -> str:
    return "".join(filled(layout, texts))


LayoutGet = Callable[[tuple[int, ...]], "Layout | None"]
LayoutPut = Callable[[tuple[int, ...], Layout], Layout]


def laid_out(template: Template, scopes: list[Any], get: LayoutGet, put: LayoutPut,
             named: bool = True) -> tuple[Layout, Collected] | None:
    """The layout and collected texts for a render (None: some value is not text): the walk
    finds the shape, and the layout comes from the caller's memo (made on a new shape)."""
    collected = collect(template, scopes, named)
    if collected is None:
        return None
    layout = get(collected[2])
    if layout is None:
        made = layout_of(template, scopes)
        if made is None:
            return None
        layout = put(collected[2], made[0])
    return layout, collected


def render_clean(template: Template, scopes: list[Any], get: LayoutGet, put: LayoutPut,
                 problem: Problem | None = None) -> str:
    """Render and clean `template`, through the caller's layout memo when the values allow."""
    found = laid_out(template, scopes, get, put, named=False)
    if found is None:
        return clean(render(template, scopes, [], problem))
    return join(found[0], found[1][0])
