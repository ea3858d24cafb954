"""Client adapters: the prompt shaped as each provider's request fields.

Anthropic caches the exact prefix tools → system → messages up to a block marked with
`cache_control`; at most 4 markers per request, and a prefix shorter than the model's minimum is
not cached at all (silently). So markers go at the ends of the static and session blocks, and only
where the prefix up to them (tools included) reaches the minimum. OpenAI caches automatically from
1,024 tokens; a `prompt_cache_key` derived from the static fingerprint routes requests that share
the static prefix to the same cache.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal, Protocol

from .._base.frozen import dumps_json
from .._model.provider import ProviderInfo
from .blocks import Block
from .toolset import ToolSet


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

    def count_tokens(self, text: str) -> int: ...

__all__ = ["to_anthropic", "to_openai", "to_gemini", "MAX_ANTHROPIC_BREAKPOINTS"]

MAX_ANTHROPIC_BREAKPOINTS = 4


def _system_text(prompt: CompiledPrompt, include_request: bool) -> str:
    if include_request:
        return prompt.text
    tail = prompt.request_text
    return prompt.text[: len(prompt.text) - len(tail)].rstrip("\n") if tail else prompt.text


def to_anthropic(prompt: CompiledPrompt, breakpoints: int = 2,
                 cache_min_tokens: int | None = None,
                 include_request: bool = True) -> dict[str, Any]:
    """`system` content blocks (+ `tools` when native) with cache breakpoints.

    Markers go at the end of the static block, then the session block (the request block changes
    every call). `breakpoints` caps how many (1-4; default 2); a marker is placed only where the
    prefix reaches `cache_min_tokens` (default: the model's minimum). With
    `include_request=False` the request block is left out (send `prompt.request_text` with the
    latest user message instead).
    """
    if not 0 <= breakpoints <= MAX_ANTHROPIC_BREAKPOINTS:
        raise ValueError(f"breakpoints must be 0..{MAX_ANTHROPIC_BREAKPOINTS}, got {breakpoints}")
    minimum = cache_min_tokens if cache_min_tokens is not None else (
        prompt.provider.cache_min_tokens or 1024)
    tools = prompt.tools.anthropic() if prompt.tools.mode == "native" else []
    prefix = prompt.count_tokens(dumps_json(tools, indent=None)) if tools else 0
    blocks = [b for b in prompt.blocks if b.text and (include_request or b.cache != "request")]
    system: list[dict[str, Any]] = []
    placed = 0
    for i, block in enumerate(blocks):
        prefix += prompt.count_tokens(block.text)
        entry: dict[str, Any] = {"type": "text", "text": block.text}
        last = i == len(blocks) - 1
        cacheable = block.cache != "request" or (last and len(blocks) == 1)
        if cacheable and placed < breakpoints and prefix >= minimum:
            entry["cache_control"] = {"type": "ephemeral"}
            placed += 1
        system.append(entry)
    out: dict[str, Any] = {"system": system}
    if tools:
        out["tools"] = tools
    return out


def _cache_key(prompt: CompiledPrompt) -> str:
    """Requests sharing the static prefix and the tool definitions (which OpenAI places before
    the system prompt in the cached prefix) share a key."""
    tools = dumps_json(prompt.tools.openai("chat"), indent=None) \
        if prompt.tools.mode == "native" else ""
    digest = hashlib.sha256((prompt.fingerprints["static"] + "\0" + tools).encode("utf-8"))
    return "promptc-" + digest.hexdigest()[:32]


def to_openai(prompt: CompiledPrompt, api: Literal["chat", "responses"] = "chat",
              role: Literal["system", "developer"] = "system",
              include_request: bool = True) -> dict[str, Any]:
    """Chat Completions (`messages[0]` + `tools`) or Responses (`instructions` + `tools`)."""
    native = prompt.tools.mode == "native"
    text = _system_text(prompt, include_request)
    if api == "chat":
        out: dict[str, Any] = {"messages": [{"role": role, "content": text}]}
        if native:
            out["tools"] = prompt.tools.openai("chat")
    elif api == "responses":
        out = {"instructions": text}
        if native:
            out["tools"] = prompt.tools.openai("responses")
    else:
        raise ValueError(f"api must be 'chat' or 'responses', got {api!r}")
    out["prompt_cache_key"] = _cache_key(prompt)
    return out


def to_gemini(prompt: CompiledPrompt, include_request: bool = True) -> dict[str, Any]:
    """`system_instruction` + `tools` (function declarations) for the Gemini API."""
    out: dict[str, Any] = {"system_instruction": {"parts": [
        {"text": _system_text(prompt, include_request)}]}}
    if prompt.tools.mode == "native":
        out["tools"] = prompt.tools.gemini()
    return out
