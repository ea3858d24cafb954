"""The records a build produces: diagnostics, trace entries, sections, blocks, the prompt."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import attrs

from ._errors import PromptcError, StrictModeError

if TYPE_CHECKING:
    from ._tokens import TokenReport
    from ._toolset import ToolSet
    from ._variant import Variant

__all__ = ["Diagnostic", "Reporter", "TraceEntry", "Resolution", "Section", "Block", "Dropped",
           "CompiledPrompt", "CACHE_CLASSES"]

CACHE_CLASSES = ("static", "session", "request")
Level = Literal["error", "warning", "info"]


@attrs.frozen
class Diagnostic:
    """Something a build or load noticed. `source` names the component, plugin, file or input."""

    level: Level
    code: str
    message: str
    source: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"level": self.level, "code": self.code, "message": self.message,
                "source": self.source}


class Reporter:
    """Collects diagnostics; in strict mode a warning or error raises the given error class."""

    __slots__ = ("strict", "items")

    def __init__(self, strict: bool, items: list[Diagnostic] | None = None) -> None:
        self.strict = strict
        self.items: list[Diagnostic] = items if items is not None else []

    def __call__(self, level: Level, code: str, message: str, source: str = "",
                 error: type[PromptcError] = StrictModeError) -> None:
        diagnostic = Diagnostic(level, code, message, source)
        if self.strict and level != "info":
            err = error(message, source=source or None)
            err.diagnostic = diagnostic
            raise err
        self.items.append(diagnostic)

    def extend(self, diagnostics: tuple[Diagnostic, ...] | list[Diagnostic],
               errors: Mapping[str, type[PromptcError]] | None = None) -> None:
        for d in diagnostics:
            err = (errors or {}).get(d.code, StrictModeError)
            self(d.level, d.code, d.message, d.source, err)


@attrs.frozen
class TraceEntry:
    """One variant tried during resolution."""

    variant: str
    priority: int
    matched: bool | None  # None: the matcher raised
    reason: str
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"variant": self.variant, "priority": self.priority, "matched": self.matched,
                "raised": self.matched is None, "reason": self.reason, "source": self.source}


@attrs.frozen
class Resolution:
    variant: Variant
    trace: tuple[TraceEntry, ...]
    by: Literal["matcher", "fallback", "id"]
    diagnostics: tuple[Diagnostic, ...] = ()


@attrs.frozen
class Section:
    """One component's output in the final prompt."""

    id: str
    text: str
    cache: str
    origin: str
    priority: int = 50
    required: bool = False
    tokens: int | None = None
    form: Literal["full", "short"] = "full"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "chars": len(self.text), "tokens": self.tokens,
                "cache": self.cache, "origin": self.origin, "priority": self.priority,
                "required": self.required, "form": self.form}


@attrs.frozen
class Block:
    """A run of the prompt with one cache class; blocks in order rebuild the text exactly."""

    cache: str
    text: str
    sections: tuple[str, ...]


@attrs.frozen
class Dropped:
    """A section removed (or shortened) to meet a token budget."""

    id: str
    priority: int
    tokens: int
    reason: str
    action: Literal["dropped", "shortened"] = "dropped"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "priority": self.priority, "tokens": self.tokens,
                "reason": self.reason, "action": self.action}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@attrs.frozen(weakref_slot=False)
class CompiledPrompt:
    """The result of one build: plain data, plus lazily computed views (blocks, fingerprints)."""

    text: str
    variant: Variant
    provider: Any
    sections: tuple[Section, ...]
    spans: tuple[tuple[int, int], ...]  # (start, end) of each section's text in `text`
    tools: ToolSet
    diagnostics: tuple[Diagnostic, ...]
    trace: tuple[TraceEntry, ...] = ()
    placeholders: Mapping[str, str] = attrs.field(factory=dict, eq=False)
    dropped: tuple[Dropped, ...] = ()
    tokens: TokenReport | None = None
    budget: int | None = None
    _memo: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False, alias="_memo")

    def section(self, section_id: str) -> Section | None:
        for s in self.sections:
            if s.id == section_id:
                return s
        return None

    @property
    def blocks(self) -> tuple[Block, ...]:
        """The text split where the cache class rises (static → session → request).

        A section that comes after a more volatile one is cached with it: the class of a block is
        the most volatile class seen so far. Each boundary sits at the end of the last section of
        the run, so literal glue belongs to the block after it and the static prefix does not
        depend on what follows.
        """
        memo = self._memo.get("blocks")
        if memo is None:
            memo = self._memo["blocks"] = _split_blocks(self)
        return memo

    @property
    def request_text(self) -> str:
        """The request-class tail (date, notices…), for clients that send it with the latest
        user message instead (see the adapters' `include_request=False`), so that changing it
        does not invalidate the cached conversation behind the system prompt."""
        blocks = self.blocks
        return blocks[-1].text if blocks and blocks[-1].cache == "request" else ""

    @property
    def static_prefix(self) -> str:
        blocks = self.blocks
        return blocks[0].text if blocks and blocks[0].cache == "static" else ""

    @property
    def fingerprints(self) -> dict[str, str]:
        memo = self._memo.get("fingerprints")
        if memo is None:
            memo = self._memo["fingerprints"] = {"static": _sha(self.static_prefix),
                                                 "full": _sha(self.text)}
        return memo

    # client adapters live in _adapters; thin methods keep them discoverable on the result
    def to_anthropic(self, breakpoints: int = 2, **kwargs: Any) -> dict[str, Any]:
        from ._adapters import to_anthropic
        return to_anthropic(self, breakpoints=breakpoints, **kwargs)

    def to_openai(self, api: Literal["chat", "responses"] = "chat", **kwargs: Any
                  ) -> dict[str, Any]:
        from ._adapters import to_openai
        return to_openai(self, api=api, **kwargs)

    def to_gemini(self, **kwargs: Any) -> dict[str, Any]:
        from ._adapters import to_gemini
        return to_gemini(self, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        from ._report import prompt_to_dict
        return prompt_to_dict(self)


_RANK = {"static": 0, "session": 1, "request": 2}


def _split_blocks(prompt: CompiledPrompt) -> tuple[Block, ...]:
    text = prompt.text
    blocks: list[Block] = []
    start = 0
    current = "static"
    members: list[str] = []
    last_end = 0
    for section, (s_start, s_end) in zip(prompt.sections, prompt.spans):
        cls = section.cache if _RANK[section.cache] > _RANK[current] else current
        if cls != current:
            if members:
                blocks.append(Block(current, text[start:last_end], tuple(members)))
                start = last_end
            current = cls
            members = []
        members.append(section.id)
        last_end = s_end
    blocks.append(Block(current, text[start:], tuple(members)))
    return tuple(b for b in blocks if b.text or b.sections)
