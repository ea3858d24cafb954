"""Immutable, hashable containers so contexts can be memo keys and shared across threads."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["FrozenDict", "freeze", "thaw", "deep_equal", "dumps_json"]


class FrozenDict(Mapping[str, Any]):
    """A read-only dict that keeps insertion order and hashes by content (once, lazily)."""

    __slots__ = ("_data", "_hash", "_flat")

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        self._data: dict[str, Any] = dict(data) if data else {}
        self._hash: int | None = None
        self._flat: tuple[Any, ...] | None = None

    @property
    def flat(self) -> tuple[Any, ...]:
        """The whole structure as one flat tuple (markers around tables and lists).

        Two FrozenDicts are equal exactly when their flat tuples are, and comparing flat tuples
        runs in C with no recursion however deep the nesting: records use it as their key.
        """
        flat = self._flat
        if flat is None:
            flat = self._flat = _flatten(self)
        return flat

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            # Order-insensitive like dict equality; values are frozen so they hash.
            h = self._hash = hash(frozenset(self._data.items()))
        return h

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenDict):
            if self is other:
                return True
            if self._hash is not None and other._hash is not None and self._hash != other._hash:
                return False
            try:
                return self._data == other._data
            except RecursionError:  # nested hundreds deep: compare without recursion
                return deep_equal(self, other)
        if isinstance(other, Mapping):
            return self._data == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (self._data,))


EMPTY = FrozenDict()


def freeze(value: Any) -> Any:
    """Deep-freeze JSON-like data: dicts become FrozenDict, lists become tuples.

    Iterative rather than recursive so a schema nested thousands deep cannot hit the recursion limit.
    """
    if not isinstance(value, (dict, list, tuple, FrozenDict)):
        return value
    # Post-order traversal with an explicit stack.
    root_holder: list[Any] = [None]
    stack: list[tuple[Any, list[Any], int]] = [(value, root_holder, 0)]
    pending: list[tuple[Any, list[Any], list[Any], int]] = []
    while stack:
        node, parent, index = stack.pop()
        if isinstance(node, (dict, FrozenDict)):
            keys = list(node.keys())
            slots: list[Any] = [None] * len(keys)
            pending.append((("dict", keys), slots, parent, index))
            for i, k in enumerate(keys):
                stack.append((node[k], slots, i))
        elif isinstance(node, (list, tuple)):
            slots = [None] * len(node)
            pending.append((("list", None), slots, parent, index))
            for i, item in enumerate(node):
                stack.append((item, slots, i))
        else:
            parent[index] = node
    for (kind, keys), slots, parent, index in reversed(pending):
        if kind == "dict":
            fd = FrozenDict.__new__(FrozenDict)
            fd._flat = None
            fd._data = dict(zip(keys, slots))
            # Hash bottom-up now: children are already hashed, so deep nesting never recurses.
            fd._hash = hash(frozenset(fd._data.items()))
            parent[index] = fd
        else:
            parent[index] = tuple(slots)
    return root_holder[0]


def thaw(value: Any) -> Any:
    """Turn frozen data back into plain dicts and lists (for JSON output), iteratively."""
    if not isinstance(value, (FrozenDict, tuple, dict, list)):
        return value
    root_holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, root_holder, 0)]
    while stack:
        node, parent, index = stack.pop()
        if isinstance(node, (FrozenDict, dict)):
            out: Any = {}
            parent[index] = out
            for k, v in node.items():
                if isinstance(v, (FrozenDict, tuple, dict, list)):
                    out[k] = None
                    stack.append((v, out, k))
                else:
                    out[k] = v
        elif isinstance(node, (tuple, list)):
            out = [None] * len(node)
            parent[index] = out
            for i, v in enumerate(node):
                if isinstance(v, (FrozenDict, tuple, dict, list)):
                    stack.append((v, out, i))
                else:
                    out[i] = v
    return root_holder[0]


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


def _flatten(value: Any) -> tuple[Any, ...]:
    out: list[Any] = []
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if node.__class__ is _Marker:
            out.append(node)
        elif isinstance(node, (FrozenDict, dict)):
            out.append(OPEN_TABLE)
            stack.append(CLOSE_TABLE)
            items = list(node.items())
            for k, v in reversed(items):
                stack.append(v)
                stack.append(_Key(k))
        elif isinstance(node, (tuple, list)):
            out.append(OPEN_LIST)
            stack.append(CLOSE_LIST)
            stack.extend(reversed(node))
        elif node.__class__ is _Key:
            out.append(node.key)
        elif node.__class__ is str:
            out.append(node)
        else:
            # type tags keep 1, 1.0 and true apart, as JSON does (text cannot equal a number)
            out.append((type(node).__name__, node))
    return tuple(out)


class _Key:
    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key


def deep_equal(a: Any, b: Any) -> bool:
    """Structural equality of frozen data without recursion (schemas may nest thousands deep)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x is y:
            continue
        if isinstance(x, FrozenDict) and isinstance(y, FrozenDict):
            if x._hash is not None and y._hash is not None and x._hash != y._hash:
                return False
            if len(x._data) != len(y._data) or x._data.keys() != y._data.keys():
                return False
            stack.extend((x._data[k], y._data[k]) for k in x._data)
        elif isinstance(x, tuple) and isinstance(y, tuple):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif isinstance(x, (FrozenDict, tuple)) or isinstance(y, (FrozenDict, tuple)):
            if not (isinstance(x, FrozenDict) and isinstance(y, dict) or
                    isinstance(y, FrozenDict) and isinstance(x, dict)):
                return False
            return x == y
        elif x != y:
            return False
    return True


def dumps_json(value: Any, indent: int | None = 2) -> str:
    """`json.dumps(value, indent=…, ensure_ascii=False)`, without a depth limit.

    The C encoder recurses, so a schema nested a few hundred levels deep raises RecursionError;
    this falls back to an iterative encoder that writes the same text.
    """
    import json
    try:
        return json.dumps(value, indent=indent, ensure_ascii=False)
    except RecursionError:
        return _dumps_iterative(value, indent)


def _dumps_iterative(value: Any, indent: int | None) -> str:
    import json
    from json.encoder import encode_basestring
    out: list[str] = []
    nl = "\n" if indent is not None else ""
    pad = " " * (indent or 0)
    item_sep = "," if indent is not None else ", "
    key_sep = ": "
    # work items: ("value", obj, depth) | ("text", str)
    work: list[tuple[Any, ...]] = [("value", value, 0)]
    while work:
        item = work.pop()
        if item[0] == "text":
            out.append(item[1])
            continue
        _, obj, depth = item
        if isinstance(obj, (dict, FrozenDict, list, tuple)):
            table = isinstance(obj, (dict, FrozenDict))
            entries = list(obj.items()) if isinstance(obj, (dict, FrozenDict)) else \
                [(None, v) for v in obj]
            opening, closing = ("{", "}") if table else ("[", "]")
            if not obj:
                out.append(opening + closing)
                continue
            inner = nl + pad * (depth + 1)
            out.append(opening)
            work.append(("text", nl + pad * depth + closing))
            for i in range(len(entries) - 1, -1, -1):
                k, v = entries[i]
                work.append(("value", v, depth + 1))
                lead = inner if i == 0 else item_sep + inner
                if table:
                    lead += encode_basestring(str(k)) + key_sep
                work.append(("text", lead))
        else:
            out.append(json.dumps(obj, ensure_ascii=False))
    return "".join(out)
