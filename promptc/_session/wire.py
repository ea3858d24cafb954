"""What one request sends, as a provider's cache sees it: a sequence of pieces.

A piece is a run of the input that is the same or not as a whole: the built-in tool block, the
tools a session brings, each section of the system prompt, each section of the dynamic first
message, each conversation turn. Pieces carry their token count, a digest of their content and,
for Anthropic, whether a `cache_control` marker ends them and whether they end a content block.
Everything is read from the payloads promptc's adapters build (`to_anthropic`, `to_openai`,
`to_gemini`), so the simulator measures what a client would send.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Literal, Protocol

import attrs

__all__ = ["Piece", "PromptWire", "digest", "prompt_wire", "text_pieces", "Counted",
           "PieceKind", "common_prefix"]

PieceKind = Literal["tools", "system", "message", "update", "turn"]


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


@attrs.frozen
class PromptWire:
    """A request's prompt part (tools, system, dynamic first message), before the conversation."""

    head: tuple[Piece, ...]
    message: tuple[Piece, ...] = ()
    cache_key: str | None = None   # OpenAI's prompt_cache_key
    variant: str = ""


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


def _block_ends(blocks: Sequence[dict[str, Any]]) -> tuple[frozenset[int], frozenset[int]]:
    """Where each content block ends in their joined text, and where a marked one does."""
    ends, marked, at = set(), set(), 0
    for block in blocks:
        at += len(block["text"])
        ends.add(at)
        if "cache_control" in block:
            marked.add(at)
    return frozenset(ends), frozenset(marked)


def _anthropic(prompt: Any, breakpoints: int) -> tuple[list[Piece], list[Piece]]:
    """(tools and system, the first message) with the payload's blocks and markers."""
    payload = prompt.to_anthropic(breakpoints=breakpoints)
    tools = payload.get("tools", [])
    stable = prompt.tools.stable
    marked_stable = 0 < stable <= len(tools) and "cache_control" in tools[stable - 1]
    pieces = _tool_pieces(prompt, "anthropic", marked_stable)
    first = payload.get("messages", [{"content": []}])[0]["content"]
    return (pieces + _system(prompt, *_block_ends(payload["system"])),
            _message(prompt, *_block_ends(first)))


def _system(prompt: Any, ends: frozenset[int] = frozenset(),
            marked: frozenset[int] = frozenset()) -> list[Piece]:
    sections = prompt.sections
    if not prompt.text:
        return []
    if not sections:
        return [Piece("system", "system", "", prompt.count_tokens(prompt.text),
                      digest("system", prompt.text), prompt.text, bool(marked))]
    return text_pieces(prompt.text, sections, prompt.spans, prompt, "system",
                       _rank_classes(sections), ends, marked)


def _message(prompt: Any, ends: frozenset[int] = frozenset(),
             marked: frozenset[int] = frozenset()) -> list[Piece]:
    if not prompt.message:
        return []
    return text_pieces(prompt.message, prompt.message_sections, prompt.message_spans, prompt,
                       "message", _rank_classes(prompt.message_sections), ends, marked)


def prompt_wire(prompt: Any, api: str, breakpoints: int = 2) -> PromptWire:
    """The prompt as `api` (anthropic, openai or gemini) receives it, markers included.

    Tools come first for every provider: Anthropic documents the order tools → system →
    messages; OpenAI and Gemini do not say where tools sit in the cached prefix, and putting
    them first is the cautious assumption (a tool change then breaks everything after it)."""
    key = None
    if api == "anthropic":
        head, message = _anthropic(prompt, breakpoints)
    else:
        if api == "openai":
            key = prompt.to_openai()["prompt_cache_key"]
        head, message = _tool_pieces(prompt, api, False) + _system(prompt), _message(prompt)
    return PromptWire(tuple(head), tuple(message), key, prompt.variant.id)
