"""Client adapters: the prompt shaped as each provider's request fields (one builder per format
of promptc/_model/formats.py, `PAYLOADS`).

Anthropic caches the exact prefix tools → system → messages up to a block marked with
`cache_control`; at most 4 markers per request, and a prefix shorter than the model's minimum is
not cached at all (silently). So markers go at the end of the built-in tool block, the static
block, the session block, and only where the prefix up to them (tools included) reaches the
minimum. Bedrock's Converse API caches the same prefix at `cachePoint` blocks, placed the same
way (`to_bedrock`; the model data says which models take them, and where). OpenAI caches
automatically; a `prompt_cache_key` derived from what is sent first (the
built-in tools and the static text) routes requests that share that prefix to the same cache.

With the split placement (the default, `compile(..., dynamic="message")`) the system prompt is
`prompt.system` and the session- and request-class text is `prompt.message`: each adapter adds
it as a user message of its own that opens the conversation (`messages` for Anthropic, Chat
Completions and Converse, `input` for Responses, `contents` for Gemini), before the client's
own `messages` when it passes them. Given the prompt of the request before (`previous=`),
`messages` is the conversation as the client kept it (the messages promptc added included) and
the adapter adds the update, when the details changed, as a message of its own after it;
without `messages`, the payload carries only what promptc adds (see details.py). Anthropic's
(and Converse's) first message is two blocks when it opens with the session's tool catalogue
(`prompt.message_cut`), and the place after the system prompt's markers is the end of that
catalogue: a user with the same MCP servers and skills reads it from the cache.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol

import attrs

from .._base.errors import CacheMarkerError
from .._model.formats import Format, door_format, format_named, provider_format
from .._model.provider import ProviderInfo
from .blocks import Block
from .details import compose, details_message
from .toolset import ToolSet, default_openai_api


class PromptView(Protocol):
    """What the adapters read of a compiled prompt (promptc's CompiledPrompt has it)."""

    @property
    def system(self) -> str: ...  # the system prompt as sent

    @property
    def provider(self) -> ProviderInfo: ...

    @property
    def tools(self) -> ToolSet: ...

    @property
    def system_blocks(self) -> tuple[Block, ...]: ...

    @property
    def request_text(self) -> str: ...

    @property
    def fingerprints(self) -> dict[str, str]: ...

    @property
    def message(self) -> str: ...  # the split's first user message, or ""

    @property
    def message_cut(self) -> int: ...  # where its tool catalogue ends (0: no cut)

    def count_tokens(self, text: str) -> int: ...

    def message_update(self, previous: Any) -> str: ...


__all__ = ["to_anthropic", "to_openai", "to_gemini", "to_bedrock", "cache_key",
           "count_cache_markers", "default_openai_api", "MAX_ANTHROPIC_BREAKPOINTS",
           "PayloadOptions", "PAYLOADS", "payload", "native_tools"]

MAX_ANTHROPIC_BREAKPOINTS = format_named("anthropic").max_markers
Messages = Sequence[Mapping[str, Any]]


def _system_text(prompt: PromptView, include_request: bool) -> str:
    text = prompt.system
    if include_request:
        return text
    tail = prompt.request_text
    return text[: len(text) - len(tail)].rstrip("\n") if tail else text


def _conversation(prompt: PromptView, fmt: str, previous: Any, messages: Messages | None,
                  first: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """What follows the system prompt: the first details message (a new conversation) or the
    update since `previous` (a continued one), with the client's `messages` (joined to the
    user message beside it where the format's roles must alternate)."""
    join = format_named(fmt).alternates
    if previous is not None:
        update = prompt.message_update(previous)
        return compose(None, details_message(fmt, update) if update else None, messages, True,
                       join)
    if first is None and prompt.message:
        first = details_message(fmt, prompt.message)
    return compose(first, None, messages, False, join)


def count_cache_markers(messages: Sequence[Mapping[str, Any]], fmt: str = "anthropic") -> int:
    """The cache markers in a conversation (`cache_control` for Anthropic, `cachePoint`
    blocks for Converse): on its content blocks, and on the blocks inside a tool result."""
    marker = format_named(fmt).marker
    return marker.count(messages) if marker is not None else 0


def to_anthropic(prompt: PromptView, breakpoints: int = 2,
                 cache_min_tokens: int | None = None,
                 include_request: bool = True,
                 conversation_markers: int | Messages = 0,
                 previous: Any = None, messages: Messages | None = None,
                 ttl: Literal["5m", "1h"] | None = None) -> dict[str, Any]:
    """`system` content blocks (+ `tools` when native) with cache breakpoints, and the
    details in `messages` (see the module's docstring for `previous` and `messages`).

    Anthropic caches tools → system → messages. The places a marker can go, in that order:
    the end of the built-in tool block (only when per-session tools follow it; else the
    static marker covers the same prefix), the end of the static block, of the session block,
    of the request block (when it is included), then the end of the first message's tool
    catalogue. `breakpoints` (0-4, default 2) takes the first that many places whose prefix
    (tools included) reaches `cache_min_tokens` (default: the model's minimum): below it
    Anthropic caches nothing. `ttl="1h"` gives promptc's markers the hour-long lifetime
    (written at twice the input price; they come before the conversation's, as Anthropic
    requires of longer lifetimes). The client's own markers count against the same limit of 4
    per request: say how many with `conversation_markers` (a number, or the messages, whose
    markers are counted; by default those of `messages`), and a request that would carry more
    than 4 in all raises `CacheMarkerError` instead of being built (Anthropic answers it with
    a 400). With `include_request=False` the request block is left out (send
    `prompt.request_text` with the latest user message instead).
    """
    return _marked(prompt, format_named("anthropic"), breakpoints, cache_min_tokens,
                   include_request, conversation_markers, previous, messages, ttl)


def to_bedrock(prompt: PromptView, breakpoints: int = 2,
               cache_min_tokens: int | None = None,
               include_request: bool = True,
               conversation_markers: int | Messages = 0,
               previous: Any = None, messages: Messages | None = None,
               ttl: Literal["5m", "1h"] | None = None) -> dict[str, Any]:
    """The Converse API's arguments (boto3's `client.converse(modelId=…, **payload)`):
    `system` text blocks, `toolConfig` with each tool's `toolSpec` (when native) and the
    details in `messages`, with `cachePoint` blocks where `to_anthropic` puts its markers.

    Bedrock caches tools → system → messages as Anthropic does, at most 4 checkpoints per
    request, each only once its prefix reaches the model's minimum. Which models take
    checkpoints, and where, is the model data's: none for a model Bedrock does not cache
    (Bedrock refuses the request), none after the tools for a model whose cache leaves them
    out (Nova). The arguments are `to_anthropic`'s."""
    return _marked(prompt, format_named("bedrock"), breakpoints, cache_min_tokens,
                   include_request, conversation_markers, previous, messages, ttl)


def _marked(prompt: PromptView, fmt: Format, breakpoints: int,
            cache_min_tokens: int | None, include_request: bool,
            conversation_markers: int | Messages, previous: Any, messages: Messages | None,
            ttl: str | None) -> dict[str, Any]:
    """A payload of a format that marks its cache: system blocks, tools and the details, with
    markers at the first `breakpoints` places whose prefix reaches the minimum."""
    limit, marker, block = fmt.max_markers, fmt.marker, fmt.text_block
    assert marker is not None and block is not None
    if not 0 <= breakpoints <= limit:
        raise ValueError(f"breakpoints must be 0..{limit}, got {breakpoints}")
    if ttl not in (None, "5m", "1h"):
        raise ValueError(f"ttl must be '5m' or '1h', got {ttl!r}")
    info = prompt.provider
    minimum = cache_min_tokens if cache_min_tokens is not None else (
        info.cache_min_tokens or 1024)
    native = prompt.tools.mode == "native"
    tools: list[Any] = prompt.tools.definitions(fmt.id) if native else []
    blocks = _sent_blocks(prompt, include_request)
    places: dict[str, list[int]] = {"tools": [], "system": [], "message": []}
    # the model data speaks for the provider's own API: there a model it does not cache takes
    # no marker (and one whose cache leaves the tools out, none after them); a payload in
    # another provider's shape keeps every place asked for
    own = provider_format(info) is fmt
    if not own or info.prompt_caching is not False:
        found = _cacheable_places(prompt, fmt.id, bool(tools), blocks, minimum,
                                  not own or info.cache_tools is not False)
        for kind, i in itertools.islice(found, breakpoints):
            places[kind].append(i)
    placed = sum(map(len, places.values()))
    theirs = conversation_markers if conversation_markers or messages is None else messages
    _within_marker_limit(fmt, placed, theirs)
    out: dict[str, Any] = {"system": marker.place([block(b.text) for b in blocks],
                                                  places["system"], ttl)}
    if tools:
        holder = out
        for key in fmt.tools_at[:-1]:
            holder = holder.setdefault(key, {})
        holder[fmt.tools_at[-1]] = marker.place(tools, places["tools"], ttl)
    first = None
    if prompt.message:
        first = details_message(fmt.id, prompt.message, prompt.message_cut)
        first["content"] = marker.place(first["content"], places["message"], ttl)
    sent = _conversation(prompt, fmt.id, previous, messages, first)
    if sent:
        out[fmt.conversation] = sent
    return out


def _sent_blocks(prompt: PromptView, include_request: bool) -> list[Block]:
    return [b for b in prompt.system_blocks
            if b.text and (include_request or b.cache != "request")]


def _cacheable_places(prompt: PromptView, fmt: str, native: bool, blocks: Sequence[Block],
                      minimum: int, tools_cached: bool = True) -> Iterator[tuple[str, int]]:
    """The places a marker can go, in order (the end of the built-in tool block when per-session
    tools follow it, then each system block, then the end of the first message's tool
    catalogue), from the first whose prefix, tools included, reaches `minimum` tokens: below it
    the provider caches nothing. Counted lazily: once one prefix is long enough, the later ones
    are too. `tools_cached` false: the model's cache takes no marker after the tools (Nova on
    Bedrock), whose tokens still count towards the prefix."""
    reached, running = _tools_prefix(prompt, fmt, native, minimum)
    if reached and tools_cached:
        yield "tools", prompt.tools.stable - 1
    for i, block in enumerate(blocks):
        if not reached:
            running += prompt.count_tokens(block.text)
            reached = running >= minimum
        if reached:
            yield "system", i
    if _catalogue_cached(prompt, minimum - running if not reached else 0):
        yield "message", 0


def _tools_prefix(prompt: PromptView, fmt: str, native: bool, minimum: int
                  ) -> tuple[bool, int]:
    """(whether the built-in tool block, followed by per-session tools, is a place that
    reaches `minimum`; if not, the tokens of all the tools, which the system blocks follow)."""
    if not native:
        return False, 0
    toolset = prompt.tools
    stable = toolset.stable
    if 0 < stable < len(toolset.names) and \
            prompt.count_tokens(toolset.json_text(fmt, stable)) >= minimum:
        return True, 0
    return False, prompt.count_tokens(toolset.json_text(fmt))


def _catalogue_cached(prompt: PromptView, short_by: int) -> bool:
    """Whether the first message has a tool catalogue to mark whose prefix reaches the
    minimum (`short_by`: the tokens the prefix before the message lacks)."""
    cut = prompt.message_cut
    if not 0 < cut < len(prompt.message):
        return False
    return short_by <= 0 or prompt.count_tokens(prompt.message[:cut]) >= short_by


def _within_marker_limit(fmt: Format, placed: int,
                         conversation: int | Sequence[Mapping[str, Any]]) -> None:
    theirs = conversation if isinstance(conversation, int) else \
        count_cache_markers(conversation, fmt.id)
    limit = fmt.max_markers
    if placed + theirs > limit:
        raise CacheMarkerError(
            f"this request would carry {placed + theirs} cache markers ({placed} of promptc's "
            f"and {theirs} on the conversation); {fmt.title} refuses more than {limit}: ask "
            f"for breakpoints={max(0, limit - theirs)} or fewer",
            field="conversation_markers")


def cache_key(prompt: PromptView, fmt: str = "openai") -> str:
    """A key shared by requests that send the same thing first: the built-in tool block (in
    the format sent) and the static system text. Per-session tools, the session and request
    text do not change it, so sessions of one variant land on the same cache."""
    tools = prompt.tools
    head = tools.json_text(fmt, tools.stable) if tools.mode == "native" else ""
    digest = hashlib.sha256((prompt.fingerprints["static"] + "\0" + head).encode("utf-8"))
    return "promptc-" + digest.hexdigest()[:32]


def to_openai(prompt: PromptView, api: Literal["chat", "responses"] | None = None,
              role: Literal["system", "developer"] = "system",
              include_request: bool = True, strict: bool = True,
              previous: Any = None, messages: Messages | None = None) -> dict[str, Any]:
    """Chat Completions (`messages`, the system prompt first, + `tools`) or Responses
    (`instructions` + `input` + `tools`), and a `prompt_cache_key`. `api=None`: the one the
    model speaks (`default_openai_api`). `strict`: see `ToolSet.openai`. `previous` and
    `messages`: see the module's docstring."""
    if api is None:
        api = default_openai_api(prompt.provider)
    native = prompt.tools.mode == "native"
    text = _system_text(prompt, include_request)
    if api == "chat":
        sent = _conversation(prompt, "openai", previous, messages)
        out: dict[str, Any] = {"messages": [{"role": role, "content": text}, *sent]}
        fmt = format_named("openai")
    elif api == "responses":
        sent = _conversation(prompt, "openai-responses", previous, messages)
        out = {"instructions": text, **({"input": sent} if sent else {})}
        fmt = format_named("openai-responses")
    else:
        raise ValueError(f"api must be 'chat' or 'responses', got {api!r}")
    if native:
        out["tools"] = prompt.tools.openai(api, strict=strict)
    out["prompt_cache_key"] = cache_key(prompt, fmt.form("" if strict else "loose").id)
    return out


def to_gemini(prompt: PromptView, include_request: bool = True,
              schema: Literal["openapi", "json"] = "openapi",
              previous: Any = None, messages: Messages | None = None) -> dict[str, Any]:
    """`system_instruction` + `tools` (function declarations) + `contents` for the Gemini
    API; `schema`: see `ToolSet.gemini`; `previous` and `messages`: see the module's
    docstring."""
    out: dict[str, Any] = {"system_instruction": {"parts": [
        {"text": _system_text(prompt, include_request)}]}}
    if prompt.tools.mode == "native":
        out["tools"] = prompt.tools.gemini(schema)
    sent = _conversation(prompt, "gemini", previous, messages)
    if sent:
        out["contents"] = sent
    return out


@attrs.frozen
class PayloadOptions:
    """How a payload is shaped where its format offers a choice (the CLI's `--breakpoints`,
    `--openai-api`, `--strict-tools`, `--gemini-schema`; serve's same-named params)."""

    breakpoints: int = 2
    openai_api: Literal["chat", "responses"] | None = None  # None: the model's own
    strict_tools: bool = True
    gemini_schema: Literal["openapi", "json"] = "openapi"
    ttl: Literal["5m", "1h"] | None = None  # the markers' lifetime (the marking formats)

    def tool_options(self) -> tuple[str, ...]:
        """The tool-form options these choices ask for (promptc/_model/formats.py)."""
        return (*(("json",) if self.gemini_schema == "json" else ()),
                *(() if self.strict_tools else ("loose",)))


Builder = Callable[[PromptView, PayloadOptions, Any], "dict[str, Any]"]

# Each format's payload, by format id (tests/test_formats.py checks every format has one).
PAYLOADS: Mapping[str, Builder] = {
    "anthropic": lambda p, o, b: to_anthropic(p, o.breakpoints, previous=b, ttl=o.ttl),
    "openai": lambda p, o, b: to_openai(p, "chat", strict=o.strict_tools, previous=b),
    "openai-responses": lambda p, o, b: to_openai(p, "responses", strict=o.strict_tools,
                                                  previous=b),
    "gemini": lambda p, o, b: to_gemini(p, schema=o.gemini_schema, previous=b),
    "bedrock": lambda p, o, b: to_bedrock(p, o.breakpoints, previous=b, ttl=o.ttl),
}


def payload(prompt: PromptView, door: str, options: PayloadOptions = PayloadOptions(),
            previous: Any = None) -> dict[str, Any]:
    """The request payload a door name asks for (`render --format anthropic|openai|gemini…`;
    OpenAI's Chat or Responses API by `options.openai_api`, else the model's), given the
    session's previous prompt with the update in place of the first message."""
    fmt = door_format(door, prompt.provider, options.openai_api)
    return PAYLOADS[fmt.id](prompt, options, previous)


def native_tools(tools: ToolSet, door: str, options: PayloadOptions = PayloadOptions()) -> Any:
    """The native tool definitions a door name asks for (`tools --format …`), in the form the
    options pick (strict or not, Gemini's OpenAPI subset or JSON Schema)."""
    provider = tools.provider if tools.provider is not None else ProviderInfo()
    fmt = door_format(door, provider, options.openai_api)
    return tools.definitions(fmt.form(*options.tool_options()).id)
