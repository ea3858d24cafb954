"""A bounded, thread-safe memo: reads take no lock, writes evict the oldest entry when full.

Every cache promptc keeps is one of these, owned by one Compiler (or one of its plans) and keyed
by the complete, typed input of what it stores. A memo is typed by its keys and values
(`Memo[bytes, PromptContext]`), so what comes out is what went in.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["Memo"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(Generic[K, V]):
    __slots__ = ("_data", "_lock", "maxsize")

    def __init__(self, maxsize: int = 256) -> None:
        # An OrderedDict, not a dict: evicting the oldest entry of a plain dict means iterating
        # from its start past every slot deleted before, which grows with each eviction.
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self.maxsize = maxsize

    def get(self, key: K, default: V | None = None) -> V | None:
        return self._data.get(key, default)

    def put(self, key: K, value: V) -> V:
        with self._lock:
            data = self._data
            if key not in data and len(data) >= self.maxsize:
                # FIFO eviction: cheap, and sessions that stay hot get re-inserted quickly.
                data.popitem(last=False)
            data[key] = value
        return value

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
