"""Immutable, hashable containers so contexts can be memo keys and shared across threads."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["FrozenDict", "freeze", "thaw"]


class FrozenDict(Mapping[str, Any]):
    """A read-only dict that keeps insertion order and hashes by content (once, lazily)."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        self._data: dict[str, Any] = dict(data) if data else {}
        self._hash: int | None = None

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
            return self._data == other._data
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
