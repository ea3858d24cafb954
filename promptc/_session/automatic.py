"""Automatic prefix caching: OpenAI and Gemini, as their documentation describes it (sources:
billing.py, docs/caching.md). Reuse is best-effort on both: the providers promise no hit, and
these rules give the hit a request can get when it is routed to the cache that holds its
prefix.

- OpenAI before GPT-5.6: every request is cached as a whole from the model's minimum (2,048
  tokens; 1,024 from GPT-5.6); a later request reads the longest prefix it shares with one
  still cached, counted in steps of 128 tokens from the minimum; writes cost nothing.
  Requests share a cache when they share `prompt_cache_key` (and the opening tokens). Entries
  last about 5 minutes idle in memory; with extended retention (`24h`, the default for
  organisations without zero data retention on the models that offer it) up to 24 hours.
- OpenAI from GPT-5.6: entries are written at breakpoints (implicitly at the end of the
  request's latest message; promptc sends no explicit one), at 1.25× the input price, and
  live 30 minutes; a read is the longest written prefix this request starts with.
- Gemini (implicit caching, 2.5 and later): the longest shared prefix from the model's
  minimum (2,048 tokens for 2.5 Flash and Pro, 4,096 for the 3.x models); writes cost
  nothing; the lifetime is not documented (5 minutes taken).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from .cache_state import CacheState, Marks, Reach, Usage, as_sent
from .wire import Piece, Sent, common_prefix

__all__ = ["OpenAIRules", "GeminiRules", "prefix_bill", "OPENAI_STEP", "IN_MEMORY_MINUTES",
           "EXTENDED_MINUTES", "BREAKPOINT_MINUTES", "GEMINI_MINUTES"]

OPENAI_STEP = 128
IN_MEMORY_MINUTES = 5.0            # "5-10 minutes of inactivity"; the shorter taken
EXTENDED_MINUTES = 24 * 60.0       # "up to 24 hours" (best-effort: "typically around 30 minutes")
BREAKPOINT_MINUTES = 30.0          # GPT-5.6 and later: `prompt_cache_options.ttl`, only "30m"
GEMINI_MINUTES = 5.0               # not documented


def _history_key(sent: Sent) -> tuple[str, str]:
    """Which conversation's reach or marks this request's history is kept under: the prompt
    it follows and the conversation."""
    h = len(sent.head)
    return (sent.key(h - 1) if h else "", sent.history.ident)


def shared_prefix(sent: Sent, state: CacheState, now: float, lifetime: float,
                  count: Callable[[str], int]) -> tuple[int, int, bool]:
    """(whole pieces, tokens) of the longest prefix shared with a request still cached: whole
    pieces, then the common start of the first piece that differs (by its text); and whether
    a longer shared prefix was cached but has expired."""
    h, k = len(sent.head), 0
    while k < h and state.live(sent.key(k), now):
        k += 1
    expired = k < len(sent) and k < h and state.stale(sent.key(k), now)
    if k == h and sent.length:
        reach = state.reaches.get(_history_key(sent))
        live = reach.longest(now, lifetime) if reach is not None else 0
        k = h + min(live, sent.length)
        expired = reach is not None and min(reach.furthest(), sent.length) > live
    shared = sent.cum(k - 1)
    if k < len(sent) and sent[k].text:
        before = sent.key(k - 1) if k else ""
        best = max((common_prefix(text, sent[k].text) for text in state.nexts.get(before, ())),
                   default=0)
        shared += count(sent[k].text[:best]) if best else 0
    return k, shared, expired


def _expiry(expired: bool, lifetime: float) -> tuple[str, str]:
    """(`missed`, `miss_kind`) for a Usage: why a longer prefix cached before was not read."""
    if not expired:
        return "", ""
    return f"the cached prefix expired ({lifetime:g}-minute lifetime)", "expired"


def remember(sent: Sent, state: CacheState, now: float, lifetime: float) -> None:
    """Every prefix of the request is now cached (the prompt's pieces one by one, the
    conversation's as its reach)."""
    before = ""
    for i, piece in enumerate(sent.head):
        key = sent.key(i)
        state.touch(key, now, lifetime)
        if piece.text:
            texts = state.nexts.setdefault(before, [])
            if piece.text not in texts:
                texts.append(piece.text)
                del texts[:-8]  # a few alternatives per prefix are plenty
        before = key
    if sent.length:
        state.reaches.setdefault(_history_key(sent), Reach()).reach(sent.length, now)


def prefix_bill(sent: Sent, state: CacheState, now: float, count: Callable[[str], int],
                minimum: int, lifetime: float, step: int = 1) -> Usage:
    """A request of at least `minimum` tokens billed against a cache that holds every prefix
    sent before (OpenAI before GPT-5.6, Gemini): the longest prefix it shares with a cached
    request is read, counted in steps of `step` tokens from the minimum (nothing under it);
    writing costs nothing, and every prefix of this request is cached for `lifetime`."""
    whole, shared, expired = shared_prefix(sent, state, now, lifetime, count)
    read = 0 if shared < minimum else minimum + (shared - minimum) // step * step
    remember(sent, state, now, lifetime)
    missed, kind = _expiry(expired, lifetime)
    return Usage(read, 0, sent.total - read, len(sent), read_pieces=whole if read else 0,
                 missed=missed, miss_kind=kind)


@attrs.frozen
class OpenAIRules:
    """OpenAI's automatic caching; `breakpoints` for GPT-5.6 and later."""

    count: Callable[[str], int] = attrs.field(eq=False, repr=False)
    minimum: int = 1024
    lifetime: float = IN_MEMORY_MINUTES
    breakpoints: bool = False
    name: str = "openai"

    def describe(self) -> str:
        if self.breakpoints:
            return (f"OpenAI (GPT-5.6 and later): entries at the implicit breakpoint (the end "
                    f"of the latest message) from {self.minimum:,} tokens, written at 1.25× "
                    f"input, live {self.lifetime:g} minutes; reuse is best-effort")
        kept = "24 hours (extended retention, best-effort)" if self.lifetime > 60 else \
            f"{self.lifetime:g} minutes idle"
        return (f"OpenAI: automatic from {self.minimum:,} tokens, hits in steps of "
                f"{OPENAI_STEP}; writes are free; entries kept {kept}; reuse is best-effort")

    def bill(self, pieces: Sequence[Piece], markers: Sequence[int], state: CacheState,
             now: float) -> Usage:
        sent = as_sent(pieces)
        total = sent.total
        if total < self.minimum:
            return Usage(0, 0, total, 0, (f"{total:,} tokens: OpenAI caches nothing under "
                                          f"{self.minimum:,}",))
        if self.breakpoints:
            return self._at_breakpoints(sent, state, now)
        return prefix_bill(sent, state, now, self.count, self.minimum, self.lifetime,
                           OPENAI_STEP)

    def _at_breakpoints(self, sent: Sent, state: CacheState, now: float) -> Usage:
        """GPT-5.6+: read the longest written prefix; write the rest up to the breakpoint."""
        h, k = len(sent.head), 0
        marks = state.marks.setdefault(_history_key(sent), Marks())
        if sent.length:  # an entry inside this conversation (the whole prompt before it)
            reached = marks.longest(sent.length, now, self.lifetime)
            k = h + reached if reached else 0
        stale = bool(sent.length) and not k and marks.entries and \
            marks.entries[0][0] <= sent.length
        for i in range(h - 1, -1, -1) if not k else ():  # else the longest in the prompt
            key = sent.key(i)
            if state.live(key, now):
                k = i + 1
                state.touch(key, now, self.lifetime)
                break
            stale = stale or state.stale(key, now)
        read = sent.cum(k - 1)
        if sent.length:
            marks.write(sent.length, now)
        else:
            state.touch(sent.key(len(sent) - 1), now, self.lifetime)
        write = sent.total - read
        missed, kind = _expiry(bool(stale), self.lifetime)
        return Usage(read, write, 0, len(sent), read_pieces=k, missed=missed, miss_kind=kind)


@attrs.frozen
class GeminiRules:
    """Implicit caching: automatic from the model's minimum input."""

    count: Callable[[str], int] = attrs.field(eq=False, repr=False)
    minimum: int = 2048
    name: str = "gemini"

    def describe(self) -> str:
        return (f"Gemini: implicit caching from {self.minimum:,} tokens; writes are free; "
                f"entries taken to live {GEMINI_MINUTES:g} minutes (not documented); reuse is "
                "best-effort")

    def bill(self, pieces: Sequence[Piece], markers: Sequence[int], state: CacheState,
             now: float) -> Usage:
        sent = as_sent(pieces)
        total = sent.total
        if total < self.minimum:
            return Usage(0, 0, total, 0, (f"{total:,} tokens: under the model's {self.minimum:,}"
                                          "-token minimum, nothing is cached",))
        return prefix_bill(sent, state, now, self.count, self.minimum, GEMINI_MINUTES)
