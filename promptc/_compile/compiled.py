"""The records a build produces: sections, dropped sections, and the compiled prompt.

Everything in a `CompiledPrompt` is plain, immutable data a test can assert on; the views that
cost something (cache blocks, fingerprints, provider payloads) are computed on first use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs

from .._emit.blocks import Block, split_blocks
from .._emit.details import update_text
from .._emit.toolset import ToolSet
from .._load.registry import TraceEntry
from .._model.cache import CacheClass
from .._model.diagnostics import Diagnostic
from .._model.provider import ProviderInfo
from .._model.variant import Variant
from .._text.tokens import TokenCounter, TokenReport

__all__ = ["Section", "Dropped", "CompiledPrompt", "prompt_to_dict"]


@attrs.frozen
class Section:
    """One component's output in the final prompt."""

    id: str
    text: str
    cache: CacheClass
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
    import hashlib
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@attrs.frozen(weakref_slot=False)
class CompiledPrompt:
    """The result of one build: plain data, plus lazily computed views (blocks, fingerprints)."""

    text: str
    variant: Variant
    provider: ProviderInfo
    sections: tuple[Section, ...]
    spans: tuple[tuple[int, int], ...]  # (start, end) of each section's text in `text`
    tools: ToolSet
    diagnostics: tuple[Diagnostic, ...]
    trace: tuple[TraceEntry, ...] = ()
    placeholders: Mapping[str, str] = attrs.field(factory=dict, eq=False)
    dropped: tuple[Dropped, ...] = ()
    tokens: TokenReport | None = None
    budget: int | None = None
    # placement (see dynamic.py): "message" (the split, the default) sends the static block
    # and a note as the system prompt (`system`) and the session- and request-class text as
    # a first user message (`message`); "system" sends `text` as the system prompt
    dynamic: Literal["system", "message"] = "system"
    message: str = ""
    message_sections: tuple[Section, ...] = ()
    message_spans: tuple[tuple[int, int], ...] = ()  # each one's (start, end) in `message`
    # where the sections that describe the session's tools (MCP servers, skills) end in
    # `message`, when other sections follow them (0: no such cut); Anthropic's adapter sends
    # the message as two blocks there and may mark the first (see dynamic.py)
    message_cut: int = 0
    # the split's system part: its text, sections (the static ones and the note) and spans
    split_system: str = ""
    split_sections: tuple[Section, ...] = ()
    split_spans: tuple[tuple[int, int], ...] = ()
    _memo: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False, alias="_memo")
    _counter: TokenCounter | None = attrs.field(default=None, eq=False, repr=False,
                                                alias="_counter")

    def section(self, section_id: str) -> Section | None:
        for s in self.sections:
            if s.id == section_id:
                return s
        return None

    @property
    def blocks(self) -> tuple[Block, ...]:
        """The text split where the cache class rises (static → session → request)."""
        memo = self._memo.get("blocks")
        if memo is None:
            memo = self._memo["blocks"] = split_blocks(self.text, self.sections, self.spans)
        return memo

    @property
    def system(self) -> str:
        """The system prompt as sent: the whole `text`, or with the split the static block and
        the note, byte-identical for every session of the variant."""
        return self.split_system if self.dynamic == "message" else self.text

    @property
    def system_sections(self) -> tuple[Section, ...]:
        return self.split_sections if self.dynamic == "message" else self.sections

    @property
    def system_spans(self) -> tuple[tuple[int, int], ...]:
        return self.split_spans if self.dynamic == "message" else self.spans

    @property
    def system_blocks(self) -> tuple[Block, ...]:
        """The system prompt as sent, split where its cache class rises (with the split, one
        static block)."""
        if self.dynamic != "message":
            return self.blocks
        memo = self._memo.get("system_blocks")
        if memo is None:
            memo = self._memo["system_blocks"] = split_blocks(
                self.split_system, self.split_sections, self.split_spans)
        return memo

    @property
    def request_text(self) -> str:
        """The request-class tail of the system prompt as sent (date, notices…), for clients
        that send it with the latest user message instead (see the adapters'
        `include_request=False`); "" with the split, whose system prompt has none."""
        blocks = self.system_blocks
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
        return dict(memo)

    @property
    def encoding(self) -> tuple[str, bool]:
        """(tiktoken encoding, estimated?) this prompt is counted with."""
        from .._model.provider import encoding_for
        return encoding_for(self.provider)

    def count_tokens(self, text: str) -> int:
        """Tokens in `text` with this prompt's encoding (through the compiler's memo)."""
        counter = self._counter
        if counter is None:
            counter = TokenCounter(64)
            object.__setattr__(self, "_counter", counter)
        return counter.count(text, self.encoding[0])

    def message_update(self, previous: CompiledPrompt) -> str:
        """What to send, as a message of its own, when the session's details changed since
        `previous` (the sections that changed, in an `<environment_details>` element; "" when
        nothing did). See promptc/_emit/details.py."""
        return update_text(self.message_sections, self.message, previous.message_sections)

    # client adapters live in promptc/_emit/payloads.py; thin methods keep them discoverable
    def to_anthropic(self, breakpoints: int = 2, *, cache_min_tokens: int | None = None,
                     include_request: bool = True,
                     conversation_markers: int | Sequence[Mapping[str, Any]] = 0,
                     previous: CompiledPrompt | None = None,
                     messages: Sequence[Mapping[str, Any]] | None = None,
                     ttl: Literal["5m", "1h"] | None = None) -> dict[str, Any]:
        """`system` blocks with cache markers, `tools`, and with the split the details in
        `messages`; see `promptc._emit.payloads.to_anthropic`."""
        from .._emit.payloads import to_anthropic
        return to_anthropic(self, breakpoints=breakpoints, cache_min_tokens=cache_min_tokens,
                            include_request=include_request,
                            conversation_markers=conversation_markers, previous=previous,
                            messages=messages, ttl=ttl)

    def to_openai(self, api: Literal["chat", "responses"] | None = None, *,
                  role: Literal["system", "developer"] = "system", include_request: bool = True,
                  strict: bool = True, previous: CompiledPrompt | None = None,
                  messages: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
        """Chat Completions or Responses fields with tools and a `prompt_cache_key`; without
        `api`, the one the model speaks (Responses for a Responses-only model)."""
        from .._emit.payloads import to_openai
        return to_openai(self, api=api, role=role, include_request=include_request,
                         strict=strict, previous=previous, messages=messages)

    def to_gemini(self, *, include_request: bool = True,
                  schema: Literal["openapi", "json"] = "openapi",
                  previous: CompiledPrompt | None = None,
                  messages: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
        """`system_instruction`, function declarations and with the split the details in
        `contents`, for the Gemini API."""
        from .._emit.payloads import to_gemini
        return to_gemini(self, include_request=include_request, schema=schema,
                         previous=previous, messages=messages)

    def to_bedrock(self, breakpoints: int = 2, *, cache_min_tokens: int | None = None,
                   include_request: bool = True,
                   conversation_markers: int | Sequence[Mapping[str, Any]] = 0,
                   previous: CompiledPrompt | None = None,
                   messages: Sequence[Mapping[str, Any]] | None = None,
                   ttl: Literal["5m", "1h"] | None = None) -> dict[str, Any]:
        """The Bedrock Converse API's `system`, `toolConfig` and with the split `messages`,
        with `cachePoint`s where the model takes them; the arguments are `to_anthropic`'s."""
        from .._emit.payloads import to_bedrock
        return to_bedrock(self, breakpoints=breakpoints, cache_min_tokens=cache_min_tokens,
                          include_request=include_request,
                          conversation_markers=conversation_markers, previous=previous,
                          messages=messages, ttl=ttl)

    def to_dict(self) -> dict[str, Any]:
        return prompt_to_dict(self)


def prompt_to_dict(prompt: CompiledPrompt) -> dict[str, Any]:
    """The prompt as plain JSON data (what `promptc render --format json` prints)."""
    v = prompt.variant
    tokens = prompt.tokens.to_dict() if prompt.tokens is not None else None
    return {
        "variant": {"id": v.id, "family": v.family, "source": v.source},
        "provider": {"provider": prompt.provider.provider, "model": prompt.provider.model,
                     "family": prompt.provider.family},
        "text": prompt.text,
        "sections": [s.to_dict() for s in prompt.sections],
        "tokens": tokens,
        "budget": prompt.budget,
        "dropped": [d.to_dict() for d in prompt.dropped],
        "blocks": [{"cache": b.cache, "chars": len(b.text), "sections": list(b.sections)}
                   for b in prompt.blocks],
        "fingerprints": prompt.fingerprints,
        "tools": {"mode": prompt.tools.mode, "names": list(prompt.tools.names)},
        "placeholders": dict(sorted(prompt.placeholders.items())),
        "diagnostics": [d.to_dict() for d in prompt.diagnostics],
        "trace": [t.to_dict() for t in prompt.trace],
        "dynamic": prompt.dynamic,
        "system": {"text": prompt.system,
                   "sections": [s.to_dict() for s in prompt.system_sections]},
        "message": {"text": prompt.message,
                    "sections": [s.to_dict() for s in prompt.message_sections]},
    }
