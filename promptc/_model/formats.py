"""The provider wire formats promptc speaks, each declared once with what differs on the wire.

A format is one request shape: Anthropic Messages, OpenAI Chat Completions, OpenAI Responses,
Gemini, AWS Bedrock Converse. Its record says

- how a tool is written (`forms`: one per schema dialect or strictness the format offers, the
  first its default) and what holds the list (`wrap`, and `tools_at` in a payload);
- where the system text goes (`system`: as text blocks, `text_block`, where the format marks
  them) and how a user message of promptc's own is shaped (`message`: the first details
  message, an update; `conversation`: the field that holds them);
- how a cache marker is written (`marker`; None where the provider caches by itself) and how
  many one request may carry (`max_markers`);
- how a call arrives (`read_call`) and how its result answers it (`replies`, one per spelling).

Every stage's per-format table is keyed by `Format.id` and checked to cover every format
(tests/test_formats.py). Adding a format is a record here, its payload in
promptc/_emit/payloads.py and its `to_…` method on the compiled prompt. What caching costs and
how long an entry lives is per provider and model (the model data, promptc/_session/billing.py),
not per format: Claude and Nova both speak Converse and cache differently.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import attrs

from .provider import ProviderInfo, normalize_provider

__all__ = ["Format", "ToolForm", "Reply", "Marker", "FORMATS", "FORMAT_IDS", "DOORS",
           "TOOL_FORMS", "WIRES", "SchemaDialect", "format_named", "tool_form",
           "provider_format", "door_format", "read_call", "result_shape", "default_openai_api",
           "CallParts"]

# as given; as given less the `additionalProperties: false` promptc closes its own tools with;
# OpenAI strict; Gemini's subset
SchemaDialect = Literal["json", "open", "strict", "gemini"]
# (name, description, the schema in the form's dialect or None, whether the entry is strict)
Entry = Callable[[str, str, "dict[str, Any] | None", bool], dict[str, Any]]
# a call read from a provider's object: (spelling, call id, name, arguments, free-form?)
CallParts = tuple[str, Any, Any, Any, bool]
Result = Callable[[str | None, str, str, bool], dict[str, Any]]  # (id, name, content, error?)


@attrs.frozen
class ToolForm:
    """One way a format writes its tools: `id` is what payloads and `ToolSet.json_text` take;
    `option` what picks it ("" the default, "loose": no strict schemas, "json": Gemini's
    JSON-Schema field); `custom` writes a free-form tool (None: such tools go as functions of
    their one string parameter)."""

    id: str
    dialect: SchemaDialect
    entry: Entry
    option: str = ""
    custom: Callable[[str, str], dict[str, Any]] | None = None


@attrs.frozen
class Reply:
    """A spelling a format's calls arrive in, and the item that answers such a call."""

    wire: str
    result: Result


@attrs.frozen
class Marker:
    """How a format writes a cache marker after a content block: a key on the block itself
    (Anthropic's `cache_control`) or a block of its own after it (Converse's `cachePoint`)."""

    key: str
    own_block: bool
    value: Callable[[str | None], dict[str, Any]]  # the marker's value for a lifetime ("1h")

    def place(self, blocks: Sequence[dict[str, Any]], after: Sequence[int],
              ttl: str | None = None) -> list[dict[str, Any]]:
        """`blocks` with a marker after each block whose index is in `after`."""
        ends = set(after)
        out: list[dict[str, Any]] = []
        for i, block in enumerate(blocks):
            if i in ends and not self.own_block:
                block = {**block, self.key: self.value(ttl)}
            out.append(block)
            if i in ends and self.own_block:
                out.append({self.key: self.value(ttl)})
        return out

    def read(self, blocks: Sequence[Any]) -> list[tuple[Any, bool]]:
        """Each content block (markers of their own left out) and whether a marker ends it."""
        out: list[tuple[Any, bool]] = []
        for block in blocks:
            if self.own_block and isinstance(block, Mapping) and self.key in block:
                if out:
                    out[-1] = (out[-1][0], True)
                continue
            out.append((block, isinstance(block, Mapping) and self.key in block))
        return out

    def count(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """The markers in a conversation: on its content blocks, and on the blocks inside a
        tool result."""
        found = 0
        for message in messages:
            content = message.get("content")
            for block in content if isinstance(content, list) else ():
                if not isinstance(block, Mapping):
                    continue
                found += self.key in block
                for inner in (block.get("content"), _inner_result(block)):
                    found += sum(1 for b in inner if isinstance(b, Mapping) and self.key in b) \
                        if isinstance(inner, list) else 0
        return found


def _inner_result(block: Mapping[str, Any]) -> Any:
    result = block.get("toolResult")
    return result.get("content") if isinstance(result, Mapping) else None


@attrs.frozen
class Format:
    """One wire format (see the module's docstring for each field's part)."""

    id: str
    title: str
    door: str  # the name `render --format`, serve and a snapshot matrix take
    forms: tuple[ToolForm, ...]
    system: str  # the payload field the system text goes in
    message: Callable[[str, int], dict[str, Any]]  # a user message holding text (cut: Claude)
    replies: tuple[Reply, ...]
    read_call: Callable[[Mapping[str, Any]], CallParts | None]
    calls_as: str  # the call objects `read_call` takes, as an error message names them
    providers: tuple[str, ...] = ()  # provider ids whose own API takes this format
    api: str = ""  # for a door with two formats (OpenAI): which API this one is
    wrap: Callable[[list[Any]], Any] = list  # what holds the tool entries
    tools_at: tuple[str, ...] = ("tools",)  # where the tools sit in a payload
    conversation: str = "messages"  # the payload field holding the conversation
    # the conversation's roles must alternate (the API refuses two user messages in a row):
    # promptc's message joins the client's user message beside it
    alternates: bool = False
    marker: Marker | None = None
    max_markers: int = 0
    # a text content block, for a format whose system prompt is a list of them (the blocks a
    # marker can end); None where the system text is one string
    text_block: Callable[[str], dict[str, Any]] | None = None

    def form(self, *options: str) -> ToolForm:
        """The tool form the first of `options` this format offers picks (else its default)."""
        return next((f for o in options for f in self.forms if f.option == o), self.forms[0])


# --- tool entries --------------------------------------------------------------------------------

def _openai_chat(name: str, description: str, schema: dict[str, Any] | None, strict: bool
                 ) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description,
                                             "parameters": schema, "strict": strict}}


def _openai_chat_loose(name: str, description: str, schema: dict[str, Any] | None,
                       _strict: bool) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description,
                                             "parameters": schema}}


def _openai_responses(name: str, description: str, schema: dict[str, Any] | None,
                      strict: bool) -> dict[str, Any]:
    return {"type": "function", "name": name, "description": description,
            "parameters": schema, "strict": strict}


def _custom_tool(name: str, description: str) -> dict[str, Any]:
    """A free-form tool as the Responses API takes it: the model writes its input as raw
    text (a `custom_tool_call`), with no JSON around it."""
    return {"type": "custom", "name": name, "description": description,
            "format": {"type": "text"}}


def _anthropic_tool(name: str, description: str, schema: dict[str, Any] | None, _strict: bool
                    ) -> dict[str, Any]:
    return {"name": name, "description": description, "input_schema": schema}


def _gemini_tool(name: str, description: str, schema: dict[str, Any] | None, _strict: bool
                 ) -> dict[str, Any]:
    decl: dict[str, Any] = {"name": name, "description": description}
    if schema is not None:  # left out for a tool without arguments
        decl["parameters"] = schema
    return decl


def _gemini_json_tool(name: str, description: str, schema: dict[str, Any] | None,
                      _strict: bool) -> dict[str, Any]:
    return {"name": name, "description": description, "parameters_json_schema": schema}


def _converse_tool(name: str, description: str, schema: dict[str, Any] | None, _strict: bool
                   ) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": name}
    if description:  # Converse takes no empty description
        spec["description"] = description
    spec["inputSchema"] = {"json": schema}
    return {"toolSpec": spec}


def _function_declarations(entries: list[Any]) -> Any:
    return [{"function_declarations": entries}]


# --- messages of promptc's own -------------------------------------------------------------------

def _parts(text: str, cut: int) -> list[str]:
    """The text as one block, or two at `cut` (after the session's tool catalogue, so that a
    marker can end the first)."""
    return [text[:cut], text[cut:]] if 0 < cut < len(text) else [text]


def _anthropic_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _converse_block(text: str) -> dict[str, Any]:
    return {"text": text}


def _anthropic_message(text: str, cut: int) -> dict[str, Any]:
    return {"role": "user", "content": [_anthropic_block(p) for p in _parts(text, cut)]}


def _converse_message(text: str, cut: int) -> dict[str, Any]:
    return {"role": "user", "content": [_converse_block(p) for p in _parts(text, cut)]}


def _plain_message(text: str, _cut: int) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _gemini_message(text: str, _cut: int) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


# --- calls arriving, results answering -----------------------------------------------------------

def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _read_anthropic(d: Mapping[str, Any]) -> CallParts | None:
    if d.get("type") != "tool_use":
        return None
    return "anthropic", _str(d.get("id")), d.get("name"), d.get("input"), False


def _read_chat(d: Mapping[str, Any]) -> CallParts | None:
    custom = d.get("custom")
    if d.get("type") == "custom" and isinstance(custom, Mapping):  # a free-form tool's call
        text = custom.get("input")
        return ("openai-chat", _str(d.get("id")), custom.get("name"),
                text if isinstance(text, str) else None, True)
    function = d.get("function")
    if isinstance(function, Mapping) and "arguments" in function:
        return "openai-chat", _str(d.get("id")), function.get("name"), \
            function.get("arguments"), False
    return None


def _read_responses(d: Mapping[str, Any]) -> CallParts | None:
    kind = d.get("type")
    if kind == "function_call":
        return "openai-responses", _str(d.get("call_id")), d.get("name"), \
            d.get("arguments"), False
    if kind == "custom_tool_call":
        text = d.get("input")
        return ("openai-responses-custom", _str(d.get("call_id")), d.get("name"),
                text if isinstance(text, str) else None, True)
    return None


def _read_gemini(d: Mapping[str, Any]) -> CallParts | None:
    for key, wire in (("function_call", "gemini"), ("functionCall", "gemini-rest")):
        inner = d.get(key)
        if isinstance(inner, Mapping):  # the part holding the call
            return wire, _str(inner.get("id")), inner.get("name"), inner.get("args"), False
    if "name" in d and "args" in d:  # the FunctionCall itself
        return "gemini", _str(d.get("id")), d.get("name"), d.get("args"), False
    return None


def _read_converse(d: Mapping[str, Any]) -> CallParts | None:
    block = d.get("toolUse")
    inner = block if isinstance(block, Mapping) else d if "toolUseId" in d else None
    if inner is None:
        return None
    return "bedrock", _str(inner.get("toolUseId")), inner.get("name"), inner.get("input"), False


def _anthropic_result(call_id: str | None, _name: str, content: str, is_error: bool
                      ) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": content}
    if is_error:
        out["is_error"] = True
    return out


def _chat_result(call_id: str | None, _name: str, content: str, _is_error: bool
                 ) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def _responses_result(call_id: str | None, _name: str, content: str, _is_error: bool
                      ) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": content}


def _custom_result(call_id: str | None, _name: str, content: str, _is_error: bool
                   ) -> dict[str, Any]:
    return {"type": "custom_tool_call_output", "call_id": call_id, "output": content}


def _function_response(call_id: str | None, name: str, content: str, is_error: bool
                       ) -> dict[str, Any]:
    response: dict[str, Any] = {"name": name,
                                "response": {"error" if is_error else "output": content}}
    if call_id is not None:
        response["id"] = call_id
    return response


def _converse_result(call_id: str | None, _name: str, content: str, is_error: bool
                     ) -> dict[str, Any]:
    result: dict[str, Any] = {"toolUseId": call_id, "content": [{"text": content}]}
    if is_error:
        result["status"] = "error"
    return {"toolResult": result}


# --- the table -----------------------------------------------------------------------------------

def _anthropic_marker(ttl: str | None) -> dict[str, Any]:
    return {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}


def _cache_point(ttl: str | None) -> dict[str, Any]:
    return {"type": "default", **({"ttl": ttl} if ttl else {})}


FORMATS: tuple[Format, ...] = (
    Format("anthropic", "Anthropic Messages", "anthropic",
           # no `strict: true` is sent, so the schema guides the model and nothing holds it
           # to it: a closed root would cost tokens and change nothing ("Strict tool use",
           # platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use, read
           # 2026-12-06); the call checker refuses an unknown parameter all the same
           forms=(ToolForm("anthropic", "open", _anthropic_tool),),
           system="system",
           message=_anthropic_message,
           replies=(Reply("anthropic", _anthropic_result),),
           read_call=_read_anthropic, calls_as="an Anthropic tool_use block",
           providers=("anthropic",),
           marker=Marker("cache_control", False, _anthropic_marker), max_markers=4,
           text_block=_anthropic_block),
    Format("openai", "OpenAI Chat Completions", "openai", api="chat",
           forms=(ToolForm("openai", "strict", _openai_chat),
                  ToolForm("openai-loose", "json", _openai_chat_loose, "loose")),
           system="messages",  # the first message: a system (or developer) one
           message=_plain_message,
           replies=(Reply("openai-chat", _chat_result),),
           read_call=_read_chat, calls_as="an OpenAI Chat tool_call"),
    Format("openai-responses", "OpenAI Responses", "openai", api="responses",
           forms=(ToolForm("openai-responses", "strict", _openai_responses,
                           custom=_custom_tool),
                  ToolForm("openai-responses-loose", "json", _openai_responses, "loose",
                           custom=_custom_tool)),
           system="instructions",
           message=_plain_message,
           replies=(Reply("openai-responses", _responses_result),
                    Reply("openai-responses-custom", _custom_result)),
           read_call=_read_responses,
           calls_as="a Responses function_call or custom_tool_call item",
           conversation="input"),
    Format("gemini", "Gemini", "gemini",
           forms=(ToolForm("gemini", "gemini", _gemini_tool),
                  ToolForm("gemini-json", "json", _gemini_json_tool, "json")),
           system="system_instruction",
           message=_gemini_message,
           replies=(Reply("gemini", lambda i, n, c, e: {"function_response":
                                                        _function_response(i, n, c, e)}),
                    Reply("gemini-rest", lambda i, n, c, e: {"functionResponse":
                                                             _function_response(i, n, c, e)})),
           read_call=_read_gemini, calls_as="a Gemini function call (or its part)",
           wrap=_function_declarations,
           providers=("google", "gemini", "vertex_ai", "vertex", "google_ai_studio"),
           conversation="contents"),
    Format("bedrock", "AWS Bedrock Converse", "bedrock",
           # as Anthropic's: ToolSpecification's `strict` (which promptc does not send) is what
           # would enforce the schema (Bedrock API reference, ToolSpecification, 2026-12-06)
           forms=(ToolForm("bedrock", "open", _converse_tool),),
           system="system",
           message=_converse_message,
           replies=(Reply("bedrock", _converse_result),),
           read_call=_read_converse, calls_as="a Bedrock Converse toolUse block",
           providers=("bedrock",), tools_at=("toolConfig", "tools"), alternates=True,
           marker=Marker("cachePoint", True, _cache_point), max_markers=4,
           text_block=_converse_block),
)

FORMAT_IDS = tuple(f.id for f in FORMATS)
DOORS = tuple(dict.fromkeys(f.door for f in FORMATS))  # anthropic, openai, gemini…
TOOL_FORMS: Mapping[str, tuple[Format, ToolForm]] = {t.id: (f, t) for f in FORMATS
                                                     for t in f.forms}
WIRES = tuple(r.wire for f in FORMATS for r in f.replies)
_BY_ID = {f.id: f for f in FORMATS}
# Providers that serve Claude in Anthropic's Messages shape (Vertex AI's rawPredict).
_CLAUDE_HOSTS = ("vertex_ai", "vertex")


def format_named(name: str) -> Format:
    """The format with this id (ValueError naming the known ones otherwise)."""
    found = _BY_ID.get(name)
    if found is None:
        raise ValueError(f"unknown format {name!r}; known: {', '.join(FORMAT_IDS)}")
    return found


def tool_form(form: str) -> tuple[Format, ToolForm]:
    found = TOOL_FORMS.get(form)
    if found is None:
        raise ValueError(f"unknown tool format {form!r}")
    return found


def default_openai_api(provider: ProviderInfo) -> Literal["chat", "responses"]:
    """The OpenAI API a payload takes when the caller names none: Responses for a model the
    model data says is served only there (LiteLLM marks its entry `"mode": "responses"`; the
    GPT-5 Codex family says so too), else Chat Completions."""
    return "responses" if provider.responses_only else "chat"


def provider_format(provider: ProviderInfo) -> Format:
    """The format a provider's own API takes: Anthropic's for Anthropic (and Claude on Vertex
    AI), Converse for Bedrock, Gemini's for Google's APIs, else OpenAI Chat Completions (the
    shape OpenAI-compatible servers, routers and gateways take)."""
    name = normalize_provider(provider.provider)
    if name in _CLAUDE_HOSTS and (provider.family or "").lower().startswith("claude"):
        return _BY_ID["anthropic"]
    return next((f for f in FORMATS if name in f.providers), _BY_ID["openai"])


def door_format(door: str, provider: ProviderInfo, api: str | None = None) -> Format:
    """The format a door name (`render --format openai`) means for a provider: OpenAI's door
    has two, chosen by `api` or, without one, by the model (`default_openai_api`)."""
    found = [f for f in FORMATS if f.door == door]
    if not found:
        raise ValueError(f"unknown format {door!r}; known: {', '.join(DOORS)}")
    if len(found) == 1:
        return found[0]
    wanted = api if api is not None else default_openai_api(provider)
    for f in found:
        if f.api == wanted:
            return f
    raise ValueError(f"api must be one of {', '.join(f.api for f in found)}, got {api!r}")


def read_call(call: Mapping[str, Any]) -> CallParts | None:
    """The call in a provider's call object (as JSON), whichever format it comes in."""
    for f in FORMATS:
        found = f.read_call(call)
        if found is not None:
            return found
    return None


def result_shape(wire: str) -> Result:
    """The item answering a call that arrived in spelling `wire`."""
    for f in FORMATS:
        for reply in f.replies:
            if reply.wire == wire:
                return reply.result
    raise ValueError(f"unknown call spelling {wire!r}; known: {', '.join(WIRES)}")
