"""What every provider's caching model shares: a request's bill, the cache a replay keeps, and
the protocol a provider's rules follow (anthropic.py, automatic.py; billing.py picks one).

The cache is kept so that a request costs the same whatever came before it, however long the
conversation (a replay is linear in requests): entries for the prompt's own pieces are keyed by
the digest of their prefix; a conversation's part is kept per (prompt, conversation) as the
positions written and when (`Reach` for caches that hold every prefix, `Marks` for caches that
hold entries at breakpoints only), looked up by binary search or from the newest end.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Protocol

import attrs

from .wire import DEFAULT_TTL, Piece, Sent

__all__ = ["Usage", "CacheState", "CacheRules", "Reach", "Marks", "as_sent"]


@attrs.frozen
class Usage:
    """What one request is billed for, in input tokens, and what it leaves in the cache."""

    cache_read: int
    cache_write: int     # every token written (both lifetimes for Anthropic)
    uncached: int
    cached_pieces: int   # leading pieces of this request in the cache afterwards
    notes: tuple[str, ...] = ()
    rejected: str | None = None
    read_pieces: int = 0  # leading whole pieces read from the cache
    write_long: int = 0   # of `cache_write`, tokens written with Anthropic's hour-long lifetime
    missed: str = ""      # why a prefix cached before was not read
    miss_kind: str = ""   # "lookback" (Anthropic's window) or "expired"


class Reach:
    """For a cache that holds every prefix a request sent (OpenAI before GPT-5.6, Gemini): how
    far into one conversation each request reached, and when. A request reaching position J
    at minute t refreshes every position up to J, so the newest reach wins over shorter ones:
    the list keeps (position, minute) with positions falling and minutes rising."""

    def __init__(self) -> None:
        self.stack: list[tuple[int, float]] = []

    def reach(self, position: int, now: float) -> None:
        while self.stack and self.stack[-1][0] <= position:
            self.stack.pop()
        self.stack.append((position, now))

    def furthest(self) -> int:
        """The furthest position ever reached (live or not)."""
        return self.stack[0][0] if self.stack else 0

    def longest(self, now: float, lifetime: float) -> int:
        """The furthest position still in the cache (0: none)."""
        minutes = [t for _p, t in self.stack]
        i = bisect.bisect_left(minutes, now - lifetime)
        return self.stack[i][0] if i < len(self.stack) else 0


class Marks:
    """For a cache that holds entries at breakpoints only (OpenAI from GPT-5.6): the positions
    of one conversation written, each with the minute it was last used."""

    def __init__(self) -> None:
        self.entries: list[list[float]] = []  # [position, minute], positions rising

    def write(self, position: int, now: float) -> None:
        if self.entries and self.entries[-1][0] == position:
            self.entries[-1][1] = now
        elif not self.entries or self.entries[-1][0] < position:
            self.entries.append([position, now])
        else:  # an earlier position (the conversation was cut back): keep the order
            at = bisect.bisect_left([p for p, _t in self.entries], position)
            if at < len(self.entries) and self.entries[at][0] == position:
                self.entries[at][1] = now
            else:
                self.entries.insert(at, [position, now])

    def longest(self, upto: int, now: float, lifetime: float) -> int:
        """The furthest written position ≤ `upto` still in the cache (0: none), refreshed."""
        for entry in reversed(self.entries):
            if entry[0] <= upto and now - entry[1] <= lifetime:
                entry[1] = now
                return int(entry[0])
        return 0


class CacheState:
    """The provider's cache during a replay: prefix digest → (minute last used, lifetime in
    minutes); for automatic caching the texts seen after each prefix (for matches inside a
    piece) and each conversation's reach."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[float, float]] = {}
        self.nexts: dict[str, list[str]] = {}
        self.reaches: dict[tuple[str, str], Reach] = {}
        self.marks: dict[tuple[str, str], Marks] = {}

    def live(self, key: str, now: float) -> bool:
        entry = self.entries.get(key)
        return entry is not None and now - entry[0] <= entry[1]

    def stale(self, key: str, now: float) -> bool:
        """An entry was written for this prefix and has expired."""
        entry = self.entries.get(key)
        return entry is not None and now - entry[0] > entry[1]

    def touch(self, key: str, now: float, lifetime: float = DEFAULT_TTL) -> None:
        """Write an entry, or refresh one (it keeps the longer of its lifetimes)."""
        old = self.entries.get(key)
        keep = max(lifetime, old[1]) if old is not None and now - old[0] <= old[1] else lifetime
        self.entries[key] = (now, keep)


class CacheRules(Protocol):
    """A provider's rules: bill a request's pieces against the cache, and say what they are."""

    @property
    def name(self) -> str: ...

    @property
    def minimum(self) -> int: ...

    def bill(self, pieces: Sequence[Piece], markers: Sequence[int], state: CacheState,
             now: float) -> Usage: ...

    def describe(self) -> str: ...


def as_sent(pieces: Sequence[Piece]) -> Sent:
    """A request's pieces as a `Sent` (a plain list is all prompt, no history)."""
    return pieces if isinstance(pieces, Sent) else Sent(pieces)
