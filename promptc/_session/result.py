"""The records a replay produces: each request's bill and break, the totals, the CI gates.

`SessionReport.to_dict()` is what `promptc session --format json` prints (fixed names:
`requests[i]` {cache_read, cache_write, uncached, turn_tokens, break}, `totals` {cache_read,
cache_write, uncached, cost}).

Besides the totals, a report can carry the conversation's own floor: what the conversation
alone costs when the prompt never changes (`replay(floor=True)`), so that what the prompt
itself costs is the session's cost above it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import attrs

from .._model.prices import Prices
from .script import SessionScript

__all__ = ["Break", "RequestResult", "Totals", "Gate", "SessionReport", "totals_of", "Part"]

BreakKind = Literal["change", "new_session", "model", "expired", "lookback"]


@attrs.frozen
class Break:
    """Where the prefix the previous request left cached stopped matching, and why."""

    where: str   # a section id, "tools", "session tools", "model"
    cache: str   # the cache class of what broke
    cause: str
    kind: BreakKind

    @property
    def static(self) -> bool:
        """A break inside the static class that no model switch or expiry explains: the
        prompt's shared prefix depends on something per-session (a finding)."""
        return self.cache == "static" and self.kind in ("change", "new_session")

    def to_dict(self) -> dict[str, Any]:
        return {"where": self.where, "cache": self.cache, "cause": self.cause,
                "kind": self.kind, "static": self.static}


@attrs.frozen
class Part:
    """A part of a request's input as billed: the prompt's (tools, system prompt, first
    message, the details sent later) or the conversation's own tokens."""

    tokens: int = 0
    cache_read: int = 0
    cache_write: int = 0
    uncached: int = 0
    cost: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "cache_read": self.cache_read,
                "cache_write": self.cache_write, "uncached": self.uncached,
                "cost": _usd(self.cost)}


@attrs.frozen
class RequestResult:
    """One request's input tokens as the provider bills them."""

    index: int
    session: int
    turn: int
    step: int
    label: str
    provider: str
    model: str
    variant: str
    input: int
    cache_read: int
    cache_write: int
    uncached: int
    turn_tokens: int
    output_tokens: int
    cost: float | None
    brk: Break | None
    markers: int = 0
    notes: tuple[str, ...] = ()
    rejected: str | None = None
    prompt: Part = Part()
    conversation: Part = Part()
    write_long: int = 0  # of cache_write, tokens with Anthropic's hour-long lifetime
    # conversation tokens sent before that this request did not read from the cache (written
    # again, or sent uncached), and why; 0 at a model switch or an expired cache is expected
    rewritten: int = 0
    rewrite_cause: str = ""

    @property
    def costly_rewrite(self) -> bool:
        """The conversation written again where nothing forced it: not at a model switch or
        after the cache expired (a finding, which the gate counts)."""
        return bool(self.rewritten) and not (self.brk is not None and
                                             self.brk.kind in ("model", "expired"))

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "session": self.session, "turn": self.turn,
                "step": self.step, "label": self.label, "provider": self.provider,
                "model": self.model, "variant": self.variant, "input": self.input,
                "cache_read": self.cache_read, "cache_write": self.cache_write,
                "uncached": self.uncached, "turn_tokens": self.turn_tokens,
                "output_tokens": self.output_tokens, "cost": _usd(self.cost),
                "break": self.brk.to_dict() if self.brk else None, "markers": self.markers,
                "notes": list(self.notes), "rejected": self.rejected,
                "prompt": self.prompt.to_dict(), "conversation": self.conversation.to_dict(),
                "cache_write_1h": self.write_long,
                "conversation_rewritten": {"tokens": self.rewritten, "cause": self.rewrite_cause,
                                           "costly": self.costly_rewrite}}


def _usd(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


@attrs.frozen
class Totals:
    requests: int
    sessions: int
    input: int
    cache_read: int
    cache_write: int
    uncached: int
    output: int
    cost: float | None   # USD; None when a model has no price in the table
    breaks: int
    static_breaks: int
    rejected: int
    # the input cost of the prompt's tokens (tools, system, first message, details sent
    # later) and of the conversation's; with output, they add up to `cost`
    prompt_cost: float | None = None
    conversation_cost: float | None = None
    cache_write_long: int = 0
    rewrites: int = 0     # requests with a costly conversation rewrite

    @property
    def cached_share(self) -> float:
        """The share of input tokens read from the cache."""
        return self.cache_read / self.input if self.input else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"requests": self.requests, "sessions": self.sessions, "input": self.input,
                "cache_read": self.cache_read, "cache_write": self.cache_write,
                "uncached": self.uncached, "output": self.output, "cost": _usd(self.cost),
                "cached_share": round(self.cached_share, 4), "breaks": self.breaks,
                "static_breaks": self.static_breaks, "rejected": self.rejected,
                "prompt_cost": _usd(self.prompt_cost),
                "conversation_cost": _usd(self.conversation_cost),
                "cache_write_1h": self.cache_write_long, "conversation_rewrites": self.rewrites}


def _sum(results: Sequence[RequestResult], field: str) -> int:
    return sum(getattr(r, field) for r in results)


def _total_cost(costs: Sequence[float | None]) -> float | None:
    """The session's cost, or None when any request has none (a model without prices)."""
    return None if None in costs else sum(c for c in costs if c is not None)


def totals_of(results: Sequence[RequestResult]) -> Totals:
    broken = [r.brk for r in results if r.brk is not None]
    return Totals(
        requests=len(results), sessions=len({r.session for r in results}),
        input=_sum(results, "input"), cache_read=_sum(results, "cache_read"),
        cache_write=_sum(results, "cache_write"), uncached=_sum(results, "uncached"),
        output=_sum(results, "output_tokens"), cost=_total_cost([r.cost for r in results]),
        breaks=len(broken), static_breaks=sum(b.static for b in broken),
        rejected=sum(r.rejected is not None for r in results),
        prompt_cost=_total_cost([r.prompt.cost for r in results]),
        conversation_cost=_total_cost([r.conversation.cost for r in results]),
        cache_write_long=_sum(results, "write_long"),
        rewrites=sum(r.costly_rewrite for r in results))


@attrs.frozen
class Gate:
    """One CI check on a report: its limit, the measured value, and whether it holds."""

    name: str
    limit: str
    value: str
    ok: bool

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "limit": self.limit, "value": self.value, "ok": self.ok}


@attrs.frozen
class SessionReport:
    """A replayed session: every request, the totals, the prices and the rules used."""

    script: SessionScript
    dynamic: str
    breakpoints: int
    requests: tuple[RequestResult, ...]
    totals: Totals
    prices: tuple[Prices, ...]
    rules: tuple[str, ...]
    floor: Totals | None = None  # the same script with the prompt never changing

    @property
    def conversation_floor(self) -> float | None:
        """What the conversation alone costs at best: its cost when the prompt never changes."""
        return self.floor.conversation_cost if self.floor is not None else None

    @property
    def prompt_share(self) -> float | None:
        """What the prompt itself costs: the session's cost above the conversation's floor."""
        floor, cost = self.conversation_floor, self.totals.cost
        return None if floor is None or cost is None else cost - floor

    def rewrites(self) -> list[str]:
        """Each costly conversation rewrite: the request and the cause."""
        return [f"#{r.index}: {r.rewritten:,} conversation tokens not read from the cache "
                f"({r.rewrite_cause})" for r in self.requests if r.costly_rewrite]

    def gates(self, max_breaks: int | None = None, min_cached_share: float | None = None,
              max_rewrites: int = 0) -> tuple[Gate, ...]:
        """The checks: static-class breaks, rejected requests and conversation rewrites (the
        conversation written again other than at a model switch or an expired cache; up to
        `max_rewrites` allowed) always, the number of breaks and the cached share when a limit
        is given."""
        t = self.totals
        found = self.rewrites()
        shown = "; ".join(found[:3]) + (f"; and {len(found) - 3} more" if len(found) > 3 else "")
        gates = [Gate("static-class breaks", "0", str(t.static_breaks), t.static_breaks == 0),
                 Gate("rejected requests", "0", str(t.rejected), t.rejected == 0),
                 Gate("conversation rewrites", str(max_rewrites),
                      f"{t.rewrites}" + (f": {shown}" if found else ""),
                      t.rewrites <= max_rewrites)]
        if max_breaks is not None:
            gates.append(Gate("max-breaks", str(max_breaks), str(t.breaks),
                              t.breaks <= max_breaks))
        if min_cached_share is not None:
            gates.append(Gate("min-cached-share", f"{min_cached_share:.1%}",
                              f"{t.cached_share:.1%}", t.cached_share >= min_cached_share))
        return tuple(gates)

    def to_dict(self, max_breaks: int | None = None, min_cached_share: float | None = None,
                max_rewrites: int = 0) -> dict[str, Any]:
        gates = self.gates(max_breaks, min_cached_share, max_rewrites)
        sources = sorted({(p.source, p.date) for p in self.prices})
        return {
            "script": self.script.source, "title": self.script.title,
            "provider": self.script.provider, "model": self.script.model,
            "dynamic": self.dynamic, "breakpoints": self.breakpoints,
            "client_markers": self.script.client_markers,
            "requests": [r.to_dict() for r in self.requests],
            "totals": {**self.totals.to_dict(), "currency": "USD",
                       "price_source": "; ".join(f"{s} ({d})" for s, d in sources) or None,
                       "conversation_floor": _usd(self.conversation_floor),
                       "prompt_share": _usd(self.prompt_share)},
            "ttl": self.script.ttl, "turn_seconds": self.script.turn_seconds,
            "prices": [p.to_dict() for p in self.prices],
            "rules": list(self.rules),
            "gates": [g.to_dict() for g in gates], "ok": all(g.ok for g in gates)}
