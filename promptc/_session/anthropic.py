"""Anthropic's prompt caching as the documentation describes it (sources: billing.py,
docs/caching.md); Bedrock's checkpoints (`cachePoint`) follow the same rules.

- A `cache_control` marker writes one entry: the prefix tools → system → messages ending with
  its block, once that prefix reaches the model's minimum (below it nothing is cached, and no
  error says so). At most 4 markers per request; a fifth is an HTTP 400.
- A read starts at each marker and walks back over block boundaries: at most 20 positions,
  the marker's own block being the first; a run of consecutive tool_use blocks is one
  position, and so is a run of tool_result blocks. The longest prefix found in the cache is
  read (0.1× the input price); only entries earlier requests wrote can be found.
- An entry lives 5 minutes, or an hour with `ttl: "1h"`, counted from the start of the last
  request that wrote or read it. Hour-long markers must come before 5-minute ones (else a
  400). With both: A = the tokens read, B = the last hour-long marker after A (or A), C = the
  last marker; B − A is written at the hour-long price (2× input), C − B at the 5-minute one
  (1.25× input).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from .cache_state import CacheState, Usage, as_sent
from .wire import DEFAULT_TTL, Piece, Sent

__all__ = ["AnthropicRules", "MAX_MARKERS", "LOOKBACK_POSITIONS"]

MAX_MARKERS = 4
LOOKBACK_POSITIONS = 20
_SEEN_BEYOND = 10 * LOOKBACK_POSITIONS  # how far past the window a missed entry is reported


@attrs.frozen
class AnthropicRules:
    """Explicit markers: promptc's (in the payload) plus the client's on the conversation."""

    minimum: int
    name: str = "anthropic"
    # Anthropic's limit; None lifts it, for a what-if (how much markers anywhere would buy)
    max_markers: int | None = MAX_MARKERS

    def describe(self) -> str:
        who, markers = ("Bedrock", "cachePoint checkpoints") if self.name == "bedrock" else \
            ("Anthropic", "cache_control markers")
        limit = f"at most {self.max_markers}" if self.max_markers is not None else \
            f"no limit: a what-if, {who} allows 4"
        return (f"{who}: explicit {markers} ({limit}); a prefix under "
                f"{self.minimum:,} tokens is not cached; a read looks back {LOOKBACK_POSITIONS} "
                "positions from each marker, the marker's own first, a run of tool_use or "
                "tool_result blocks one position; entries live 5 minutes (1 hour with "
                "ttl=\"1h\", written at 2× input) from the last request that used them")

    def bill(self, pieces: Sequence[Piece], markers: Sequence[int], state: CacheState,
             now: float, ttls: dict[int, float] | None = None) -> Usage:
        """Bill a request; `ttls` gives the lifetime of markers the pieces do not carry (the
        client's, on the conversation), in minutes."""
        sent = as_sent(pieces)
        markers = sorted(markers)
        lifetimes = {m: (ttls or {}).get(m, sent[m].ttl) for m in markers}
        refused = self._refused(markers, lifetimes)
        if refused:
            return Usage(0, 0, 0, 0, rejected=refused)
        effective = [m for m in markers if sent.cum(m) >= self.minimum]
        hit, missed, kind = _hit(sent, markers, state, now)
        read = sent.cum(hit)
        after = [m for m in effective if m > hit]
        long = [m for m in after if lifetimes[m] > DEFAULT_TTL]
        write = sent.cum(after[-1]) - read if after else 0
        write_long = sent.cum(long[-1]) - read if long else 0
        for m in effective:
            state.touch(sent.key(m), now, lifetimes[m])
        if hit >= 0:
            state.touch(sent.key(hit), now, 0.0)  # refreshed, with the lifetime it has
        return Usage(read, write, sent.total - read - write,
                     max(effective[-1] if effective else -1, hit) + 1,
                     self._short(sent, markers), read_pieces=hit + 1, write_long=write_long,
                     missed=missed, miss_kind=kind)

    def _refused(self, markers: Sequence[int], lifetimes: dict[int, float]) -> str | None:
        """Why Anthropic would answer the request with a 400, or None."""
        if self.max_markers is not None and len(markers) > self.max_markers:
            return (f"{len(markers)} cache_control markers: Anthropic rejects a request with "
                    f"more than {self.max_markers} (HTTP 400)")
        shortest = float("inf")
        for m in markers:
            if lifetimes[m] > shortest:
                return ("a 1-hour cache_control marker after a 5-minute one: Anthropic "
                        "requires longer lifetimes first (HTTP 400)")
            shortest = min(shortest, lifetimes[m])
        return None

    def _short(self, sent: Sent, markers: Sequence[int]) -> tuple[str, ...]:
        """A note for each marker whose prefix is under the minimum (nothing cached there)."""
        return tuple(f"the marker after {sent[m].where} ({sent.cum(m):,} tokens) is under the "
                     f"{self.minimum:,}-token minimum: nothing is cached there"
                     for m in markers if sent.cum(m) < self.minimum)


def _hit(sent: Sent, markers: Sequence[int], state: CacheState, now: float
         ) -> tuple[int, str, str]:
    """The last piece of the longest cached prefix a marker's lookback reaches (-1: none), and
    when a longer prefix was cached before, why it was not read: its entry was past every
    window ("lookback") or had expired ("expired")."""
    best, far, stale = -1, (-1, 0, -1), -1
    for m in markers:
        found, beyond, expired = _walk(sent, m, best, state, now)
        best = max(best, found)
        if beyond[0] > far[0]:
            far = beyond
        stale = max(stale, expired)
    if far[0] > best:
        return best, (f"the cached prefix ending with {sent[far[0]].where} is {far[1]} "
                      f"positions back from the marker after {sent[far[2]].where}: outside "
                      f"the {LOOKBACK_POSITIONS}-position lookback"), "lookback"
    if stale > best:
        return best, f"the entry ending with {sent[stale].where} expired", "expired"
    return best, "", ""


def _walk(sent: Sent, marker: int, floor: int, state: CacheState, now: float
          ) -> tuple[int, tuple[int, int, int], int]:
    """Walk back from `marker` over block boundaries (above `floor`): the first with a live
    entry within the window (-1: none); a live entry a little past the window (where, how
    many positions back, the marker); the first expired entry met (-1: none)."""
    position, run, stale = 0, "", -1
    b = marker
    while b > floor:
        piece = sent[b]
        if piece.block_end:
            if not (piece.run and piece.run == run):
                position += 1
            run = piece.run
            if position > LOOKBACK_POSITIONS + _SEEN_BEYOND:
                break
            key = sent.key(b)
            if state.live(key, now):
                if position <= LOOKBACK_POSITIONS:
                    return b, (-1, 0, -1), stale
                return -1, (b, position, marker), stale
            if stale < 0 and position <= LOOKBACK_POSITIONS and state.stale(key, now):
                stale = b
        b -= 1
    return -1, (-1, 0, -1), stale
