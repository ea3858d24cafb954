"""Replaying a session script: each request compiled, sent through the provider's caching rules,
billed, and compared with the request before it to say where the cached prefix broke and why.

The client is modelled as an agent loop: a request sends the prompt (tools, system, and with
dynamic placement the first user message holding the session's details) and the conversation so
far, which grows by `turn_tokens` per request. With dynamic placement the first message is
written once per session; when details change, the client sends the sections that changed with
the latest message (`CompiledPrompt.message_update`; the prompt's note says the newest holds;
all of them when a section appears or goes), so history is never rewritten.
The client marks its latest message with a cache_control marker (`client_markers`, Anthropic).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import attrs

from .._base.errors import ConfigError
from .._compile.compiler import Compiler
from .._compile.dynamic import Placement
from .._model.placeholders import STANDARD
from .._model.prices import Prices, model_prices
from .._model.provider import ProviderInfo, encoding_for
from .result import Break, Part, RequestResult, SessionReport, totals_of
from .rules import (MAX_MARKERS, AnthropicRules, CacheRules, CacheState, GeminiRules,
                    OpenAIRules, TTL_MINUTES, Usage, rules_for)
from .script import SessionScript, Step, load_script
from .wire import Piece, PromptWire, digest, prompt_wire

__all__ = ["replay", "PromptSource", "PromptcSource"]


class PromptSource(Protocol):
    """What builds a request's prompt: promptc's compiler, or (in benchmarks/) the reference."""

    def wire(self, provider: ProviderInfo, context: Mapping[str, Any], api: str,
             dynamic: str, breakpoints: int) -> PromptWire: ...

    def reads(self, provider: ProviderInfo, where: str) -> frozenset[str] | None: ...


class PromptcSource:
    """promptc's prompts: compiled, then shaped by the adapters a client calls."""

    def __init__(self, compiler: Compiler) -> None:
        self.compiler = compiler

    def wire(self, provider: ProviderInfo, context: Mapping[str, Any], api: str,
             dynamic: str, breakpoints: int) -> PromptWire:
        placement: Placement = "message" if dynamic == "message" else "system"
        return prompt_wire(self.compiler.compile(provider, context, dynamic=placement), api,
                           breakpoints)

    def reads(self, provider: ProviderInfo, where: str) -> frozenset[str] | None:
        """The context fields a section is computed from (None: not declared)."""
        for step in self.compiler.plan(provider).steps:
            if step.cid == where:
                if step.reads is None:
                    return None
                std = {STANDARD[n][0] for n in step.std_names if n in STANDARD}
                return frozenset({r.split(".")[0] for r in step.reads} | std) - {""}
        return None


# --- the replay's state ----------------------------------------------------------------------

@attrs.define
class _Conversation:
    """One session's conversation, as the client keeps it."""

    number: int
    history: list[Piece] = attrs.field(factory=list)
    first: tuple[Piece, ...] = ()   # the dynamic first message, fixed when the session starts
    sent: dict[str, str] = attrs.field(factory=dict)  # section -> the digest the model last saw
    turns: int = 0


@attrs.define
class _Last:
    """What the request before this one sent and left cached."""

    namespace: tuple[str, ...]
    pieces: list[Piece]
    cached: int
    context: dict[str, Any]
    model: str
    variant: str
    time: float


def _api_of(provider: str, model: str, source: str) -> str:
    api = rules_for(provider, model)
    if api is None:
        raise ConfigError(f"promptc models the caching of anthropic, bedrock, openai, azure, "
                          f"gemini and vertex_ai; not {provider!r}", source=source,
                          field="provider")
    return api


def _rules(api: str, info: ProviderInfo, count: Any, marker_limit: int | None) -> CacheRules:
    resolved = info.resolved()
    if api == "anthropic":
        return AnthropicRules(resolved.cache_min_tokens or 1024, max_markers=marker_limit)
    if api == "openai":
        return OpenAIRules(count)
    return GeminiRules(count, resolved.cache_min_tokens or 1024)


def _show(value: Any) -> str:
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    text = str(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, str]:
    """Context fields that differ, each with a short `old → new` (scalars) or `changed`."""
    out = {}
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old == new or name == "provider":
            continue
        scalar = all(v is None or isinstance(v, (str, int, float, datetime.date))
                     for v in (old, new))
        out[name] = f"{_show(old)} → {_show(new)}" if scalar else "changed"
    return out


class _Replay:
    """One replay: walks the script's steps, request by request."""

    def __init__(self, script: SessionScript, source: PromptSource, dynamic: str,
                 breakpoints: int, compiler: Compiler, marker_limit: int | None) -> None:
        self.script, self.source = script, source
        self.dynamic, self.breakpoints = dynamic, breakpoints
        self.compiler, self.marker_limit = compiler, marker_limit
        self.states: dict[tuple[str, ...], CacheState] = {}
        self.results: list[RequestResult] = []
        self.prices: dict[tuple[str, str], Prices | None] = {}
        self.rules: dict[str, str] = {}
        self.provider, self.model = script.provider, script.model
        self.context: dict[str, Any] = dict(script.context)
        self.context.pop("provider", None)  # the script's provider and model decide
        if "date" not in self.context:
            self.context["date"] = datetime.date.today().isoformat()
        self.turn_tokens, self.output_tokens = script.turn_tokens, script.output_tokens
        self.conversation = _Conversation(1)
        self.last: _Last | None = None
        self.now = 0.0

    def run(self) -> SessionReport:
        for step in self.script.steps:
            self._apply(step)
            for i in range(step.repeat):
                self.now += step.pause if i == 0 else 0.0
                self._request(step, i == 0)
        return SessionReport(
            script=self.script, dynamic=self.dynamic, breakpoints=self.breakpoints,
            requests=tuple(self.results), totals=totals_of(self.results),
            prices=tuple(p for p in self.prices.values() if p is not None),
            rules=tuple(sorted(self.rules.values())))

    def _apply(self, step: Step) -> None:
        if step.context is not None:
            date = self.context["date"]
            self.context = {k: v for k, v in step.context.items() if k != "provider"}
            self.context.setdefault("date", date)
        self.context.update(step.changes)
        self.provider = step.provider or self.provider
        self.model = step.model or self.model
        if step.turn_tokens is not None:
            self.turn_tokens = step.turn_tokens
        if step.output_tokens is not None:
            self.output_tokens = step.output_tokens
        if step.new_session and self.conversation.turns:
            self.conversation = _Conversation(self.conversation.number + 1)

    # --- one request ---------------------------------------------------------------------------

    def _request(self, step: Step, first_of_step: bool) -> None:
        info = ProviderInfo(self.provider, self.model)
        api = _api_of(self.provider, self.model, self.script.source)
        wire = self.source.wire(info, self.context, api, self.dynamic, self.breakpoints)
        pieces = self._pieces(wire)
        namespace = (api, self.provider, self.model) + ((wire.cache_key or "",)
                                                         if api == "openai" else ())
        usage, markers = self._bill(info, api, namespace, pieces)
        brk = self._break(info, namespace, pieces, wire, step, first_of_step)
        lost = _rewritten_static(pieces, brk, usage.cache_read)
        prices = self._prices(info)
        prompt, conversation = _parts(pieces, usage, prices)
        out_tokens = self.output_tokens
        self.results.append(RequestResult(
            index=len(self.results) + 1, session=self.conversation.number,
            turn=self.conversation.turns, step=step.index, label=step.label if first_of_step
            else "", provider=self.provider, model=self.model, variant=wire.variant,
            input=usage.cache_read + usage.cache_write + usage.uncached,
            cache_read=usage.cache_read, cache_write=usage.cache_write,
            uncached=usage.uncached, turn_tokens=self.turn_tokens, output_tokens=out_tokens,
            cost=_cost(usage.cache_read, usage.cache_write, usage.uncached, out_tokens, prices),
            brk=brk, markers=markers, notes=usage.notes + ((lost,) if lost else ()),
            rejected=usage.rejected, prompt=prompt, conversation=conversation))
        self.last = _Last(namespace, pieces, usage.cached_pieces if not usage.rejected else
                          (self.last.cached if self.last else 0), dict(self.context),
                          self.model, wire.variant, self.now)

    def _bill(self, info: ProviderInfo, api: str, namespace: tuple[str, ...],
              pieces: Sequence[Piece]) -> tuple[Usage, int]:
        """The request billed under its provider's rules, and the cache markers it carries
        (Anthropic: promptc's and the client's)."""
        client = self._client_markers(pieces) if api == "anthropic" else []
        marks = sorted({i for i, p in enumerate(pieces) if p.marker} | set(client))
        state = self.states.setdefault(namespace, CacheState())
        encoding = encoding_for(info)[0]
        rules = _rules(api, info, lambda text: self.compiler.tokens.count(text, encoding),
                       self.marker_limit)
        self.rules[api] = rules.describe()
        usage = rules.bill(pieces, marks, state, self.now)
        return usage, len(marks) if api == "anthropic" else 0

    def _pieces(self, wire: PromptWire) -> list[Piece]:
        """The whole input: prompt, dynamic first message, the conversation so far."""
        c = self.conversation
        c.turns += 1
        if wire.message:
            now = {p.where: p.digest for p in wire.message}
            if not c.first:
                c.first = wire.message
            elif now != c.sent:  # what changed goes with the latest message, as one block
                whole = set(now) != set(c.sent)
                sent = [p for p in wire.message if whole or c.sent[p.where] != p.digest]
                c.history.extend(attrs.evolve(p, kind="update", where=f"update: {p.where}",
                                              marker=False, block_end=p is sent[-1])
                                 for p in sent)
            c.sent = now
        c.history.append(Piece("turn", f"turn {c.turns}", "", self.turn_tokens,
                               digest("turn", str(c.number), str(c.turns))))
        return [*wire.head, *c.first, *c.history]

    def _client_markers(self, pieces: Sequence[Piece]) -> list[int]:
        turns = [i for i, p in enumerate(pieces) if p.kind == "turn"]
        return turns[-self.script.client_markers:] if self.script.client_markers else []

    def _prices(self, info: ProviderInfo) -> Prices | None:
        key = (info.provider, info.model)
        if key not in self.prices:
            self.prices[key] = model_prices(info)
        return self.prices[key]

    # --- where the prefix broke, and why ------------------------------------------------------

    def _break(self, info: ProviderInfo, namespace: tuple[str, ...], pieces: Sequence[Piece],
               wire: PromptWire, step: Step, first_of_step: bool) -> Break | None:
        last = self.last
        if last is None:
            return None
        if namespace[:3] != last.namespace[:3]:
            return self._model_break(last, wire)
        if self.now - last.time > TTL_MINUTES and last.cached:
            return Break(pieces[0].where, pieces[0].cache,
                         f"{self.now - last.time:g} minutes since the last request: the cache "
                         f"expired ({TTL_MINUTES:g}-minute lifetime)", "expired")
        d = _first_difference(pieces, last.pieces)
        if d >= last.cached or d >= len(pieces) or pieces[d].kind == "turn":
            return None  # what was cached is all still there (or only the conversation is new)
        new_session = step.new_session and first_of_step
        piece, gone = _broken_piece(pieces, last.pieces, d)
        return Break(piece.where, piece.cache,
                     self._cause(info, piece, last, new_session, gone),
                     "new_session" if new_session else "change")

    def _model_break(self, last: _Last, wire: PromptWire) -> Break:
        variant = f" (variant {last.variant} → {wire.variant})" \
            if last.variant != wire.variant else ""
        return Break("model", "static", f"model {last.model} → {self.model}{variant}: each "
                     "model has its own cache", "model")

    def _cause(self, info: ProviderInfo, piece: Piece, last: _Last, new_session: bool,
               gone: bool = False) -> str:
        changed = _changes(last.context, self.context)
        reads = self.source.reads(info, piece.where) if piece.kind != "tools" else None
        relevant = {k: v for k, v in changed.items() if reads is None or k in reads} or changed
        text = _list_changes(relevant)
        if gone:
            text = f"{'the session tools' if piece.kind == 'tools' else 'the section'} went " \
                   f"({text})"
        elif piece.kind == "tools":
            text = f"the tool definitions changed ({text})"
        return f"new session: {text}" if new_session else text


def _first_difference(pieces: Sequence[Piece], before: Sequence[Piece]) -> int:
    """The index of the first piece that differs from the request before's."""
    d, limit = 0, min(len(pieces), len(before))
    while d < limit and pieces[d].digest == before[d].digest:
        d += 1
    return d


def _broken_piece(pieces: Sequence[Piece], before: Sequence[Piece], d: int
                  ) -> tuple[Piece, bool]:
    """Which piece the prefix broke at, and whether it is one that went: at the first
    difference, a piece of the request before that this request no longer sends (the session
    tools of a user without MCP servers, a section that went) is the break, not the unchanged
    piece that now follows in its place."""
    if d < len(before):
        old = before[d]
        sent = {(p.kind, p.where) for p in pieces}
        if (old.kind, old.where) not in sent:
            return old, True
    return pieces[d], False


def _rewritten_static(pieces: Sequence[Piece], brk: Break | None, read: int) -> str | None:
    """A note when static-class text after a break is not read: the tools come first on the
    wire (tools → system → messages), so a change in a session's tools costs the static
    system prompt after them."""
    if brk is None or brk.static or brk.kind in ("model", "expired"):
        return None
    seen, lost = 0, 0
    for piece in pieces:
        if seen >= read and piece.kind not in ("tools", "turn") and piece.cache == "static":
            lost += piece.tokens
        seen += piece.tokens
    if not lost:
        return None
    return (f"{lost:,} tokens of the static class after {brk.where} are not read from the "
            "cache: the tools come first on the wire (tools → system → messages)")


def _parts(pieces: Sequence[Piece], usage: Usage, prices: Prices | None) -> tuple[Part, Part]:
    """The bill split between the prompt's pieces and the conversation's turns: the cache
    read covers the input's first tokens, the write the ones after it, the rest is uncached
    (a rejected request is billed nothing)."""
    read_end, write_end = usage.cache_read, usage.cache_read + usage.cache_write
    prompt, turns = [0, 0, 0, 0], [0, 0, 0, 0]  # tokens, read, written, uncached
    at = 0
    for piece in pieces:
        end = at + piece.tokens
        read = max(0, min(end, read_end) - at)
        write = max(0, min(end, write_end) - max(at, read_end))
        sums = turns if piece.kind == "turn" else prompt
        billed = (0, 0, 0) if usage.rejected else (read, write, piece.tokens - read - write)
        for i, value in enumerate((piece.tokens, *billed)):
            sums[i] += value
        at = end
    return _part(prompt, prices), _part(turns, prices)


def _part(sums: Sequence[int], prices: Prices | None) -> Part:
    tokens, read, write, uncached = sums
    return Part(tokens, read, write, uncached, _cost(read, write, uncached, 0, prices))


def _list_changes(changes: Mapping[str, str]) -> str:
    """`mode act → plan, date …`; past two fields, just their names."""
    if not changes:
        return "its text changed"
    if len(changes) > 2:
        return ", ".join(changes) + " changed"
    return ", ".join(f"{k} {v}" for k, v in changes.items())


def _cost(read: int, write: int, uncached: int, output: int, prices: Prices | None
          ) -> float | None:
    """USD for one request: cached reads, cache writes, other input and output at the model's
    prices (a missing cache price bills at the input price; no input price: no cost)."""
    if prices is None or prices.input is None:
        return None
    base = prices.input
    total = (read * (prices.cache_read if prices.cache_read is not None else base)
             + write * (prices.cache_write if prices.cache_write is not None else base)
             + uncached * base + output * (prices.output or 0.0))
    return total / 1_000_000


def replay(script: SessionScript | str | Path, *, compiler: Compiler | None = None,
           dynamic: str | None = None, breakpoints: int | None = None,
           source: PromptSource | None = None,
           marker_limit: int | None = MAX_MARKERS) -> SessionReport:
    """Replay a session script (a path or a loaded `SessionScript`) and report what each request
    reads from and writes to the provider's cache, what it sends uncached, what it costs, and
    where the cached prefix broke and why. `dynamic` and `breakpoints` override the script's;
    `compiler` defaults to `Compiler.default()`; `source` builds the prompts (default: promptc's
    own, through that compiler). `marker_limit=None` lifts Anthropic's limit of 4 markers, for
    a what-if with a source that marks more (benchmarks/session_costs.py's bound)."""
    loaded = script if isinstance(script, SessionScript) else load_script(script)
    compiler = compiler or Compiler.default()
    placement = dynamic or loaded.dynamic
    if placement not in ("system", "message"):
        raise ValueError(f"dynamic must be 'system' or 'message', got {placement!r}")
    marks = loaded.breakpoints if breakpoints is None else breakpoints
    if not 0 <= marks <= 4:
        raise ValueError(f"breakpoints must be 0..4, got {marks}")
    return _Replay(loaded, source or PromptcSource(compiler), placement, marks, compiler,
                   marker_limit).run()
