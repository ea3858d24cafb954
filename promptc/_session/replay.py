"""Replaying a session script: each request compiled, sent through the provider's caching rules,
billed, and compared with the request before it to say where the cached prefix broke and why.

The client is modelled as an agent loop: a request sends the prompt (tools, system, and with the
split placement the first user message holding the session's details) and the conversation so
far, which grows by `turn_tokens` per request. With the split the first message is written once
per session; when details change, the client sends the sections that changed as a message of
its own after the latest one (`CompiledPrompt.message_update`; the prompt's note says the newest
holds; all of them when a section appears or goes), so history is never rewritten. The client
marks its latest message with a cache_control marker (`client_markers`, Anthropic, 5 minutes).
Time passes `turn_seconds` between requests, or `pause` minutes where a request says so.

Every request costs the same however long its conversation: the conversation is a `History`
read in place, and the rules look only near their markers or search the conversation's reach.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import attrs

from .._base.errors import ConfigError
from .._compile.compiler import Compiler
from .._model.formats import provider_format
from .._model.placeholders import STANDARD
from .._model.prices import Prices, model_prices
from .._model.provider import ProviderInfo, encoding_for
from .result import Break, Part, RequestResult, SessionReport, totals_of
from .billing import MARKED, MAX_MARKERS, AnthropicRules, CacheState, Usage, rules_for, rules_of
from .script import SessionScript, Step, load_script
from .wire import (DEFAULT_TTL, LIFETIMES, History, Piece, PromptWire, Sent, digest,
                   prompt_wire)

__all__ = ["replay", "PromptSource", "PromptcSource", "UnchangingSource"]


class PromptSource(Protocol):
    """What builds a request's prompt: promptc's compiler, or (in benchmarks/) the reference."""

    def wire(self, provider: ProviderInfo, context: Mapping[str, Any], api: str,
             dynamic: str | None, breakpoints: int) -> PromptWire:
        """The request's prompt as format `api` (a format's id: promptc/_model/formats.py)
        sends it."""
        ...

    def reads(self, provider: ProviderInfo, where: str) -> frozenset[str] | None: ...


class PromptcSource:
    """promptc's prompts: compiled, then shaped by the adapters a client calls (`ttl`: the
    lifetime promptc's Anthropic markers ask for)."""

    def __init__(self, compiler: Compiler, ttl: str | None = None) -> None:
        self.compiler, self.ttl = compiler, ttl
        self._wires: dict[int, tuple[Any, tuple[str, int], PromptWire]] = {}

    def wire(self, provider: ProviderInfo, context: Mapping[str, Any], api: str,
             dynamic: str | None, breakpoints: int) -> PromptWire:
        placement = dynamic if dynamic in ("system", "message") else None
        prompt = self.compiler.compile(provider, context, dynamic=placement)  # type: ignore[arg-type]
        kept = self._wires.get(id(prompt))  # the compiler hands back the same result
        if kept is not None and kept[0] is prompt and kept[1] == (api, breakpoints):
            return kept[2]
        made = prompt_wire(prompt, api, breakpoints, self.ttl)
        if len(self._wires) >= 64:
            self._wires.clear()
        self._wires[id(prompt)] = (prompt, (api, breakpoints), made)
        return made

    def reads(self, provider: ProviderInfo, where: str) -> frozenset[str] | None:
        """The context fields a section is computed from (None: not declared)."""
        for step in self.compiler.plan(provider).steps:
            if step.cid == where:
                if step.reads is None:
                    return None
                std = {STANDARD[n][0] for n in step.std_names if n in STANDARD}
                return frozenset({r.split(".")[0] for r in step.reads} | std) - {""}
        return None


class UnchangingSource:
    """promptc's prompt for one context (the script's first), whatever each request changes:
    replayed, it is the floor of what the session costs with a prompt this size, and its
    conversation's cost (each turn written once per model and conversation, then read) is
    what the conversation costs at best, whoever builds the prompt."""

    def __init__(self, compiler: Compiler, context: Mapping[str, Any],
                 ttl: str | None = None) -> None:
        self.inner = PromptcSource(compiler, ttl)
        self.context = dict(context)

    def wire(self, provider: ProviderInfo, context: Mapping[str, Any], api: str,
             dynamic: str | None, breakpoints: int) -> PromptWire:
        return self.inner.wire(provider, self.context, api, dynamic, breakpoints)

    def reads(self, provider: ProviderInfo, where: str) -> frozenset[str] | None:
        return None


# --- the replay's state ----------------------------------------------------------------------

@attrs.define
class _Conversation:
    """One session's conversation, as the client keeps it."""

    number: int
    history: History
    first: tuple[Piece, ...] = ()   # the split's first message, fixed when the session starts
    sent: dict[str, str] = attrs.field(factory=dict)  # section -> the digest the model last saw
    turns: int = 0

    @classmethod
    def new(cls, number: int) -> _Conversation:
        return cls(number, History(digest("conversation", str(number))))


@attrs.define
class _Last:
    """What the request before this one sent and left cached."""

    namespace: tuple[str, ...]
    sent: Sent
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

    def __init__(self, script: SessionScript, source: PromptSource, dynamic: str | None,
                 breakpoints: int, compiler: Compiler, marker_limit: int | None) -> None:
        self.script, self.source = script, source
        self.dynamic, self.breakpoints = dynamic, breakpoints
        self.compiler, self.marker_limit = compiler, marker_limit
        self.states: dict[tuple[str, ...], CacheState] = {}
        self.results: list[RequestResult] = []
        self.prices: dict[tuple[str, str], Prices | None] = {}
        self.rules: dict[str, str] = {}
        self.targets: dict[tuple[str, str], tuple[str, bool]] = {}
        self.provider, self.model = script.provider, script.model
        self.context: dict[str, Any] = dict(script.context)
        self.context.pop("provider", None)  # the script's provider and model decide
        if "date" not in self.context:
            self.context["date"] = datetime.date.today().isoformat()
        self.turn_tokens, self.output_tokens = script.turn_tokens, script.output_tokens
        self.gap = script.turn_seconds / 60
        self.conversation = _Conversation.new(1)
        self.last: _Last | None = None
        self.now = 0.0
        self.placement = ""

    def run(self) -> SessionReport:
        for step in self.script.steps:
            self._apply(step)
            for i in range(step.repeat):
                if self.last is not None:
                    self.now += step.pause if i == 0 and step.pause is not None else self.gap
                self._request(step, i == 0)
        return SessionReport(
            script=self.script, dynamic=self.placement or self.dynamic or "",
            breakpoints=self.breakpoints, requests=tuple(self.results),
            totals=totals_of(self.results),
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
        if step.turn_seconds is not None:
            self.gap = step.turn_seconds / 60
        if step.new_session and self.conversation.turns:
            self.conversation = _Conversation.new(self.conversation.number + 1)

    # --- one request ---------------------------------------------------------------------------

    def _request(self, step: Step, first_of_step: bool) -> None:
        info = ProviderInfo(self.provider, self.model)
        api = _api_of(self.provider, self.model, self.script.source)
        fmt, caches = self._target(info)
        wire = self.source.wire(info, self.context, fmt, self.dynamic, self.breakpoints)
        self.placement = self.placement or wire.placement
        before = len(self.conversation.history.pieces)  # what earlier requests sent of it
        sent = self._sent(wire)
        namespace = (api, self.provider, self.model) + ((wire.cache_key or "",)
                                                         if api == "openai" else ())
        usage, markers = self._bill(info, api, namespace, sent, caches)
        brk = self._break(info, namespace, sent, usage, wire, step, first_of_step)
        lost = _rewritten_static(sent, brk, usage.cache_read)
        rewritten = _rewritten(sent, usage, before)
        prices = self._prices(info)
        prompt, conversation = _parts(sent, usage, prices)
        out_tokens = self.output_tokens
        self.results.append(RequestResult(
            index=len(self.results) + 1, session=self.conversation.number,
            turn=self.conversation.turns, step=step.index, label=step.label if first_of_step
            else "", provider=self.provider, model=self.model, variant=wire.variant,
            input=usage.cache_read + usage.cache_write + usage.uncached,
            cache_read=usage.cache_read, cache_write=usage.cache_write,
            uncached=usage.uncached, turn_tokens=self.turn_tokens, output_tokens=out_tokens,
            cost=_cost(usage, out_tokens, prices), brk=brk, markers=markers,
            notes=usage.notes + ((lost,) if lost else ()), rejected=usage.rejected,
            prompt=prompt, conversation=conversation, write_long=usage.write_long,
            rewritten=rewritten, rewrite_cause=_why(brk, usage) if rewritten else ""))
        self.last = _Last(namespace, sent, usage.cached_pieces if not usage.rejected else
                          (self.last.cached if self.last else 0), dict(self.context),
                          self.model, wire.variant, self.now)

    def _target(self, info: ProviderInfo) -> tuple[str, bool]:
        """The format the request is sent in (the provider's own API's: Converse on Bedrock,
        Anthropic's for Claude on Vertex AI), and whether the model data says the model is
        cached at all (on Bedrock a client marks nothing for a model that is not: Bedrock
        would refuse the request)."""
        key = (info.provider, info.model)
        found = self.targets.get(key)
        if found is None:
            resolved = info.resolved()
            found = self.targets[key] = (provider_format(resolved).id,
                                         resolved.prompt_caching is not False)
        return found

    def _bill(self, info: ProviderInfo, api: str, namespace: tuple[str, ...], sent: Sent,
              caches: bool = True) -> tuple[Usage, int]:
        """The request billed under its provider's rules, and the cache markers it carries
        (Anthropic, Bedrock: promptc's and the client's)."""
        client = sent.last_turns(self.script.client_markers) if api in MARKED and caches \
            else []
        head = [i for i, p in enumerate(sent.head) if p.marker]
        marks = sorted(set(head) | set(client))
        state = self.states.setdefault(namespace, CacheState())
        encoding = encoding_for(info)[0]
        rules = rules_of(api, info, lambda text: self.compiler.tokens.count(text, encoding),
                         self.marker_limit, self.script.retention)
        self.rules[api] = rules.describe()
        if isinstance(rules, AnthropicRules):  # the script's `ttl` is the prompt's markers'
            prompt_ttl = LIFETIMES.get(self.script.ttl, DEFAULT_TTL)
            ttls = {**{m: prompt_ttl for m in head}, **{m: DEFAULT_TTL for m in client}}
            return rules.bill(sent, marks, state, self.now, ttls), len(marks)
        return rules.bill(sent, marks, state, self.now), 0

    def _sent(self, wire: PromptWire) -> Sent:
        """The whole input: prompt, the first message, the conversation so far."""
        c = self.conversation
        c.turns += 1
        if wire.message:
            now = {p.where: p.digest for p in wire.message}
            if not c.first:
                c.first = wire.message
            elif now != c.sent:  # what changed goes in a message of its own, one block
                whole = set(now) != set(c.sent)
                sent = [p for p in wire.message if whole or c.sent[p.where] != p.digest]
                c.history.extend(attrs.evolve(p, kind="update", where=f"update: {p.where}",
                                              marker=False, block_end=p is sent[-1])
                                 for p in sent)
            c.sent = now
        c.history.append(Piece("turn", f"turn {c.turns}", "", self.turn_tokens,
                               digest("turn", str(c.number), str(c.turns))))
        return Sent([*wire.head, *c.first], c.history)

    def _prices(self, info: ProviderInfo) -> Prices | None:
        key = (info.provider, info.model)
        if key not in self.prices:
            self.prices[key] = model_prices(info)
        return self.prices[key]

    # --- where the prefix broke, and why ------------------------------------------------------

    def _break(self, info: ProviderInfo, namespace: tuple[str, ...], sent: Sent, usage: Usage,
               wire: PromptWire, step: Step, first_of_step: bool) -> Break | None:
        last = self.last
        if last is None:
            return None
        if namespace[:3] != last.namespace[:3]:
            return self._model_break(last, wire)
        d = _first_difference(sent, last.sent)
        if d < last.cached and d < len(sent) and sent[d].kind != "turn":
            new_session = step.new_session and first_of_step
            piece, gone = _broken_piece(sent, last.sent, d)
            return Break(piece.where, piece.cache,
                         self._cause(info, piece, last, new_session, gone),
                         "new_session" if new_session else "change")
        if usage.missed and not usage.rejected:  # nothing changed, and less was read
            return self._lost(sent, usage, last)
        return None  # what was cached is all still there (or only the conversation is new)

    def _lost(self, sent: Sent, usage: Usage, last: _Last) -> Break:
        """A prefix still sent as before that was not read: Anthropic's lookback, or expiry."""
        piece = sent[min(usage.read_pieces, len(sent) - 1)]
        where = piece.where if piece.kind != "turn" else "conversation"
        if usage.miss_kind == "lookback":
            return Break(where, piece.cache, usage.missed, "lookback")
        return Break(where, piece.cache, f"{self.now - last.time:g} minutes since the last "
                     f"request: {usage.missed}", "expired")

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


def _first_difference(sent: Sent, before: Sent) -> int:
    """The index of the first piece that differs from the request before's (the conversation
    is compared by identity: one History only grows)."""
    d, limit = 0, min(len(sent.head), len(before.head))
    while d < limit and sent.head[d].digest == before.head[d].digest:
        d += 1
    if d < len(sent.head) or d < len(before.head):
        return d
    if sent.history is before.history:
        return d + min(sent.length, before.length)
    return d


def _broken_piece(sent: Sent, before: Sent, d: int) -> tuple[Piece, bool]:
    """Which piece the prefix broke at, and whether it is one that went: at the first
    difference, a piece of the request before that this request no longer sends (the session
    tools of a user without MCP servers, a section that went) is the break, not the unchanged
    piece that now follows in its place."""
    if d < len(before.head):
        old = before.head[d]
        if (old.kind, old.where) not in {(p.kind, p.where) for p in sent.head}:
            return old, True
    return sent[d], False


def _rewritten(sent: Sent, usage: Usage, before: int) -> int:
    """Conversation tokens earlier requests sent (its first `before` history pieces) that
    this one did not read from the cache."""
    if not before or usage.rejected:
        return 0
    h = len(sent.head)
    read = usage.read_pieces
    if read >= h + before:
        return 0
    start = max(read, h)
    return sent.cum(h + before - 1) - sent.cum(start - 1)


def _why(brk: Break | None, usage: Usage) -> str:
    if brk is not None:
        return f"{brk.where}: {brk.cause}"
    return usage.missed or (usage.notes[0] if usage.notes else "nothing was read")


def _rewritten_static(sent: Sent, brk: Break | None, read: int) -> str | None:
    """A note when static-class text after a break is not read: the tools come first on the
    wire (tools → system → messages), so a change in a session's tools costs the static
    system prompt after them."""
    if brk is None or brk.static or brk.kind in ("model", "expired", "lookback"):
        return None
    seen, lost = 0, 0
    for piece in sent.head:
        if seen >= read and piece.kind not in ("tools", "turn") and piece.cache == "static":
            lost += piece.tokens
        seen += piece.tokens
    if not lost:
        return None
    return (f"{lost:,} tokens of the static class after {brk.where} are not read from the "
            "cache: the tools come first on the wire (tools → system → messages)")


def _parts(sent: Sent, usage: Usage, prices: Prices | None) -> tuple[Part, Part]:
    """The bill split between the prompt's pieces and the conversation's turns: the cache
    read covers the input's first tokens, the write the ones after it, the rest is uncached
    (a rejected request is billed nothing)."""
    total = sent.total
    turns = [sent.turn_tokens(len(sent) - 1), 0, 0, 0]
    prompt = [total - turns[0], 0, 0, 0]
    if not usage.rejected:
        read_end, write_end = usage.cache_read, usage.cache_read + usage.cache_write
        for i, (a, b) in enumerate(((0, read_end), (read_end, write_end), (write_end, total))):
            in_turns = _turns_between(sent, a, b)
            turns[i + 1], prompt[i + 1] = in_turns, (b - a) - in_turns
    # the hour-long writes come first (the prompt's markers ask for them)
    long_turns = _turns_between(sent, usage.cache_read, usage.cache_read + usage.write_long)
    return _part(prompt, prices, usage.write_long - long_turns), \
        _part(turns, prices, long_turns)


def _turns_between(sent: Sent, start: int, end: int) -> int:
    """Tokens of conversation turns between token offsets `start` and `end`."""
    return _turns_before(sent, end) - _turns_before(sent, start)


def _turns_before(sent: Sent, offset: int) -> int:
    """Tokens of conversation turns before token offset `offset`."""
    if offset <= 0:
        return 0
    i = sent.piece_at(offset)
    if i >= len(sent):
        return sent.turn_tokens(len(sent) - 1)
    inside = offset - sent.cum(i - 1)  # tokens of piece i before the offset
    return sent.turn_tokens(i - 1) + (inside if sent[i].kind == "turn" else 0)


def _part(sums: Sequence[int], prices: Prices | None, long: int = 0) -> Part:
    tokens, read, write, uncached = sums
    return Part(tokens, read, write, uncached,
                _cost(Usage(read, write, uncached, 0, write_long=long), 0, prices))


def _list_changes(changes: Mapping[str, str]) -> str:
    """`mode act → plan, date …`; past two fields, just their names."""
    if not changes:
        return "its text changed"
    if len(changes) > 2:
        return ", ".join(changes) + " changed"
    return ", ".join(f"{k} {v}" for k, v in changes.items())


LONG_WRITE = 2.0  # Anthropic: hour-long writes bill at twice the input price


def _cost(usage: Usage, output: int, prices: Prices | None) -> float | None:
    """USD for one request: cached reads, cache writes (Anthropic's hour-long ones at twice
    the input price), other input and output at the model's prices (a missing cache price
    bills at the input price; no input price: no cost)."""
    if prices is None or prices.input is None:
        return None
    base = prices.input
    short = usage.cache_write - usage.write_long
    total = (usage.cache_read * (prices.cache_read if prices.cache_read is not None else base)
             + short * (prices.cache_write if prices.cache_write is not None else base)
             + usage.write_long * base * LONG_WRITE
             + usage.uncached * base + output * (prices.output or 0.0))
    return total / 1_000_000


def replay(script: SessionScript | str | Path, *, compiler: Compiler | None = None,
           dynamic: str | None = None, breakpoints: int | None = None,
           source: PromptSource | None = None,
           marker_limit: int | None = MAX_MARKERS, floor: bool = False) -> SessionReport:
    """Replay a session script (a path or a loaded `SessionScript`) and report what each request
    reads from and writes to the provider's cache, what it sends uncached, what it costs, and
    where the cached prefix broke and why. `dynamic` and `breakpoints` override the script's
    (`dynamic` None: the script's, else the compiler's default placement); `compiler` defaults
    to `Compiler.default()`; `source` builds the prompts (default: promptc's own, through that
    compiler). `marker_limit=None` lifts Anthropic's limit of 4 markers, for a what-if with a
    source that marks more (benchmarks/session_costs.py's bound). `floor=True` also replays the
    script with the prompt never changing (`UnchangingSource`), whose conversation cost is the
    report's `conversation_floor`."""
    loaded = script if isinstance(script, SessionScript) else load_script(script)
    compiler = compiler or Compiler.default()
    placement = dynamic or loaded.dynamic
    if placement not in (None, "system", "message"):
        raise ValueError(f"dynamic must be 'system' or 'message', got {placement!r}")
    marks = loaded.breakpoints if breakpoints is None else breakpoints
    if not 0 <= marks <= 4:
        raise ValueError(f"breakpoints must be 0..4, got {marks}")
    report = _Replay(loaded, source or PromptcSource(compiler, loaded.ttl), placement, marks,
                     compiler, marker_limit).run()
    if not floor:
        return report
    context = {"date": datetime.date.today().isoformat(), **loaded.context}
    unchanging = UnchangingSource(compiler, context, loaded.ttl)
    base = _Replay(loaded, unchanging, placement, marks, compiler, marker_limit).run()
    return attrs.evolve(report, floor=base.totals)
