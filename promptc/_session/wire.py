"""What one request sends, as a provider's cache sees it: a sequence of pieces.

A piece is a run of the input that is the same or not as a whole: the built-in tool block, the
tools a session brings, each section of the system prompt, each section of the dynamic first
message, each conversation turn. Pieces carry their token count, a digest of their content and,
for a format that marks its cache (one whose table entry has a `marker`: Anthropic's
`cache_control`…), whether a marker ends them and whether they end a content block.
Everything is read from the payload promptc's adapter builds for the request's format
(promptc/_emit/payloads.py, `PAYLOADS`), so the simulator measures what a client would send.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Literal, Protocol, cast, overload

import attrs

from .._emit.payloads import PAYLOADS, PayloadOptions
from .._model.formats import Format, format_named

__all__ = ["Piece", "PromptWire", "digest", "prompt_wire", "text_pieces", "Counted",
           "PieceKind", "common_prefix", "History", "Sent", "DEFAULT_TTL"]

PieceKind = Literal["tools", "system", "message", "update", "turn"]
Lifetime = Literal["5m", "1h"] | None  # what a marker asks for (the script's `ttl`)


def digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()[:24]


@attrs.frozen
class Piece:
    """A run of the input, identical from one request to the next or not as a whole."""

    kind: PieceKind
    where: str          # "tools", a section id, "turn 3"
    cache: str          # its cache class (static, session, request; "" when unclassified)
    tokens: int
    digest: str
    text: str = attrs.field(default="", repr=False)  # for partial matches ("" for turns)
    marker: bool = False     # an Anthropic cache_control marker ends it
    block_end: bool = True   # it ends a content block (Anthropic's lookback counts blocks)
    ttl: float = 5.0         # minutes the entry its marker writes lives (Anthropic: 5 or 60)
    run: str = ""            # "tool_use"/"tool_result": a run of such blocks is one position


@attrs.frozen
class PromptWire:
    """A request's prompt part (tools, system, dynamic first message), before the conversation."""

    head: tuple[Piece, ...]
    message: tuple[Piece, ...] = ()
    cache_key: str | None = None   # OpenAI's prompt_cache_key
    variant: str = ""
    placement: str = ""            # "system" or "message" (the prompt's `dynamic`)


DEFAULT_TTL = 5.0


class History:
    """A conversation's own pieces as the client keeps them (turns, details sent later):
    append-only, with running sums and digests kept as it grows, so that a request's view of
    it (`Sent`) costs nothing per earlier turn and a replay stays linear in requests."""

    def __init__(self, ident: str = "") -> None:
        self.ident = ident
        self.pieces: list[Piece] = []
        self.tokens: list[int] = []       # cumulative tokens, pieces[0..j]
        self.turn_tokens: list[int] = []  # cumulative tokens of the turns alone
        self.digests: list[str] = []      # digest of pieces[0..j]
        self.turns: list[int] = []        # the indexes of the turns

    def append(self, piece: Piece) -> None:
        before = self.tokens[-1] if self.tokens else 0
        turns = self.turn_tokens[-1] if self.turn_tokens else 0
        if piece.kind == "turn":
            self.turns.append(len(self.pieces))
            turns += piece.tokens
        self.digests.append(digest(self.digests[-1] if self.digests else self.ident,
                                   piece.digest))
        self.pieces.append(piece)
        self.tokens.append(before + piece.tokens)
        self.turn_tokens.append(turns)

    def extend(self, pieces: Iterable[Piece]) -> None:
        for piece in pieces:
            self.append(piece)


class Sent(Sequence[Piece]):
    """One request's input as its provider reads it: the prompt's pieces (`head`: tools, system,
    first message) and then the first `length` pieces of the conversation, which are read
    from its `History` in place, never copied. Gives each piece, the tokens up to it, and the
    digest of the prefix ending with it (the key a cache entry for that prefix has)."""

    def __init__(self, head: Sequence[Piece], history: History | None = None,
                 length: int | None = None) -> None:
        self.head = list(head)
        self.history = history if history is not None else History()
        self.length = len(self.history.pieces) if length is None else length
        self._head_tokens: list[int] = []
        self._head_keys: list[str] = []
        total, key = 0, ""
        for piece in self.head:
            total += piece.tokens
            key = digest(key, piece.digest)
            self._head_tokens.append(total)
            self._head_keys.append(key)

    def __len__(self) -> int:
        return len(self.head) + self.length

    @overload
    def __getitem__(self, i: int) -> Piece: ...

    @overload
    def __getitem__(self, i: slice) -> list[Piece]: ...

    def __getitem__(self, i: int | slice) -> Piece | list[Piece]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        h = len(self.head)
        return self.head[i] if i < h else self.history.pieces[i - h]

    def __iter__(self) -> Iterator[Piece]:
        yield from self.head
        yield from self.history.pieces[:self.length]

    @property
    def head_tokens(self) -> int:
        return self._head_tokens[-1] if self._head_tokens else 0

    @property
    def total(self) -> int:
        return self.cum(len(self) - 1) if len(self) else 0

    def cum(self, i: int) -> int:
        """Tokens of the pieces up to and including piece i (0 for i < 0)."""
        if i < 0:
            return 0
        h = len(self.head)
        if i < h:
            return self._head_tokens[i]
        return self.head_tokens + self.history.tokens[i - h]

    def key(self, i: int) -> str:
        """The digest of the prefix ending with piece i."""
        h = len(self.head)
        if i < h:
            return self._head_keys[i]
        return digest(self._head_keys[-1] if h else "", "history",
                      self.history.digests[i - h])

    def piece_at(self, tokens: int) -> int:
        """The index of the piece the token at offset `tokens` falls in (len: past the end)."""
        h = len(self.head)
        if tokens < self.head_tokens:
            return bisect.bisect_right(self._head_tokens, tokens)
        j = bisect.bisect_right(self.history.tokens, tokens - self.head_tokens, 0, self.length)
        return h + j

    def turn_tokens(self, i: int) -> int:
        """Tokens of the conversation's turns among the pieces up to and including piece i."""
        h = len(self.head)
        head = sum(p.tokens for p in self.head[:min(i + 1, h)] if p.kind == "turn")
        return head + (self.history.turn_tokens[i - h] if i >= h else 0)

    def last_turns(self, n: int) -> list[int]:
        """The indexes of the last `n` turns."""
        if n <= 0:
            return []
        h = len(self.head)
        turns = self.history.turns
        end = bisect.bisect_left(turns, self.length)
        found = [h + t for t in turns[max(0, end - n):end]]
        if len(found) < n:
            head = [i for i, p in enumerate(self.head) if p.kind == "turn"]
            found = head[len(head) - (n - len(found)):] + found if head else found
        return found


class Counted(Protocol):
    """What slicing a prompt needs (promptc's CompiledPrompt has it)."""

    def count_tokens(self, text: str) -> int: ...


class _Sectioned(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def cache(self) -> str: ...


def text_pieces(text: str, sections: Sequence[_Sectioned], spans: Sequence[tuple[int, int]],
                counter: Counted, kind: PieceKind, classes: Sequence[str],
                block_ends: frozenset[int] = frozenset(), marked: frozenset[int] = frozenset()
                ) -> list[Piece]:
    """`text` cut at the end of each section (the last piece runs to the end of the text), one
    piece per section; `classes[i]` is the cache class piece i is cached with, `block_ends` and
    `marked` the offsets where a content block, or a marked one, ends."""
    pieces: list[Piece] = []
    start = 0
    for i, (section, (_a, end)) in enumerate(zip(sections, spans)):
        stop = len(text) if i == len(sections) - 1 else end
        chunk = text[start:stop]
        pieces.append(Piece(kind, section.id, classes[i], counter.count_tokens(chunk),
                            digest(kind, chunk), chunk, stop in marked,
                            stop in block_ends or stop == len(text)))
        start = stop
    return pieces


def _rank_classes(sections: Sequence[_Sectioned]) -> list[str]:
    """The class each section is cached with: the most volatile seen so far (see blocks.py)."""
    order = {"static": 0, "session": 1, "request": 2}
    out, worst = [], "static"
    for s in sections:
        if order.get(s.cache, 2) > order[worst]:
            worst = s.cache
        out.append(worst)
    return out


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of `a` and `b` (a binary search of slice
    comparisons, which run in C)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _tool_pieces(prompt: Any, fmt: str, marked_stable: bool) -> list[Piece]:
    tools = prompt.tools
    if tools.mode != "native" or not tools.names:
        return []
    stable_json = tools.json_text(fmt, tools.stable)
    full_json = tools.json_text(fmt)
    stable_tokens = prompt.count_tokens(stable_json) if tools.stable else 0
    pieces = []
    if tools.stable:
        pieces.append(Piece("tools", "tools", "static", stable_tokens,
                            digest("tools", stable_json), stable_json, marked_stable))
    if len(tools.names) > tools.stable:
        extra = full_json[common_prefix(stable_json, full_json):]
        pieces.append(Piece("tools", "session tools", "session",
                            max(prompt.count_tokens(full_json) - stable_tokens, 0),
                            digest("session tools", full_json), extra))
    return pieces


def _block_ends(blocks: Sequence[tuple[Any, bool]]) -> tuple[frozenset[int], frozenset[int]]:
    """Where each content block ends in their joined text, and where a marked one does."""
    ends, marked, at = set(), set(), 0
    for block, is_marked in blocks:
        at += len(block["text"])
        ends.add(at)
        if is_marked:
            marked.add(at)
    return frozenset(ends), frozenset(marked)


LIFETIMES = {"5m": 5.0, "1h": 60.0}


def _dig(payload: Any, path: Sequence[str]) -> Any:
    for key in path:
        payload = payload.get(key, {}) if isinstance(payload, dict) else {}
    return payload


def _marked(prompt: Any, fmt: Format, payload: dict[str, Any], ttl: str | None = None
            ) -> tuple[list[Piece], list[Piece]]:
    """(tools and system, the first message) with the payload's blocks and markers, for a
    format that marks its cache (its table entry says how)."""
    marker = fmt.marker
    assert marker is not None
    tools = marker.read(_dig(payload, fmt.tools_at) or [])
    stable = prompt.tools.stable
    marked_stable = 0 < stable <= len(tools) and tools[stable - 1][1]
    pieces = _tool_pieces(prompt, fmt.id, marked_stable)
    opening = payload.get(fmt.conversation, [{"content": []}])[0]["content"] \
        if prompt.message else []
    head = pieces + _system(prompt, *_block_ends(marker.read(payload[fmt.system])))
    message = _message(prompt, *_block_ends(marker.read(opening)))
    minutes = LIFETIMES.get(ttl or "5m", DEFAULT_TTL)
    if minutes != DEFAULT_TTL:
        head = [attrs.evolve(p, ttl=minutes) if p.marker else p for p in head]
        message = [attrs.evolve(p, ttl=minutes) if p.marker else p for p in message]
    return head, message


def _system(prompt: Any, ends: frozenset[int] = frozenset(),
            marked: frozenset[int] = frozenset()) -> list[Piece]:
    text, sections = prompt.system, prompt.system_sections
    if not text:
        return []
    if not sections:
        return [Piece("system", "system", "", prompt.count_tokens(text),
                      digest("system", text), text, bool(marked))]
    return text_pieces(text, sections, prompt.system_spans, prompt, "system",
                       _rank_classes(sections), ends, marked)


def _message(prompt: Any, ends: frozenset[int] = frozenset(),
             marked: frozenset[int] = frozenset()) -> list[Piece]:
    if not prompt.message:
        return []
    return text_pieces(prompt.message, prompt.message_sections, prompt.message_spans, prompt,
                       "message", _rank_classes(prompt.message_sections), ends, marked)


def prompt_wire(prompt: Any, fmt: str, breakpoints: int = 2, ttl: str | None = None
                ) -> PromptWire:
    """The prompt as a request in format `fmt` (a format's id: anthropic, openai, gemini…)
    delivers it, markers included (`ttl`: the lifetime the markers ask for, "5m"
    or "1h"), read from the payload promptc's adapter builds for it.

    Tools come first for every provider: the marking formats document the order tools →
    system → messages; OpenAI and Gemini do not say where tools sit in the cached prefix, and
    putting them first is the cautious assumption (a tool change then breaks everything after
    it)."""
    wire = format_named(fmt)
    options = PayloadOptions(breakpoints=breakpoints, ttl=cast(Lifetime, ttl))
    payload = PAYLOADS[wire.id](prompt, options, None)
    if wire.marker is not None:
        head, message = _marked(prompt, wire, payload, ttl)
    else:
        head, message = _tool_pieces(prompt, wire.id, False) + _system(prompt), _message(prompt)
    return PromptWire(tuple(head), tuple(message), payload.get("prompt_cache_key"),
                      prompt.variant.id, prompt.dynamic)
