"""The tools of one request: which are offered, how, their native JSON per provider, and how
calls come back.

Order on the wire: the built-in block first (tools whose presence depends only on the variant,
the features, the mode and the model, in the variant's order), then the per-session tools (those
that depend on MCP servers, skills, rules, attachments or workspace roots, such as the
skill-loading tools with their enum of skill names), then the MCP tools. So the built-in block is
byte-identical across sessions, and a cache breakpoint after it is shared by all of them.

The JSON for a set of tools is built once and shared by every request that offers the same set
(`NativeTools`, keyed by the complete input: the offered specs, what their option lists come from,
and the MCP tools with their names, descriptions and schemas). Every call hands out a fresh copy,
so a client may change what it gets. Schemas are normalized per provider (promptc/_emit/
schemas.py): OpenAI strict where the schema allows it, Gemini's OpenAPI subset (or its
`parameters_json_schema`), Anthropic's object root. MCP descriptions stay verbatim.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Literal, Protocol

import attrs

from .._base.frozen import FreshCopies, dumps_json, thaw
from .._model.context import PromptContext, Skill
from .._model.provider import ProviderInfo, normalize_provider
from .._model.tools import (EnumSources, McpBinding, ToolSpec, json_schema, options_of,
                            per_session)
from .._model.variant import ActiveToolMode, ToolModeChoice
from .._calls.desk import CallDesk, builtin_tools, mcp_entries
from .._calls.records import CallError, ParsedMessage, ToolCall
from .._calls.checker import BuiltinTool
from .schemas import gemini_schema, object_root, openai_strict

__all__ = ["ToolSet", "NativeTools", "Shape", "SchemaForms", "native_key", "shape_key",
           "FunctionList",
           "to_openai", "to_openai_responses", "to_anthropic", "to_gemini", "FORMATS",
           "wire_format", "WireFormat"]

FunctionList = list[tuple[str, str, dict[str, Any]]]  # (name, description, JSON schema)
WireFormat = Literal["openai", "anthropic", "gemini"]


def wire_format(provider: ProviderInfo) -> WireFormat:
    """The tool format a provider's API takes: Anthropic's for Claude on Anthropic's API (and
    Bedrock/Vertex, which use its Messages shape), Gemini's for Google's API, else OpenAI's
    (the shape OpenAI-compatible servers, routers and gateways take)."""
    name = normalize_provider(provider.provider)
    family = (provider.family or "").lower()
    if name == "anthropic" or (name in ("bedrock", "vertex_ai", "vertex")
                               and family.startswith("claude")):
        return "anthropic"
    if name in ("google", "gemini", "vertex_ai", "vertex", "google_ai_studio"):
        return "gemini"
    return "openai"


# --- per-provider shapes -----------------------------------------------------------------------

FORMATS = ("functions", "openai", "openai-loose", "openai-responses", "openai-responses-loose",
           "anthropic", "gemini", "gemini-json")


class SchemaForms:
    """One JSON Schema in the forms the providers take (as given, OpenAI strict, Gemini's
    OpenAPI subset), each converted on first use and then kept. Shared by every tool with this
    schema, whatever its name: a new session whose MCP servers are named differently converts
    nothing again. The forms are never handed out as they are; `copy` gives fresh ones."""

    __slots__ = ("schema", "_strict", "_gemini", "_copies")

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self._strict: tuple[dict[str, Any] | None] | None = None
        self._gemini: tuple[dict[str, Any] | None] | None = None
        self._copies: dict[str, FreshCopies] = {}

    @property
    def strict(self) -> dict[str, Any] | None:
        """The schema in OpenAI strict form, or None when strict mode cannot express it."""
        done = self._strict
        if done is None:
            done = self._strict = (openai_strict(self.schema),)
        return done[0]

    @property
    def gemini(self) -> dict[str, Any] | None:
        """Gemini `parameters`, or None for a tool without arguments."""
        done = self._gemini
        if done is None:
            done = self._gemini = (gemini_schema(self.schema),)
        return done[0]

    def form(self, kind: str) -> dict[str, Any] | None:
        return self.schema if kind == "json" else self.strict if kind == "strict" \
            else self.gemini

    def copy(self, kind: str) -> dict[str, Any] | None:
        copies = self._copies.get(kind)
        if copies is None:
            value = self.form(kind)
            if value is None:
                return None
            copies = self._copies[kind] = FreshCopies(value)
        fresh: dict[str, Any] = copies()
        return fresh


def _entry(fmt: str, name: str, description: str, forms: SchemaForms,
           get: Callable[[str], dict[str, Any] | None]) -> Any:
    """One tool's entry in a format; `get(kind)` supplies the schema (shared or a copy)."""
    if fmt == "functions":
        return [name, description, get("json")]
    if fmt in ("openai", "openai-responses"):
        strict = forms.strict is not None
        params = get("strict" if strict else "json")
        if fmt == "openai":
            return {"type": "function", "function": {"name": name, "description": description,
                                                     "parameters": params, "strict": strict}}
        return {"type": "function", "name": name, "description": description,
                "parameters": params, "strict": strict}
    if fmt == "openai-loose":
        return {"type": "function", "function": {"name": name, "description": description,
                                                 "parameters": get("json")}}
    if fmt == "openai-responses-loose":
        return {"type": "function", "name": name, "description": description,
                "parameters": get("json"), "strict": False}
    if fmt == "anthropic":
        return {"name": name, "description": description, "input_schema": get("json")}
    if fmt == "gemini":
        decl: dict[str, Any] = {"name": name, "description": description}
        if forms.gemini is not None:
            decl["parameters"] = get("gemini")
        return decl
    if fmt == "gemini-json":
        return {"name": name, "description": description, "parameters_json_schema": get("json")}
    raise ValueError(f"unknown tool format {fmt!r}")


class Shape:
    """One tool as each provider wants it: its name, its description (verbatim) and the forms
    of its schema. `entry` is the shared entry (made once, never handed out); `fresh` a new
    one built from copies, for a client that may change it."""

    __slots__ = ("name", "description", "forms", "_entries")

    def __init__(self, name: str, description: str, forms: SchemaForms) -> None:
        self.name = name
        self.description = description
        self.forms = forms
        self._entries: dict[str, Any] = {}

    @property
    def schema(self) -> dict[str, Any]:
        return self.forms.schema

    @property
    def strict(self) -> dict[str, Any] | None:
        return self.forms.strict

    def entry(self, fmt: str) -> Any:
        made = self._entries.get(fmt)
        if made is None:
            made = self._entries[fmt] = _entry(fmt, self.name, self.description, self.forms,
                                               self.forms.form)
        return made

    def fresh(self, fmt: str) -> Any:
        return _entry(fmt, self.name, self.description, self.forms, self.forms.copy)


def _shaped(functions: FunctionList, fmt: str) -> list[Any]:
    return [Shape(n, d, SchemaForms(s)).entry(fmt) for n, d, s in functions]


def to_openai(functions: FunctionList) -> list[dict[str, Any]]:
    """Chat Completions `tools`, plain JSON Schema (optional parameters optional)."""
    return _shaped(functions, "openai-loose")


def to_openai_responses(functions: FunctionList) -> list[dict[str, Any]]:
    """Responses API `tools` (flat function objects), not strict."""
    return _shaped(functions, "openai-responses-loose")


def to_anthropic(functions: FunctionList) -> list[dict[str, Any]]:
    return _shaped(functions, "anthropic")


def to_gemini(functions: FunctionList) -> list[dict[str, Any]]:
    """Function declarations with `parameters` in Gemini's OpenAPI subset (left out for a tool
    without arguments)."""
    return [{"function_declarations": _shaped(functions, "gemini")}]


def _mcp_schema(binding: McpBinding) -> dict[str, Any]:
    return object_root(thaw(binding.input_schema) if binding.input_schema else {})


def _mcp_description(binding: McpBinding) -> str:
    """The MCP server's own words, verbatim (as the text prompt shows them); a blank one gets
    a line naming the tool and its server."""
    if binding.description.strip():
        return binding.description
    return f"{binding.tool} (MCP server {binding.server})"


def native_key(specs: Sequence[ToolSpec], sources: EnumSources,
               mcp: Sequence[McpBinding]) -> Hashable:
    """The complete, typed input of a tool set's native JSON (all strings)."""
    return (tuple(s.name for s in specs), sources,
            tuple((b.native_name, b.server, b.tool, _mcp_description(b),
                   b.input_schema.json_text) for b in mcp))


def shape_key(spec: ToolSpec, enabled: frozenset[str], sources: EnumSources) -> Hashable:
    """The complete input of a built-in tool's schema: its name (specs are the plan's own), the
    tools its parameters depend on that are enabled, and its options from the request."""
    deps = tuple(d for p in spec.parameters for d in p.depends_on if d in enabled)
    options = tuple((p.name, options_of(p, sources)) for p in spec.parameters if p.enum_from)
    return ("spec", spec.name, deps, options)


class Cache(Protocol):
    """Where shapes and schema forms are kept (a plan's bounded Memo)."""

    def get(self, key: Hashable, default: Any = None) -> Any: ...

    def put(self, key: Hashable, value: Any) -> Any: ...


class _NoCache:
    def get(self, key: Hashable, default: Any = None) -> Any:
        return default

    def put(self, key: Hashable, value: Any) -> Any:
        return value


FRESH_ASSEMBLIES = 2  # a tool set's first payloads are assembled from its tools' own copies


class NativeTools:
    """The native definitions of one tool set, handed out as fresh copies; also the parser of
    its calls and the JSON text that is counted and keyed.

    Each tool's Shape (and each schema's forms) comes from `cache`, the plan's memo, keyed by its
    complete input, so a new tool set reuses what it shares with earlier ones: its first payloads
    are assembled from the tools' own copies; from the third on, the whole payload is copied at
    once (FreshCopies), which is faster for a set that keeps coming back.
    """

    __slots__ = ("_specs", "_sources", "_mcp", "_copies", "_uses", "_shaped", "_texts",
                 "_builtins", "_cache", "stable")

    def __init__(self, specs: tuple[ToolSpec, ...], sources: EnumSources,
                 mcp: tuple[McpBinding, ...], cache: Cache | None = None) -> None:
        self._specs = specs
        self._sources = sources
        self._mcp = mcp
        self._cache: Cache = cache if cache is not None else _NoCache()
        self._copies: dict[str, FreshCopies] = {}
        self._uses: dict[str, int] = {}
        self._texts: dict[tuple[str, int], str] = {}
        self._shaped: list[Shape] | None = None
        self._builtins: tuple[BuiltinTool, ...] | None = None
        stable = 0
        for spec in specs:
            if per_session(spec):
                break
            stable += 1
        self.stable = stable  # leading specs in the built-in block

    def shapes(self) -> list[Shape]:
        out = self._shaped
        if out is None:
            cache = self._cache
            enabled = frozenset(s.name for s in self._specs)
            sources = self._sources
            built: list[Shape] = []
            for spec in self._specs:
                key = shape_key(spec, enabled, sources)
                shape = cache.get(key)
                if shape is None:
                    shape = cache.put(key, Shape(spec.name, spec.description, SchemaForms(
                        json_schema(spec, enabled, sources))))
                built.append(shape)
            for b in self._mcp:
                description = _mcp_description(b)
                key = ("mcp", b.native_name, description, b.input_schema.json_text)
                shape = cache.get(key)
                if shape is None:
                    forms_key = ("schema", b.input_schema.json_text)
                    forms = cache.get(forms_key)
                    if forms is None:
                        forms = cache.put(forms_key, SchemaForms(_mcp_schema(b)))
                    shape = cache.put(key, Shape(b.native_name, description, forms))
                built.append(shape)
            out = self._shaped = built
        return out

    def functions(self) -> FunctionList:
        """(name, description, JSON schema) per tool; shared: never hand it out as it is."""
        return [(x.name, x.description, x.schema) for x in self.shapes()]

    def _value(self, fmt: str, upto: int | None = None, fresh: bool = False) -> Any:
        if fmt not in FORMATS:
            raise ValueError(f"unknown tool format {fmt!r}")
        shapes = self.shapes() if upto is None else self.shapes()[:upto]
        entries = [x.fresh(fmt) for x in shapes] if fresh else [x.entry(fmt) for x in shapes]
        if fmt.startswith("gemini"):
            return [{"function_declarations": entries}]
        return entries

    def payload(self, fmt: str) -> Any:
        copies = self._copies.get(fmt)
        if copies is None:  # two threads may both build it: the results are equal
            uses = self._uses[fmt] = self._uses.get(fmt, 0) + 1
            if uses <= FRESH_ASSEMBLIES:
                return self._value(fmt, fresh=True)
            copies = self._copies[fmt] = FreshCopies(self._value(fmt))
        return copies()

    def json_text(self, fmt: str, upto: int | None = None) -> str:
        """The payload's JSON text (of the first `upto` tools), made once: what is counted and
        what a cache key is derived from."""
        key = (fmt, -1 if upto is None else upto)
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = dumps_json(self._value(fmt, upto), indent=None)
        return text

    def strict(self) -> tuple[bool, ...]:
        """Per tool, whether its OpenAI definition is strict."""
        return tuple(x.strict is not None for x in self.shapes())

    def builtin_tools(self) -> tuple[BuiltinTool, ...]:
        """The offered built-in tools as the call checker reads them (made once per set)."""
        tools = self._builtins
        if tools is None:
            tools = self._builtins = builtin_tools(self._specs, self._sources)
        return tools

    @property
    def cache(self) -> Cache:
        """The plan's memo, where call validators for MCP schemas are kept too."""
        return self._cache

    @property
    def count(self) -> int:
        return len(self._specs) + len(self._mcp)


@attrs.frozen
class ToolSet:
    """The offered tools: specs (built-in block first, then per-session ones), the MCP tools
    offered natively, their native JSON per provider, and their calls read back."""

    mode: ActiveToolMode
    specs: tuple[ToolSpec, ...]
    mcp: tuple[McpBinding, ...] = ()
    skills: tuple[Skill, ...] = attrs.field(default=(), repr=False)
    native: NativeTools | None = attrs.field(default=None, eq=False, repr=False)
    choice: ToolModeChoice | None = attrs.field(default=None, eq=False, repr=False)
    context: PromptContext | None = attrs.field(default=None, eq=False, repr=False)
    provider: ProviderInfo | None = attrs.field(default=None, eq=False, repr=False)
    desk: CallDesk | None = attrs.field(default=None, eq=False, repr=False)
    # dynamic="message" with native tools: the session's tools in their generic form (MCP
    # through use_mcp_tool, skill names without an enum); calls are still held to the session's
    shared: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        """Every offered tool's name, in the order sent (MCP tools by their function name)."""
        return tuple(s.name for s in self.specs) + tuple(b.native_name for b in self.mcp)

    @property
    def stable(self) -> int:
        """How many tools (from the start of `names`) form the built-in block, the part that
        is the same in every session of this variant, features, mode and model."""
        return self._tools().stable

    @property
    def decided_by(self) -> str:
        """Which link of the tool-mode chain decided `mode` (client, variant, model, default)."""
        return self.choice.decided_by if self.choice is not None else "variant"

    def _tools(self) -> NativeTools:
        native = self.native
        if native is None:
            from .._model.tools import enum_sources
            native = NativeTools(self.specs, enum_sources(self.specs, self.skills), self.mcp)
            object.__setattr__(self, "native", native)
        return native

    def _payload(self, fmt: str) -> Any:
        return self._tools().payload(fmt)

    def functions(self) -> FunctionList:
        """(name, description, JSON schema) for every offered tool (a fresh copy)."""
        return [(n, d, s) for n, d, s in self._payload("functions")]

    def openai(self, api: Literal["chat", "responses"] = "chat", strict: bool = True
               ) -> list[dict[str, Any]]:
        """OpenAI `tools`: Chat Completions shape, or the flat Responses API shape.

        `strict=True` (default): every tool whose schema strict mode can express is sent with
        `strict: true` and its schema in strict form (every property required, the optional
        ones nullable, `additionalProperties: false` throughout); the others keep their schema
        with `strict: false`. A strict model sends null for an optional argument it leaves out:
        `decode()` removes those nulls. `strict=False`: plain schemas, optional parameters
        optional (Chat: no `strict` key; Responses: `strict: false`).
        """
        if api not in ("chat", "responses"):
            raise ValueError(f"api must be 'chat' or 'responses', got {api!r}")
        fmt = ("openai" if api == "chat" else "openai-responses") + ("" if strict else "-loose")
        result: list[dict[str, Any]] = self._payload(fmt)
        return result

    def anthropic(self) -> list[dict[str, Any]]:
        """Anthropic `tools` (`input_schema`: JSON Schema with an object root)."""
        result: list[dict[str, Any]] = self._payload("anthropic")
        return result

    def gemini(self, schema: Literal["openapi", "json"] = "openapi") -> list[dict[str, Any]]:
        """Gemini `tools`: one `function_declarations` list. `schema="openapi"` (default):
        `parameters` in Gemini's OpenAPI subset (type lists → `nullable`, `$ref` resolved,
        unknown keywords dropped, left out for a tool without arguments); `schema="json"`:
        `parameters_json_schema`, the JSON Schema as it is (models that accept it)."""
        if schema not in ("openapi", "json"):
            raise ValueError(f"schema must be 'openapi' or 'json', got {schema!r}")
        result: list[dict[str, Any]] = self._payload("gemini" if schema == "openapi"
                                                     else "gemini-json")
        return result

    def for_format(self, fmt: WireFormat) -> list[dict[str, Any]]:
        """The tools in one provider's shape (OpenAI: Chat Completions, strict)."""
        if fmt == "anthropic":
            return self.anthropic()
        if fmt == "gemini":
            return self.gemini()
        return self.openai()

    def json_text(self, fmt: str = "openai", upto: int | None = None) -> str:
        """The JSON text of a format's payload (`openai`, `openai-responses`, `anthropic`,
        `gemini`, …; of its first `upto` tools): what token counts and cache keys use."""
        return self._tools().json_text(fmt, upto)

    def strict_flags(self) -> dict[str, bool]:
        """Tool name → whether OpenAI strict mode takes its schema (see `openai()`)."""
        return dict(zip(self.names, self._tools().strict()))

    def mcp_target(self, native_name: str) -> tuple[str, str] | None:
        """(server, tool) an MCP function name routes to, for the client's dispatcher."""
        for b in self.mcp:
            if b.native_name == native_name:
                return b.server, b.tool
        return None

    # --- calls coming back --------------------------------------------------------------------

    def _session_options(self) -> tuple[BuiltinTool, ...]:
        """Shared tools: the built-in tools as the checker reads them, with the options the
        session's skills give (its schemas have none)."""
        from .._model.tools import enum_sources
        return builtin_tools(self.specs, enum_sources(self.specs, self.skills))

    def _calls(self, mode: str | None = None) -> CallDesk:
        desk = self.desk
        if desk is None:
            native = self._tools()
            context = self.context if self.context is not None else PromptContext()
            tools = native.builtin_tools() if not self.shared else self._session_options()
            desk = CallDesk.build(tools, mcp_entries(context.mcp_servers, self.mcp),
                                  context.mode, native.cache, native=self.mode == "native")
            object.__setattr__(self, "desk", desk)
        if mode is not None and mode not in ("plan", "act"):
            raise ValueError(f"mode must be 'plan' or 'act', got {mode!r}")
        return desk.in_mode(mode)

    def parse(self, text: str, partial: bool = False, *,
              mode: Literal["plan", "act"] | None = None) -> ParsedMessage:
        """The call in a reply written in the text format (the text variants teach it), with
        the prose around it, every problem as a `CallError` (unknown tool or parameter, a value
        of the wrong type, a call the mode rules out, a second call) and the warnings a client
        may pass on (`parsed.warnings`). Never raises on what the model wrote. `partial=True`:
        `text` is a streamed prefix; a call still being written is `open`. `mode`: check
        against another mode than the prompt's (a run that switched)."""
        return self._calls(mode).parse(text, partial)

    def decode(self, name: str, arguments: str | Mapping[str, Any] | None, *,
               mode: Literal["plan", "act"] | None = None) -> ToolCall | CallError:
        """A native call (its name and arguments, as JSON text or decoded) through the same
        checks as a text call: nulls strict mode made the model send for optional parameters
        removed, an MCP function checked against its server's input schema and given its
        server and tool, a call the mode rules out refused."""
        return self._calls(mode).decode(name, arguments)

    def check(self, call: Any, *, mode: Literal["plan", "act"] | None = None
              ) -> ToolCall | CallError:
        """A provider's own call object (an Anthropic `tool_use` block, an OpenAI Chat
        `tool_call` or Responses `function_call`, a Gemini function call; SDK object or JSON)
        checked: a `ToolCall` to run (its `tool_result(output)` is the answer in the same API's
        shape) or a `CallError` whose `tool_result()` is the ready error result to send."""
        return self._calls(mode).check(call)

    def format_call(self, name: str, arguments: Mapping[str, Any]) -> str:
        """A call written in the text format (for a history or a test); parsing it gives the
        same arguments back, whatever they hold."""
        return self._calls().format_call(name, arguments)

    def allowed_in(self, mode: Literal["plan", "act"]) -> frozenset[str]:
        """Names of the offered tools that `mode` allows. The built-in variants offer the
        same tools in both modes (so a mode switch keeps the cached prefix) and say in the
        prompt's mode section what the current mode allows; a tool declares its modes
        (`modes = ["act"]`), and in plan mode an MCP tool is allowed only when its server marks
        it read-only (`readOnlyHint`). `parse`, `decode` and `check` refuse the rest."""
        if mode not in ("plan", "act"):
            raise ValueError(f"mode must be 'plan' or 'act', got {mode!r}")
        context = self.context if self.context is not None else PromptContext()
        return frozenset((*self._builtins_allowed(context, mode),
                          *self._mcp_allowed(context, mode)))

    def _builtins_allowed(self, context: PromptContext, mode: Literal["plan", "act"]
                          ) -> list[str]:
        provider = self.provider if self.provider is not None else ProviderInfo()
        other = attrs.evolve(context, mode=mode) if context.mode != mode else context
        return [s.name for s in self.specs if mode in s.modes and (
            "mode" not in s.when.reads or s.when.test(other, provider, self.mode))]

    def _mcp_allowed(self, context: PromptContext, mode: str) -> list[str]:
        if mode == "act":
            return [b.native_name for b in self.mcp]
        read_only = {(server.name, tool.name) for server in context.mcp_servers
                     for tool in server.tools if tool.read_only}
        return [b.native_name for b in self.mcp if (b.server, b.tool) in read_only]
