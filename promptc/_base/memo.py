"""A bounded, thread-safe memo: reads take no lock, writes evict the oldest entry when full.

Every cache promptc keeps is one of these, owned by one Compiler (or one of its plans) and keyed
by the complete, typed input of what it stores. A memo is typed by its keys and values
(`Memo[bytes, PromptContext]`), so what comes out is what went in.

`Cache` is what a part that keeps things asks of its memo (a Memo is one; `NoCache` keeps
nothing, for a part made without a compiler).

A memo made with `second_sight=True` keeps a value only when its key comes a second time (it
remembers the hashes of keys seen once): the pieces of a new session are built for that
session alone and most sessions never come back, so keeping them would only push out what
does.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Generic, Protocol, TypeVar

__all__ = ["Memo", "Cache", "NoCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(Generic[K, V]):
    __slots__ = ("_data", "_lock", "maxsize", "_seen")

    def __init__(self, maxsize: int = 256, *, second_sight: bool = False) -> None:
        # An OrderedDict, not a dict: evicting the oldest entry of a plain dict means iterating
        # from its start past every slot deleted before, which grows with each eviction.
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self.maxsize = maxsize
        self._seen: OrderedDict[int, None] | None = OrderedDict() if second_sight else None

    def get(self, key: K, default: V | None = None) -> V | None:
        return self._data.get(key, default)

    def put(self, key: K, value: V) -> V:
        """Keep `value` for `key` (with `second_sight`, only from the key's second time)."""
        with self._lock:
            data = self._data
            if key not in data:
                if self._seen is not None and self._first_sight(hash(key)):
                    return value
                if len(data) >= self.maxsize:
                    # FIFO eviction: cheap, and sessions that stay hot get re-inserted quickly.
                    data.popitem(last=False)
            data[key] = value
        return value

    def _first_sight(self, h: int) -> bool:
        seen = self._seen
        assert seen is not None
        if h in seen:
            del seen[h]
            return False
        seen[h] = None
        if len(seen) > 4 * self.maxsize:
            seen.popitem(last=False)
        return True

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            if self._seen is not None:
                self._seen.clear()


class Cache(Protocol):
    """Where a tool set or a call checker keeps what it made (a compiler plan's Memo)."""

    def get(self, key: Hashable, default: Any = None) -> Any: ...

    def put(self, key: Hashable, value: Any) -> Any: ...


class NoCache:
    """A Cache that keeps nothing."""

    def get(self, key: Hashable, default: Any = None) -> Any:
        return default

    def put(self, key: Hashable, value: Any) -> Any:
        return value
