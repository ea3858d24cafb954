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

import itertools
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from .._base.frozen import FrozenDict
from .cleanup import clean, clean_pieces
from .template import (_MISSING, Flag, Problem, Structured, Template, Value, _truthy, _Var,
                       render)

__all__ = ["Layout", "Collected", "collect", "layout_of", "laid_out", "join", "render_clean",
           "Slot", "Row", "Filled", "stand_in"]

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


def collect(template: Template, scopes: list[Any], named: bool = True) -> Collected | None:
    """The present inserted texts in render order, their names (unless not `named`: then
    none), and the shape (or None)."""
    return collector(template, len(scopes), named)(scopes)


def _text_of(value: Any) -> str | None:
    """The text a value inserts (None: nothing), exactly as `render` inserts it."""
    cls = value.__class__
    if cls is str or cls is _StandIn:  # a stand-in is collected as itself (see Row)
        return value  # type: ignore[no-any-return]
    if value is _MISSING or value is None:
        return None
    if isinstance(value, Value):
        return value.text
    if isinstance(value, (int, float)) and cls is not bool:
        return str(value)
    if cls is Flag:
        return str(value)
    if isinstance(value, Structured):
        return value.text
    raise _NotText


def _is_table(value: Any) -> bool:
    cls = value.__class__
    return cls is dict or cls is FrozenDict or cls is Row or isinstance(value, Mapping)


def _is_list(value: Any) -> bool:
    cls = value.__class__
    return cls is list or cls is tuple or (cls is not str and isinstance(value, (list, tuple)))


_EMPTY: dict[str, Any] = {}
Collector = Callable[[Sequence[Any]], "Collected | None"]
_collectors_lock = threading.Lock()


class _StandIn(str):
    """A stand-in for a text that is filled in per use (see Filled): a fragment keeps it as
    itself, and its text, never blank and never written by anyone else, is unique."""

    __slots__ = ()


_stand_ins = itertools.count()


def stand_in(label: str) -> str:
    """A new stand-in (for a value each use of a Row fills in: see Filled)."""
    return _StandIn(f"\x00{label}:{next(_stand_ins)}\x00")


class Row(dict):  # type: ignore[type-arg]
    """A table whose collected texts the compiled walk may remember.

    A section body that reads only the row's own keys gives the same texts and shape every
    time it runs over that row, whatever the scopes around it: the first walk's fragment is
    kept on the row, per body. Rows are never changed once made. A row may hold stand-ins
    (`stand_in`) where each use puts its own text (see Filled).
    """

    __slots__ = ("fragments", "stand_ins")

    def __init__(self, values: Mapping[str, Any]) -> None:
        super().__init__(values)
        self.fragments: dict[Any, Fragment | None] = {}
        self.stand_ins: dict[Any, tuple[tuple[int, str], ...]] = {}

    def fragment(self, body: Any, depth: int) -> Fragment | None:
        """What `body` (a section body compiled for `depth` scopes around it) collects over
        this row, or None when it looks up something the row does not have: the scopes
        around it could answer that."""
        fragments = self.fragments
        if body in fragments:
            return fragments[body]
        made = fragments[body] = _fragment(self, body, depth)
        return made

    def holes(self, body: Any, depth: int) -> tuple[Fragment, tuple[tuple[int, str], ...]] | None:
        """The fragment, and where its stand-ins sit in its texts (found once per body)."""
        made = self.fragment(body, depth)
        if made is None:
            return None
        found = self.stand_ins.get(body)
        if found is None:
            found = self.stand_ins[body] = tuple(
                (at, text) for at, text in enumerate(made[0]) if text.__class__ is _StandIn)
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

    def fragment(self, body: Any, depth: int) -> Fragment | None:
        fills = self.fills
        for text in fills.values():
            if text.__class__ is not str or not text or text.isspace():
                return None  # absent or blank: another shape, so the table is walked
        made = self.row.holes(body, depth)
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


class _Outside(dict):  # type: ignore[type-arg]
    """The scopes around a row while its fragment is made: empty, and noting any lookup
    that reaches them (then the fragment depends on them, and is not kept)."""

    __slots__ = ("reached",)

    def __init__(self) -> None:
        super().__init__()
        self.reached = False

    def get(self, key: Any, default: Any = None) -> Any:
        self.reached = True
        return default


def _fragment(row: Row, body: Any, depth: int) -> Fragment | None:
    """What `body` collects over `row` alone, or None when a lookup went past the row."""
    outside = _Outside()
    texts: list[str] = []
    shape: list[int] = []
    body(*([outside] * depth), row, row, texts.append, None, shape.append)
    if outside.reached:
        return None
    return tuple(texts), tuple(shape)


def collector(template: Template, depth: int, named: bool = True) -> Collector:
    """The template's collect walk compiled to Python for `depth` base scopes, once.

    Like a template engine that compiles templates to code: each name lookup is written out
    against the scopes it can see (known from the section nesting), each section body becomes a
    function called per item. `named`: also collect each text's name (the base template needs
    them to place its sections; a component's does not, and its walk takes list items given as
    `Row`s from their fragments). Kept on the template, which is immutable and owned by the
    registry; a race between two threads compiles it twice, to the same code.
    """
    cache: dict[tuple[int, bool], Collector] = template.collectors
    found = cache.get((depth, named))
    if found is None:
        found = _Writer(depth, named).collector(template)
        with _collectors_lock:
            cache[depth, named] = found
    return found


class _Writer:
    """Writes one template's collect walk as Python source, a function per section body."""

    def __init__(self, depth: int, named: bool) -> None:
        self.depth = depth
        self.named = named
        self.functions: list[str] = []

    @staticmethod
    def scopes(d: int) -> list[str]:
        return [f"m{i}" for i in range(d)]

    def lookup(self, path: tuple[str, ...], d: int, pad: str) -> list[str]:
        if not path:
            return [f"{pad}v = dot"]
        head = repr(path[0])
        out = [f"{pad}v = m{d - 1}.get({head}, M)"]
        inner = pad
        for i in range(d - 2, -1, -1):
            out.append(f"{inner}if v is M:")
            inner += " "
            out.append(f"{inner}v = m{i}.get({head}, M)")
        for part in path[1:]:
            out.append(f"{pad}v = v.get({part!r}, M) if v is not M and is_table(v) else M")
        return out

    def variable(self, name: str, pad: str) -> list[str]:
        found = [f"{pad}    T(t)"] + ([f"{pad}    N({name!r})"] if self.named else [])
        return [f"{pad}t = v if v.__class__ is str else text_of(v)",
                f"{pad}if t and not t.isspace():", *found, f"{pad}    S(1)",
                f"{pad}else:", f"{pad}    S(0)"]

    def items(self, child: str, d: int, pad: str) -> list[str]:
        """A loop over a list's items; without names, a Row's fragment stands for a call."""
        outer = ", ".join(self.scopes(d))
        call = f"{child}({outer}{', ' if outer else ''}" \
               f"(it if it.__class__ is dict or is_table(it) else E), it, T, N, S)"
        if self.named:
            return [f"{pad}for it in v:", f"{pad}    {call}"]
        return [f"{pad}for it in v:",
                f"{pad}    f = it.fragment({child}, {d}) if it.__class__ is Row "
                "else None",
                f"{pad}    if f is None:",
                f"{pad}        {call}",
                f"{pad}    else:",
                f"{pad}        T.__self__.extend(f[0])",
                f"{pad}        S.__self__.extend(f[1])"]

    def section(self, node: Any, d: int, pad: str) -> list[str]:
        child = self.body(node.children, d + 1)
        outer = ", ".join(self.scopes(d))
        call = f"{child}({outer}{', ' if outer else ''}%s, %s, T, N, S)"
        if node.inverted:
            return [f"{pad}if truthy(v):", f"{pad}    S(0)", f"{pad}else:", f"{pad}    S(1)",
                    f"{pad}    " + call % ("E", "dot")]
        loop = self.items(child, d, pad + "    ")
        return [f"{pad}c = v.__class__",
                f"{pad}if c is bool:",  # the usual test, and a missing value, come first
                f"{pad}    if v:",
                f"{pad}        S(1)",
                f"{pad}        " + call % ("E", "v"),
                f"{pad}    else:",
                f"{pad}        S(0)",
                f"{pad}elif v is M or v is None:", f"{pad}    S(0)",
                f"{pad}elif c is list or c is tuple:", f"{pad}    S(len(v))", *loop,
                f"{pad}elif c is str:",
                f"{pad}    if v and not v.isspace():",
                f"{pad}        S(1)",
                f"{pad}        " + call % ("E", "v"),
                f"{pad}    else:",
                f"{pad}        S(0)",
                f"{pad}elif not truthy(v):", f"{pad}    S(0)",
                f"{pad}elif is_list(v):", f"{pad}    S(len(v))", *loop,
                f"{pad}elif c is dict or is_table(v):", f"{pad}    S(1)",
                f"{pad}    " + call % ("v", "v"),
                f"{pad}else:", f"{pad}    S(1)", f"{pad}    " + call % ("E", "v")]

    def body(self, nodes: tuple[Any, ...], d: int) -> str:
        """Write a function for `nodes` seen with d scopes; return its name."""
        name = f"_f{len(self.functions)}"
        self.functions.append("")  # reserve the slot: nested bodies are written first
        slot = len(self.functions) - 1
        out = [f"def {name}({', '.join([*self.scopes(d), 'dot', 'T', 'N', 'S'])}):"]
        for node in nodes:
            if node.__class__ is str:
                continue
            out += self.lookup(node.path, d, "    ")
            out += self.variable(node.name, "    ") if node.__class__ is _Var else \
                self.section(node, d, "    ")
        if len(out) == 1:
            out.append("    pass")
        self.functions[slot] = "\n".join(out)
        return name

    def collector(self, template: Template) -> Collector:
        depth = self.depth
        entry = self.body(template.nodes, depth)
        names = ", ".join(self.scopes(depth))
        top = "" if self.named or not depth else f"""\
    if scopes[-1].__class__ is Filled:
        try:
            f = scopes[-1].fragment({entry}, {depth - 1})
        except NotText:
            return None
        if f is not None:
            return list(f[0]), [], f[1]
"""
        source = "\n\n".join([*self.functions, f"""\
def collect(scopes):
{top}    texts = []
    names = []
    shape = []
    {names}{',' if depth == 1 else ''} = [s if is_table(s) else E for s in scopes]
    try:
        {entry}({names}{', ' if depth else ''}scopes[-1] if scopes else E, texts.append,
            {'names.append' if self.named else 'None'}, shape.append)
    except NotText:
        return None
    return texts, names, tuple(shape)
"""])
        namespace: dict[str, Any] = {
            "M": _MISSING, "E": _EMPTY, "is_table": _is_table, "is_list": _is_list,
            "truthy": _truthy, "text_of": _text_of, "NotText": _NotText, "Row": Row,
            "Filled": Filled}
        code = compile(source, f"<promptc collect {template.source}>", "exec")
        exec(code, namespace)  # noqa: S102 - generated above from the parsed template only
        collect_fn: Collector = namespace["collect"]
        return collect_fn


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
        if piece.__class__ is str:
            run.append(piece)
        else:
            if run:
                ops.append("".join(run))
                run = []
            ops.append(piece.index)
    if run:
        ops.append("".join(run))
    return tuple(ops), (texts, names, tuple(shape))


def join(layout: Layout, texts: Sequence[str]) -> str:
    return "".join([op if op.__class__ is str else texts[op] for op in layout])


LayoutGet = Callable[[tuple[int, ...]], "Layout | None"]
LayoutPut = Callable[[tuple[int, ...], Layout], Layout]


def laid_out(template: Template, scopes: list[Any], get: LayoutGet, put: LayoutPut,
             named: bool = True) -> tuple[Layout, Collected] | None:
    """The layout and collected texts for a render (None: some value is not text).

    The first render of a template at a depth walks it once to make both; from the second on,
    the compiled collector finds the shape and the layout comes from the caller's memo.
    """
    depth = len(scopes)
    if (depth, named) not in template.collectors:
        count = template.renders.get(depth, 0)
        template.renders[depth] = count + 1
        if count == 0:
            made = layout_of(template, scopes)
            if made is not None:
                put(made[1][2], made[0])
            return made
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
