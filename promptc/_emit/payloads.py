"""Client adapters: the prompt shaped as each provider's request fields.

Anthropic caches the exact prefix tools → system → messages up to a block marked with
`cache_control`; at most 4 markers per request, and a prefix shorter than the model's minimum is
not cached at all (silently). So markers go at the end of the built-in tool block, the static
block, the session block, and only where the prefix up to them (tools included) reaches the
minimum. OpenAI caches automatically from 1,024 tokens; a `prompt_cache_key` derived from what is
sent first (the built-in tools and the static text) routes requests that share that prefix to
the same cache.

With dynamic placement (`compile(..., dynamic="message")`) the prompt's session- and
request-class text is `prompt.message`: each adapter adds it as the first user message
(`messages` for Anthropic and Chat Completions, `input` for Responses, `contents` for Gemini),
for the client to append its own first message's content to. Anthropic's gets it as two
blocks when it opens with the session's tool catalogue (`prompt.message_cut`), and the place
after the system prompt's markers is the end of that catalogue: a user with the same MCP
servers and skills reads it from the cache.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol

from .._base.errors import CacheMarkerError
from .._model.provider import ProviderInfo
from .blocks import Block
from .toolset import ToolSet, default_openai_api


class CompiledPrompt(Protocol):
    """What the adapters read of a compiled prompt (promptc's CompiledPrompt has it)."""

    @property
    def text(self) -> str: ...

    @property
    def provider(self) -> ProviderInfo: ...

    @property
    def tools(self) -> ToolSet: ...

    @property
    def blocks(self) -> tuple[Block, ...]: ...

    @property
    def request_text(self) -> str: ...

    @property
    def fingerprints(self) -> dict[str, str]: ...

    @property
    def message(self) -> str: ...  # dynamic placement: the first user message's text, or ""

    @property
    def message_cut(self) -> int: ...  # where its tool catalogue ends (0: no cut)

    def count_tokens(self, text: str) -> int: ...

__all__ = ["to_anthropic", "to_openai", "to_gemini", "cache_key", "count_cache_markers",
           "default_openai_api", "MAX_ANTHROPIC_BREAKPOINTS"]

MAX_ANTHROPIC_BREAKPOINTS = 4


def _system_text(prompt: CompiledPrompt, include_request: bool) -> str:
    if include_request:
        return prompt.text
    tail = prompt.request_text
    return prompt.text[: len(prompt.text) - len(tail)].rstrip("\n") if tail else prompt.text


def count_cache_markers(messages: Sequence[Mapping[str, Any]]) -> int:
    """The `cache_control` markers in an Anthropic conversation: on its content blocks, and on
    the blocks inside a tool result."""
    found = 0
    for message in messages:
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, Mapping):
                continue
            found += "cache_control" in block
            inner = block.get("content")
            found += sum(1 for b in inner if isinstance(b, Mapping) and "cache_control" in b) \
                if isinstance(inner, list) else 0
    return found


def to_anthropic(prompt: CompiledPrompt, breakpoints: int = 2,
                 cache_min_tokens: int | None = None,
                 include_request: bool = True,
                 conversation_markers: int | Sequence[Mapping[str, Any]] = 0
                 ) -> dict[str, Any]:
    """`system` content blocks (+ `tools` when native) with cache breakpoints.

    Anthropic caches tools → system → messages. The places a marker can go, in that order:
    the end of the built-in tool block (only when per-session tools follow it; else the
    static marker covers the same prefix), the end of the static block, of the session block,
    and of the request block (when it is included). `breakpoints` (0-4, default 2) takes the
    first that many places whose prefix (tools included) reaches `cache_min_tokens` (default:
    the model's minimum): below it Anthropic caches nothing. The client's own markers (on the
    conversation) count against the same limit of 4 per request: say how many with
    `conversation_markers` (a number, or the messages themselves, whose markers are counted),
    and a request that would carry more than 4 in all raises `CacheMarkerError` instead of
    being built (Anthropic answers it with a 400). With `include_request=False` the request
    block is left out (send `prompt.request_text` with the latest user message instead).
    """
    if not 0 <= breakpoints <= MAX_ANTHROPIC_BREAKPOINTS:
        raise ValueError(f"breakpoints must be 0..{MAX_ANTHROPIC_BREAKPOINTS}, got {breakpoints}")
    minimum = cache_min_tokens if cache_min_tokens is not None else (
        prompt.provider.cache_min_tokens or 1024)
    tools = prompt.tools.anthropic() if prompt.tools.mode == "native" else []
    blocks = _sent_blocks(prompt, include_request)
    system: list[dict[str, Any]] = [{"type": "text", "text": b.text} for b in blocks]
    message = _message_blocks(prompt)
    placed = 0
    for kind, i in itertools.islice(_cacheable_places(prompt, bool(tools), blocks, minimum),
                                    breakpoints):
        target = tools if kind == "tools" else system if kind == "system" else message
        target[i]["cache_control"] = {"type": "ephemeral"}
        placed += 1
    _within_marker_limit(placed, conversation_markers)
    return _anthropic_payload(system, tools, message)


def _message_blocks(prompt: CompiledPrompt) -> list[dict[str, Any]]:
    """The first message's content: one text block, or two split after the tool catalogue."""
    text, cut = prompt.message, prompt.message_cut
    parts = [text[:cut], text[cut:]] if 0 < cut < len(text) else [text] if text else []
    return [{"type": "text", "text": part} for part in parts]


def _sent_blocks(prompt: CompiledPrompt, include_request: bool) -> list[Block]:
    return [b for b in prompt.blocks if b.text and (include_request or b.cache != "request")]


def _anthropic_payload(system: list[dict[str, Any]], tools: list[dict[str, Any]],
                       message: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"system": system}
    if tools:
        out["tools"] = tools
    if message:
        out["messages"] = [{"role": "user", "content": message}]
    return out


def _cacheable_places(prompt: CompiledPrompt, native: bool, blocks: Sequence[Block],
                      minimum: int) -> Iterator[tuple[str, int]]:
    """The places a marker can go, in order (the end of the built-in tool block when per-session
    tools follow it, then each system block, then the end of the first message's tool
    catalogue), from the first whose prefix, tools included, reaches `minimum` tokens: below it
    Anthropic caches nothing. Counted lazily: once one prefix is long enough, the later ones
    are too."""
    reached, running = _tools_prefix(prompt, native, minimum)
    if reached:
        yield "tools", prompt.tools.stable - 1
    for i, block in enumerate(blocks):
        if not reached:
            running += prompt.count_tokens(block.text)
            reached = running >= minimum
        if reached:
            yield "system", i
    if _catalogue_cached(prompt, minimum - running if not reached else 0):
        yield "message", 0


def _tools_prefix(prompt: CompiledPrompt, native: bool, minimum: int) -> tuple[bool, int]:
    """(whether the built-in tool block, followed by per-session tools, is a place that
    reaches `minimum`; if not, the tokens of all the tools, which the system blocks follow)."""
    if not native:
        return False, 0
    toolset = prompt.tools
    stable = toolset.stable
    if 0 < stable < len(toolset.names) and \
            prompt.count_tokens(toolset.json_text("anthropic", stable)) >= minimum:
        return True, 0
    return False, prompt.count_tokens(toolset.json_text("anthropic"))


def _catalogue_cached(prompt: CompiledPrompt, short_by: int) -> bool:
    """Whether the first message has a tool catalogue to mark whose prefix reaches the
    minimum (`short_by`: the tokens the prefix before the message lacks)."""
    cut = prompt.message_cut
    if not 0 < cut < len(prompt.message):
        return False
    return short_by <= 0 or prompt.count_tokens(prompt.message[:cut]) >= short_by


def _within_marker_limit(placed: int, conversation: int | Sequence[Mapping[str, Any]]) -> None:
    theirs = conversation if isinstance(conversation, int) else count_cache_markers(conversation)
    if placed + theirs > MAX_ANTHROPIC_BREAKPOINTS:
        raise CacheMarkerError(
            f"this request would carry {placed + theirs} cache markers ({placed} of promptc's "
            f"and {theirs} on the conversation); Anthropic refuses more than "
            f"{MAX_ANTHROPIC_BREAKPOINTS}: ask for breakpoints="
            f"{max(0, MAX_ANTHROPIC_BREAKPOINTS - theirs)} or fewer",
            field="conversation_markers")


def cache_key(prompt: CompiledPrompt, fmt: str = "openai") -> str:
    """A key shared by requests that send the same thing first: the built-in tool block (in
    the format sent) and the static system text. Per-session tools, the session and request
    text do not change it, so sessions of one variant land on the same cache."""
    tools = prompt.tools
    head = tools.json_text(fmt, tools.stable) if tools.mode == "native" else ""
    digest = hashlib.sha256((prompt.fingerprints["static"] + "\0" + head).encode("utf-8"))
    return "promptc-" + digest.hexdigest()[:32]


def to_openai(prompt: CompiledPrompt, api: Literal["chat", "responses"] | None = None,
              role: Literal["system", "developer"] = "system",
              include_request: bool = True, strict: bool = True) -> dict[str, Any]:
    """Chat Completions (`messages[0]` + `tools`) or Responses (`instructions` + `tools`), and
    a `prompt_cache_key`. `api=None`: the one the model speaks (`default_openai_api`).
    `strict`: see `ToolSet.openai`."""
    if api is None:
        api = default_openai_api(prompt.provider)
    native = prompt.tools.mode == "native"
    text = _system_text(prompt, include_request)
    first = [{"role": "user", "content": prompt.message}] if prompt.message else []
    if api == "chat":
        out: dict[str, Any] = {"messages": [{"role": role, "content": text}, *first]}
        fmt = "openai"
    elif api == "responses":
        out = {"instructions": text, **({"input": first} if first else {})}
        fmt = "openai-responses"
    else:
        raise ValueError(f"api must be 'chat' or 'responses', got {api!r}")
    if not strict:
        fmt += "-loose"
    if native:
        out["tools"] = prompt.tools.openai(api, strict=strict)
    out["prompt_cache_key"] = cache_key(prompt, fmt)
    return out


def to_gemini(prompt: CompiledPrompt, include_request: bool = True,
              schema: Literal["openapi", "json"] = "openapi") -> dict[str, Any]:
    """`system_instruction` + `tools` (function declarations) for the Gemini API; `schema`:
    see `ToolSet.gemini`."""
    out: dict[str, Any] = {"system_instruction": {"parts": [
        {"text": _system_text(prompt, include_request)}]}}
    if prompt.tools.mode == "native":
        out["tools"] = prompt.tools.gemini(schema)
    if prompt.message:
        out["contents"] = [{"role": "user", "parts": [{"text": prompt.message}]}]
    return out
