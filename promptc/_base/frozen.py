"""Immutable JSON-like data that compares by *typed* value, so it can be a cache key.

A `FrozenDict` is equal to another exactly when their JSON would be: same keys in the same order,
same values with the same types (`1`, `1.0` and `true` are three different values, as they render
differently). Equality and hashing go through one flat tuple built without recursion, so a schema
nested thousands of levels deep compares in C.

A FrozenDict can also start *packed*, as canonical compact JSON text (`FrozenDict.packed`): that is
how a context keeps an MCP tool's input schema. Making the text is one call into the C encoder (it
also checks the value is JSON data), the text is the schema's identity, and the mapping itself is
unpacked only if someone reads it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from json.encoder import encode_basestring
from operator import itemgetter, setitem
from typing import Any

__all__ = ["FrozenDict", "EMPTY", "freeze", "thaw", "dumps_json", "compact_json", "FreshCopies",
           "typed_key"]

_COMPACT = json.JSONEncoder(ensure_ascii=False, check_circular=False, separators=(",", ":"))


def compact_json(value: Any) -> str:
    """Canonical compact JSON text of plain data; TypeError for anything that is not JSON."""
    try:
        return _COMPACT.encode(value)
    except RecursionError:
        return _dumps_iterative(value, None, (",", ":"))


class FrozenDict(Mapping[str, Any]):
    """A read-only mapping with typed, order-sensitive equality (see the module docstring)."""

    __slots__ = ("_data", "_flat", "_hash", "_json")

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        self._data: dict[str, Any] | None = dict(data) if data else {}
        self._flat: tuple[Any, ...] | None = None
        self._hash: int | None = None
        self._json: str | None = None

    @classmethod
    def packed(cls, value: Mapping[str, Any]) -> FrozenDict:
        """Freeze plain JSON data by its compact JSON text (raises TypeError if not JSON).

        Data nested deeper than Python's JSON parser recurses is frozen right away instead
        (the walk is iterative), keeping the text as its identity all the same.
        """
        plain = value if isinstance(value, dict) else thaw(value)
        try:
            text = _COMPACT.encode(plain)
            fd = cls.__new__(cls)
            fd._data = None
        except RecursionError:
            text = _dumps_iterative(plain, None, (",", ":"))
            fd = freeze(plain)
        fd._flat = None
        fd._hash = None
        fd._json = text
        return fd

    @property
    def json_text(self) -> str:
        """Canonical compact JSON text (the identity of a packed schema)."""
        text = self._json
        if text is None:
            text = self._json = compact_json(thaw(self))
        return text

    def _items(self) -> dict[str, Any]:
        data = self._data
        if data is None:  # packed: unpack once, on first read as a mapping
            data = self._data = freeze(json.loads(self._json or "{}"))._data or {}
        return data

    @property
    def flat(self) -> tuple[Any, ...]:
        """The whole structure as one flat, typed tuple: equal exactly when equal as JSON."""
        flat = self._flat
        if flat is None:
            flat = self._flat = _flatten(self)
        return flat

    def __getitem__(self, key: str) -> Any:
        return self._items()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())

    def __bool__(self) -> bool:
        if self._data is None:  # packed: the text says whether it is empty, without unpacking
            return self._json != "{}"
        return bool(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._items()

    def get(self, key: str, default: Any = None) -> Any:
        return self._items().get(key, default)

    def __hash__(self) -> int:
        # Equal FrozenDicts have equal JSON text, so the text's hash is consistent with __eq__
        # (and a packed one never needs unpacking to be hashed).
        h = self._hash
        if h is None:
            try:
                h = hash(self.json_text)
            except (TypeError, ValueError):  # not JSON data (a registry table of records)
                h = hash(self.flat)
            self._hash = h
        return h

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, FrozenDict):
            if self._json is not None and other._json is not None:
                return self._json == other._json
            return self.flat == other.flat
        if isinstance(other, Mapping):
            return self.flat == _flatten(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenDict({self._items()!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (self._items(),))


EMPTY = FrozenDict()


def typed_key(value: Any) -> Any:
    """A hashable key for one frozen JSON value that keeps `1`, `1.0` and `true` apart."""
    cls = value.__class__
    if cls is str or value is None or cls is FrozenDict:
        return value
    if cls is tuple:
        return _flatten(value)
    return (cls.__name__, value)


def freeze(value: Any) -> Any:
    """Deep-freeze JSON-like data: dicts become FrozenDict, lists become tuples.

    Iterative rather than recursive so a schema nested thousands deep cannot hit the recursion limit.
    """
    if isinstance(value, FrozenDict) or not isinstance(value, (dict, list, tuple)):
        return value
    root_holder: list[Any] = [None]
    stack: list[tuple[Any, list[Any], int]] = [(value, root_holder, 0)]
    # each container as it is met (parents before their children): its keys (None: a list),
    # its slots, and where the frozen container goes
    pending: list[tuple[list[str] | None, list[Any], list[Any], int]] = []
    while stack:
        node, parent, index = stack.pop()
        keys, slots = _slots(node, stack)
        pending.append((keys, slots, parent, index))
    for keys, slots, parent, index in reversed(pending):  # children first
        parent[index] = _frozen(keys, slots)
    return root_holder[0]


def _slots(node: Any, stack: list[tuple[Any, list[Any], int]]
           ) -> tuple[list[str] | None, list[Any]]:
    """A dict's keys (None for a list or tuple) and its values' slots: frozen values and
    scalars go in now, containers are queued on `stack` to be frozen into their slot."""
    keys = list(node) if isinstance(node, dict) else None
    slots: list[Any] = [None] * len(node)
    for i, item in enumerate(node.values() if keys is not None else node):
        if isinstance(item, FrozenDict) or not isinstance(item, (dict, list, tuple)):
            slots[i] = item
        else:
            stack.append((item, slots, i))
    return keys, slots


def _frozen(keys: list[str] | None, slots: list[Any]) -> Any:
    if keys is None:
        return tuple(slots)
    fd = FrozenDict.__new__(FrozenDict)
    fd._data = dict(zip(keys, slots))
    fd._flat = fd._hash = fd._json = None
    return fd


_CONTAINERS = (FrozenDict, tuple, dict, list)


def thaw(value: Any) -> Any:
    """Turn frozen data back into fresh plain dicts and lists (for JSON output), iteratively."""
    if isinstance(value, FrozenDict) and value._data is None:
        return json.loads(value._json or "{}")  # packed: the C parser makes the fresh copy
    if not isinstance(value, _CONTAINERS):
        return value
    root_holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, root_holder, 0)]
    while stack:
        node, parent, index = stack.pop()
        parent[index] = _thawed(node, stack)
    return root_holder[0]


def _thawed(node: Any, stack: list[tuple[Any, Any, Any]]) -> Any:
    """A fresh plain copy of one container: scalars copied in, containers queued on `stack`
    to be thawed into their place."""
    if isinstance(node, FrozenDict) and node._data is None:
        return json.loads(node._json or "{}")
    if isinstance(node, (FrozenDict, dict)):
        table: dict[str, Any] = {}
        for k, v in node.items():
            if isinstance(v, _CONTAINERS):
                table[k] = None  # keeps the key's place
                stack.append((v, table, k))
            else:
                table[k] = v
        return table
    items: list[Any] = [None] * len(node)
    for i, v in enumerate(node):
        if isinstance(v, _CONTAINERS):
            stack.append((v, items, i))
        else:
            items[i] = v
    return items


class _Marker:
    """A structure marker in flat tuples: equal only to itself, never to data."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> str:
        return self.name


OPEN_TABLE, CLOSE_TABLE = _Marker("OPEN_TABLE"), _Marker("CLOSE_TABLE")
OPEN_LIST, CLOSE_LIST = _Marker("OPEN_LIST"), _Marker("CLOSE_LIST")


class _Key:
    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key


def _flatten(value: Any) -> tuple[Any, ...]:
    out: list[Any] = []
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        cls = node.__class__
        if cls is str:
            out.append(node)
        elif cls is _Marker:
            out.append(node)
        elif cls is _Key:
            key = node.key
            out.append(key if type(key) is str else (type(key).__name__, key))
        elif isinstance(node, Mapping):
            out.append(OPEN_TABLE)
            stack.append(CLOSE_TABLE)
            items: Mapping[Any, Any] = node._items() if isinstance(node, FrozenDict) else node
            for k in reversed(list(items)):
                stack.append(items[k])
                stack.append(_Key(k))
        elif isinstance(node, (tuple, list)):
            out.append(OPEN_LIST)
            stack.append(CLOSE_LIST)
            stack.extend(reversed(node))
        else:
            # type tags keep 1, 1.0 and true apart, as JSON does (text cannot equal a number)
            out.append((cls.__name__, node))
    return tuple(out)


def dumps_json(value: Any, indent: int | None = 2,
               separators: tuple[str, str] | None = None) -> str:
    """`json.dumps(value, indent=…, separators=…, ensure_ascii=False)`, without a depth limit.

    The C encoder recurses, so a schema nested a few hundred levels deep raises RecursionError;
    this falls back to an iterative encoder that writes the same text.
    """
    try:
        return json.dumps(value, indent=indent, separators=separators, ensure_ascii=False,
                          allow_nan=False)
    except RecursionError:
        return _dumps_iterative(value, indent, separators)


def _dumps_iterative(value: Any, indent: int | None,
                     separators: tuple[str, str] | None = None) -> str:
    return _IterativeEncoder(indent, separators).encode(value)


class _IterativeEncoder:
    """`json.dumps`'s text, written from a work list instead of recursion: each entry is a
    value still to encode (with its depth) or text ready to go out."""

    def __init__(self, indent: int | None, separators: tuple[str, str] | None) -> None:
        self.newline = "\n" if indent is not None else ""
        self.pad = " " * (indent or 0)
        self.item_sep, self.key_sep = separators or (("," if indent is not None else ", "), ": ")

    def encode(self, value: Any) -> str:
        out: list[str] = []
        work: list[tuple[Any, ...]] = [("value", value, 0)]  # ("value", obj, depth) | ("text", s)
        while work:
            item = work.pop()
            if item[0] == "text":
                out.append(item[1])
            else:
                self._value(item[1], item[2], out, work)
        return "".join(out)

    def _value(self, obj: Any, depth: int, out: list[str], work: list[tuple[Any, ...]]) -> None:
        if isinstance(obj, (dict, FrozenDict)):
            self._container(list(obj.items()), "{}", depth, out, work)
        elif isinstance(obj, (list, tuple)):
            self._container([(None, v) for v in obj], "[]", depth, out, work)
        else:
            out.append(json.dumps(obj, ensure_ascii=False, allow_nan=False))

    def _container(self, entries: list[tuple[Any, Any]], brackets: str, depth: int,
                   out: list[str], work: list[tuple[Any, ...]]) -> None:
        """Open a table or list, and queue its entries (last first, so the first comes out
        first) and its closing bracket."""
        if not entries:
            out.append(brackets)
            return
        out.append(brackets[0])
        work.append(("text", self.newline + self.pad * depth + brackets[1]))
        inner = self.newline + self.pad * (depth + 1)
        for i in range(len(entries) - 1, -1, -1):
            k, v = entries[i]
            work.append(("value", v, depth + 1))
            lead = inner if i == 0 else self.item_sep + inner
            if brackets == "{}":
                lead += encode_basestring(str(k)) + self.key_sep
            work.append(("text", lead))


class FreshCopies:
    """Hands out fresh, private deep copies of one JSON value.

    Callers may change what they get, so every call returns new dicts and lists; strings and
    numbers cannot be changed, so every copy shares them (a parser would make each string
    anew, and under load those allocations cost more than the tables). The value is taken
    apart once into its tables and lists, each kept as a shallow template with a placeholder
    where a table or list sits, and the links between them (parent, key, child). A copy is
    every template copied (`dict.copy` and `list.copy` mapped over them) and every link set
    (`operator.setitem` mapped over them): a few calls into C, none per node from Python, and
    no recursion however deep the value is nested (docs/performance.md has the figures).
    """

    __slots__ = ("_plain", "_first", "_then", "_templates", "_others", "_keys", "_parents")

    def __init__(self, value: Any) -> None:
        self._plain = plain = _plain_json(value)
        # The root's kind is copied first, so the root is made[0] and every other template,
        # each the child of exactly one link, follows in the links' order: made[1:].
        first, then = (dict, list) if isinstance(plain, dict) else (list, dict)
        made: dict[type, list[Any]] = {dict: [], list: []}
        links: list[tuple[Any, Any, Any]] = []  # (parent, key, child), as templates
        stack: list[tuple[Any, Any, Any]] = \
            [(plain, None, None)] if isinstance(plain, (dict, list)) else []
        while stack:
            node, parent, key = stack.pop()
            template = dict(node) if isinstance(node, dict) else list(node)
            made[type(template)].append(template)
            for k, v in (node.items() if isinstance(node, dict) else enumerate(node)):
                if isinstance(v, (dict, list)):
                    template[k] = None  # where a link puts the copy's own table or list
                    stack.append((v, template, k))
            if parent is not None:
                links.append((parent, key, template))
        index = {id(t): i for i, t in enumerate((*made[first], *made[then]))}
        links.sort(key=lambda link: index[id(link[2])])
        self._first: Callable[[Any], Any] = first.copy
        self._then: Callable[[Any], Any] = then.copy
        self._templates = tuple(made[first])
        self._others = tuple(made[then])
        self._keys = tuple(k for _p, k, _c in links)
        self._parents = _picker([index[id(p)] for p, _k, _c in links])

    def __call__(self) -> Any:
        if not self._templates:  # a string, a number, true, false or null: nothing to copy
            return self._plain
        made = list(map(self._first, self._templates))
        made += map(self._then, self._others)
        # setitem answers None, so any() runs every link and stops at the end
        any(map(setitem, self._parents(made), self._keys, made[1:]))
        return made[0]


def _plain_json(value: Any) -> Any:
    """`value` as the JSON parser reads its compact text back (plain dicts, lists, str, int,
    float): what a copy is made of."""
    text = compact_json(value)
    try:
        return json.loads(text)
    except RecursionError:  # nested deeper than the parser recurses: the iterative walk
        return thaw(value)


def _picker(indices: list[int]) -> Callable[[list[Any]], tuple[Any, ...]]:
    """made -> the items of `made` at `indices`, as a tuple, in one call into C (`itemgetter`
    gives a bare item for one index and refuses none, so those two are done in Python)."""
    if len(indices) >= 2:
        return itemgetter(*indices)
    return lambda made: tuple(made[i] for i in indices)
