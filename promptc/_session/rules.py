"""Each provider's prompt-caching rules, as a function from a request's pieces to its bill.

The facts (checked 2026-12-02; README "Replaying a session" cites the pages):

- Anthropic (docs.anthropic.com, "Prompt caching"): explicit `cache_control` markers, at most 4
  per request (a fifth is a 400 error); the prefix tools → system → messages up to a marker is
  written to the cache (billed at the cache-write price, 1.25× input for the 5-minute lifetime)
  once it reaches the model's minimum (below it nothing is cached, silently); a later request
  reads the longest prefix written before that ends at a block boundary at most 20 blocks
  before one of its markers (billed at the cache-read price, 0.1× input). Entries live 5 minutes,
  refreshed by every hit.
- OpenAI (platform.openai.com, "Prompt caching"): automatic for prompts of 1,024 tokens or more;
  the cached part is the longest prefix shared with a recent request routed to the same
  machine (same `prompt_cache_key` and opening), counted in steps of 128 tokens from 1,024;
  writes cost nothing, reads the model's cached-input price. Entries live 5-10 minutes idle
  (the simulator takes 5).
- Gemini (ai.google.dev, "Context caching", implicit caching): automatic on Gemini 2.5 and later
  from the model's minimum input (1,024-4,096 tokens by model); a hit is billed at the cached
  price, nothing is billed for writing. The lifetime is not documented; the simulator takes
  5 minutes, as for the others.

Token counts are promptc's (tiktoken; `estimated` for families it has no exact encoding for).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import attrs

from .._model.provider import normalize_provider
from .wire import Piece, common_prefix, digest

__all__ = ["Usage", "CacheRules", "AnthropicRules", "OpenAIRules", "GeminiRules", "CacheState",
           "rules_for", "RULES", "MAX_MARKERS", "LOOKBACK_BLOCKS", "OPENAI_MINIMUM",
           "OPENAI_STEP", "TTL_MINUTES"]

MAX_MARKERS = 4
LOOKBACK_BLOCKS = 20
OPENAI_MINIMUM = 1024
OPENAI_STEP = 128
TTL_MINUTES = 5.0


@attrs.frozen
class Usage:
    """What one request is billed for, in input tokens, and what it leaves in the cache."""

    cache_read: int
    cache_write: int
    uncached: int
    cached_pieces: int  # leading pieces of this request in the cache afterwards
    notes: tuple[str, ...] = ()
    rejected: str | None = None


class CacheState:
    """The provider's cache during a replay: prefix digest → minute it was last used, and for
    automatic caching the texts seen after each prefix (for matches inside a piece)."""

    def __init__(self) -> None:
        self.entries: dict[str, float] = {}
        self.nexts: dict[str, list[str]] = {}

    def live(self, key: str, now: float) -> bool:
        used = self.entries.get(key)
        return used is not None and now - used <= TTL_MINUTES


class CacheRules(Protocol):
    """A provider's rules: bill a request's pieces against the cache, and say what they are."""

    @property
    def name(self) -> str: ...

    @property
    def minimum(self) -> int: ...

    def bill(self, pieces: Sequence[Piece], markers: Sequence[int], state: CacheState,
             now: float) -> Usage: ...

    def describe(self) -> str: ...


def chain(pieces: Sequence[Piece]) -> list[str]:
    """Each prefix's digest: piece i's includes every piece before it."""
    out, last = [], ""
    for piece in pieces:
        last = digest(last, piece.digest)
        out.append(last)
    return out


def cumulative(pieces: Sequence[Piece]) -> list[int]:
    out, total = [], 0
    for piece in pieces:
        total += piece.tokens
        out.append(total)
    return out


@attrs.frozen
class AnthropicRules:
    """Explicit markers: promptc's (in the payload) plus the client's on the conversation."""

    minimum: int
    name: str = "anthropic"
    # Anthropic's limit; None lifts it, for a what-if (how much markers anywhere would buy)
    max_markers: int | None = MAX_MARKERS

    def describe(self) -> str:
        limit = f"at most {self.max_markers}" if self.max_markers is not None else \
            "no limit: a what-if, Anthropic allows 4"
        return (f"Anthropic: explicit cache_control markers ({limit}); a prefix "
                f"under {self.minimum:,} tokens is not cached; reads look back "
                f"{LOOKBACK_BLOCKS} blocks; entries live {TTL_MINUTES:g} minutes")

    def bill(self, pieces: Sequence[Piece], markers: Sequence[int], state: CacheState,
             now: float) -> Usage:
        total = sum(p.tokens for p in pieces)
        if self.max_markers is not None and len(markers) > self.max_markers:
            return Usage(0, 0, 0, 0, rejected=(
                f"{len(markers)} cache_control markers: Anthropic rejects a request with more "
                f"than {self.max_markers} (HTTP 400)"))
        keys, cum = chain(pieces), cumulative(pieces)
        effective = [m for m in markers if cum[m] >= self.minimum]
        hit = self._hit(pieces, keys, markers, state, now)
        read = cum[hit] if hit >= 0 else 0
        last = max(effective, default=-1)
        write = cum[last] - read if last > hit else 0
        for m in (*effective, *([hit] if hit >= 0 else [])):
            state.entries[keys[m]] = now
        return Usage(read, write, total - read - write, max(last, hit) + 1,
                     self._short(pieces, markers, cum))

    def _short(self, pieces: Sequence[Piece], markers: Sequence[int], cum: Sequence[int]
               ) -> tuple[str, ...]:
        """A note for each marker whose prefix is under the minimum (nothing cached there)."""
        return tuple(f"the marker after {pieces[m].where} ({cum[m]:,} tokens) is under the "
                     f"{self.minimum:,}-token minimum: nothing is cached there"
                     for m in markers if cum[m] < self.minimum)

    @staticmethod
    def _hit(pieces: Sequence[Piece], keys: Sequence[str], markers: Sequence[int],
             state: CacheState, now: float) -> int:
        """The last piece of the longest cached prefix a marker's lookback reaches (-1: none)."""
        blocks, seen = [], 0
        for piece in pieces:
            seen += piece.block_end
            blocks.append(seen)
        best = -1
        for m in markers:
            for b in range(m, best, -1):
                if blocks[m] - blocks[b] > LOOKBACK_BLOCKS:
                    break
                if pieces[b].block_end and state.live(keys[b], now):
                    best = b
                    break
        return best


def _shared(pieces: Sequence[Piece], keys: Sequence[str], cum: Sequence[int],
            state: CacheState, now: float, count: Callable[[str], int]) -> int:
    """Tokens of the longest prefix shared with a live cached request: whole pieces, then the
    common start of the first piece that differs (by its text)."""
    k = 0
    while k < len(pieces) and state.live(keys[k], now):
        k += 1
    shared = cum[k - 1] if k else 0
    if k < len(pieces) and pieces[k].text:
        before = keys[k - 1] if k else ""
        best = max((common_prefix(text, pieces[k].text) for text in state.nexts.get(before, ())),
                   default=0)
        shared += count(pieces[k].text[:best]) if best else 0
    return shared


def _remember(pieces: Sequence[Piece], keys: Sequence[str], state: CacheState,
              now: float) -> None:
    before = ""
    for piece, key in zip(pieces, keys):
        state.entries[key] = now
        if piece.text:
            texts = state.nexts.setdefault(before, [])
            if piece.text not in texts:
                texts.append(piece.text)
                del texts[:-8]  # a few alternatives per prefix are plenty
        before = key


@attrs.frozen
class OpenAIRules:
    """Automatic prefix caching from 1,024 tokens, in steps of 128."""

    count: Callable[[str], int] = attrs.field(eq=False, repr=False)
    minimum: int = OPENAI_MINIMUM
    name: str = "openai"

    def describe(self) -> str:
        return (f"OpenAI: automatic from {self.minimum:,} tokens, hits in steps of "
                f"{OPENAI_STEP}; writes are free; entries live {TTL_MINUTES:g} minutes idle")

    def bill(self, pieces: Sequence[Piece], markers: Sequence[int], state: CacheState,
             now: float) -> Usage:
        keys, cum = chain(pieces), cumulative(pieces)
        total = cum[-1] if cum else 0
        if total < self.minimum:
            return Usage(0, 0, total, 0, (f"{total:,} tokens: OpenAI caches nothing under "
                                          f"{self.minimum:,}",))
        shared = _shared(pieces, keys, cum, state, now, self.count)
        read = 0 if shared < self.minimum else \
            self.minimum + (shared - self.minimum) // OPENAI_STEP * OPENAI_STEP
        _remember(pieces, keys, state, now)
        return Usage(read, 0, total - read, len(pieces))


@attrs.frozen
class GeminiRules:
    """Implicit caching: automatic from the model's minimum input."""

    count: Callable[[str], int] = attrs.field(eq=False, repr=False)
    minimum: int = 1024
    name: str = "gemini"

    def describe(self) -> str:
        return (f"Gemini: implicit caching from {self.minimum:,} tokens; writes are free; "
                f"entries taken to live {TTL_MINUTES:g} minutes (not documented)")

    def bill(self, pieces: Sequence[Piece], markers: Sequence[int], state: CacheState,
             now: float) -> Usage:
        keys, cum = chain(pieces), cumulative(pieces)
        total = cum[-1] if cum else 0
        if total < self.minimum:
            return Usage(0, 0, total, 0, (f"{total:,} tokens: under the model's {self.minimum:,}"
                                          "-token minimum, nothing is cached",))
        shared = _shared(pieces, keys, cum, state, now, self.count)
        read = shared if shared >= self.minimum else 0
        _remember(pieces, keys, state, now)
        return Usage(read, 0, total - read, len(pieces))


RULES = ("anthropic", "openai", "gemini")
# Which rules a provider id bills by (`cache_rules` in a script overrides it).
_BY_PROVIDER = {"anthropic": "anthropic", "bedrock": "anthropic", "openai": "openai",
                "azure": "openai", "gemini": "gemini", "google": "gemini",
                "vertex": "gemini", "vertex_ai": "gemini"}


def rules_for(provider: str, model: str) -> str | None:
    """The rules a provider bills by, or None when promptc does not model that provider."""
    key = normalize_provider(provider)
    found = _BY_PROVIDER.get(key)
    if found == "gemini" and key.startswith("vertex") and "claude" in model.lower():
        return "anthropic"
    return found
