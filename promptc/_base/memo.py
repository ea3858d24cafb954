"""A bounded, thread-safe memo: reads take no lock, writes evict the oldest entry when full.

Every cache promptc keeps is one of these, owned by one Compiler (or one of its plans) and keyed
by the complete, typed input of what it stores.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

__all__ = ["Memo"]


class Memo:
    __slots__ = ("_data", "_lock", "maxsize")

    def __init__(self, maxsize: int = 256) -> None:
        # An OrderedDict, not a dict: evicting the oldest entry of a plain dict means iterating
        # from its start past every slot deleted before, which grows with each eviction.
        self._data: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.maxsize = maxsize

    def get(self, key: Hashable, default: Any = None) -> Any:
        return self._data.get(key, default)

    def put(self, key: Hashable, value: Any) -> Any:
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
