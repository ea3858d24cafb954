"""The tools of one request: which are offered, how, their native JSON per provider, and how
calls come back.

Order on the wire: the built-in block first (tools whose presence depends only on the variant,
the features, the mode and the model, in the variant's order), then the per-session tools (those
that depend on MCP servers, skills, rules, attachments or workspace roots, such as the
skill-loading tools with their enum of skill names), then the MCP tools. So the built-in block is
byte-identical across sessions, and a cache breakpoint after it is shared by all of them.

The built-in block's JSON is made once per distinct block (`ToolBlock`, keyed by the offered specs
and what their option lists come from) and shared by every request that offers it; a session's
MCP tools are made per request straight in the provider's shape, from schema forms kept by schema
(see entries.py). Every call hands out a fresh copy, so a client may change what it gets. What
conversion finds wrong in an MCP server's schema is reported per wire format
(`NativeTools.diagnostics`). An MCP description is the server's words after its provenance
mark, `[MCP <server>] …` (components/wire.toml, promptc/_emit/wording.py), in every format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import attrs

from .._base.frozen import FreshCopies, dumps_json, thaw
from .._base.memo import Cache, NoCache
from .._model.context import PromptContext, Skill
from .._model.diagnostics import Diagnostic
from .._model.provider import ProviderInfo
from .._model.tools import EnumSources, McpBinding, ToolSpec, json_schema, per_session
from .._model.variant import ActiveToolMode, ToolModeChoice
from .._text.control import neutral_annotations
from .._model.formats import TOOL_FORMS, default_openai_api, format_named, provider_format
from .entries import FORMATS, FunctionList, SchemaForms, Shape, tool_entry
from .schemas import SchemaProblem, checked_root
from .wording import mcp_description, strict_reword

if TYPE_CHECKING:  # the call checker is loaded when a call first comes back
    from .._calls.checker import BuiltinTool
    from .._calls.desk import CallDesk
    from .._calls.records import CallError, ParsedMessage, ToolCall

# Shape, SchemaForms and FORMATS live in entries.py and are found here too.
__all__ = ["ToolSet", "NativeTools", "ToolBlock", "Shape", "SchemaForms", "FunctionList",
           "FORMATS", "wire_format", "default_openai_api"]


def wire_format(provider: ProviderInfo) -> str:
    """The id of the format a provider's own API takes (see `provider_format`): what the
    native tools are counted and checked as."""
    return provider_format(provider).id


def _wrapped(fmt: str, entries: list[Any]) -> Any:
    """A tool format's payload around its entries (Gemini's is one `function_declarations`
    list)."""
    return TOOL_FORMS[fmt][0].wrap(entries) if fmt in TOOL_FORMS else entries


def _mcp_forms(binding: McpBinding) -> SchemaForms:
    """An MCP server's schema as an object root, its malformed keyword values dropped (each a
    problem reported with the tool)."""
    # the schema's prose reaches the model: no control token in it (promptc._text.control)
    checked = checked_root(neutral_annotations(thaw(binding.input_schema))
                           if binding.input_schema else {})
    assert checked.schema is not None
    return SchemaForms(checked.schema, checked.problems)


def _mcp_description(binding: McpBinding) -> str:
    """The server's words after its provenance mark (components/wire.toml), fenced as the
    text prompt fences them; a tool without a description is named instead."""
    return mcp_description(binding.server, binding.tool, binding.description)


def _diagnostic(binding: McpBinding, problem: SchemaProblem) -> Diagnostic:
    return Diagnostic("warning", problem.code,
                      f"MCP tool {binding.tool!r} of server {binding.server!r} (function "
                      f"{binding.native_name!r}), input schema: {problem.message()}",
                      f"{binding.server}/{binding.tool}")


FRESH_ASSEMBLIES = 2  # a tool set's first payloads are assembled from its tools' own copies


class ToolBlock:
    """The built-in tools a request offers (the specs whose conditions hold, and what their
    option lists come from) as each provider wants them: made once per distinct block, shared
    by every request that offers it (sessions differ in their MCP tools, rarely here). Its
    entries are never handed out: `fresh` gives new ones."""

    __slots__ = ("specs", "sources", "shapes", "stable", "_copies", "_builtins")

    def __init__(self, specs: tuple[ToolSpec, ...], sources: EnumSources) -> None:
        self.specs = specs
        self.sources = sources
        enabled = frozenset(s.name for s in specs)
        self.shapes = tuple(Shape(s.name, s.description, SchemaForms(
            json_schema(s, enabled, sources), reword=strict_reword,
            open_form=json_schema(s, enabled, sources, closed=False)), bool(s.freeform))
            for s in specs)
        stable = 0
        for spec in specs:
            if per_session(spec):
                break
            stable += 1
        self.stable = stable  # leading specs in the built-in block
        self._copies: dict[str, FreshCopies] = {}
        self._builtins: tuple[BuiltinTool, ...] | None = None

    def fresh(self, fmt: str) -> list[Any]:
        """New entries of every tool in a format (a copy of the block, made at once)."""
        copies = self._copies.get(fmt)
        if copies is None:  # two threads may both make it: the results are equal
            copies = self._copies[fmt] = FreshCopies([x.entry(fmt) for x in self.shapes])
        entries: list[Any] = copies()
        return entries

    def builtin_tools(self) -> tuple[BuiltinTool, ...]:
        """The tools as the call checker reads them (made once per block)."""
        tools = self._builtins
        if tools is None:
            from .._calls.desk import builtin_tools
            tools = self._builtins = builtin_tools(self.specs, self.sources)
        return tools


class NativeTools:
    """The native definitions of one tool set, handed out as fresh copies; also the parser of
    its calls and the JSON text that is counted and keyed.

    A tool set is a built-in block (shared, see ToolBlock) and the session's MCP tools, whose
    schema forms come from `cache`, the plan's memo, keyed by the schema's JSON text: a new
    session whose servers only changed their names converts no schema again, and its entries
    are built straight in the provider's shape. The first payloads of a set are assembled from
    those copies; from the third on, the whole payload is copied at once (FreshCopies), which
    is faster for a set that keeps coming back.
    """

    __slots__ = ("_block", "_mcp", "_mcp_forms", "_copies", "_uses", "_texts", "_cache")

    def __init__(self, specs: tuple[ToolSpec, ...], sources: EnumSources,
                 mcp: tuple[McpBinding, ...], cache: Cache | None = None,
                 block: ToolBlock | None = None) -> None:
        self._block = block if block is not None else ToolBlock(specs, sources)
        self._mcp = mcp
        self._cache: Cache = cache if cache is not None else NoCache()
        self._mcp_forms: list[SchemaForms] | None = None
        self._copies: dict[str, FreshCopies] = {}
        self._uses: dict[str, int] = {}
        self._texts: dict[tuple[str, int], str] = {}

    @property
    def stable(self) -> int:
        return self._block.stable

    def with_mcp(self, mcp: tuple[McpBinding, ...]) -> NativeTools:
        """This set's block with a session's MCP tools after it."""
        return NativeTools(self._block.specs, self._block.sources, mcp, self._cache,
                           self._block)

    def _forms(self) -> list[SchemaForms]:
        """Each MCP tool's schema forms (kept by the plan by schema text)."""
        made = self._mcp_forms
        if made is None:
            cache = self._cache
            made = []
            for b in self._mcp:
                key = ("schema", b.input_schema.json_text)
                forms = cache.get(key)
                if forms is None:
                    forms = cache.put(key, _mcp_forms(b))
                made.append(forms)
            self._mcp_forms = made
        return made

    def shapes(self) -> list[Shape]:
        return [*self._block.shapes, *(Shape(b.native_name, _mcp_description(b), forms)
                                       for b, forms in zip(self._mcp, self._forms()))]

    def _fresh_mcp(self, fmt: str) -> list[Any]:
        """New entries of the MCP tools."""
        return [tool_entry(fmt, b.native_name, _mcp_description(b), forms, forms.copy)
                for b, forms in zip(self._mcp, self._forms())]

    def functions(self) -> FunctionList:
        """(name, description, JSON schema) per tool; shared: never hand it out as it is."""
        return [(x.name, x.description, x.schema) for x in self.shapes()]

    def _value(self, fmt: str, upto: int | None = None) -> Any:
        """The payload made of the tools' shared entries (never handed out as it is)."""
        if fmt not in FORMATS:
            raise ValueError(f"unknown tool format {fmt!r}")
        shapes = self.shapes() if upto is None else self.shapes()[:upto]
        return _wrapped(fmt, [x.entry(fmt) for x in shapes])

    def payload(self, fmt: str) -> Any:
        copies = self._copies.get(fmt)
        if copies is None:  # two threads may both build it: the results are equal
            if fmt not in FORMATS:
                raise ValueError(f"unknown tool format {fmt!r}")
            uses = self._uses[fmt] = self._uses.get(fmt, 0) + 1
            if uses <= FRESH_ASSEMBLIES:
                entries = self._block.fresh(fmt)
                if self._mcp:
                    entries += self._fresh_mcp(fmt)
                return _wrapped(fmt, entries)
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

    def diagnostics(self, fmt: str) -> tuple[Diagnostic, ...]:
        """What is wrong with the MCP tools' input schemas as wire format `fmt` (a format's
        id) sends them by default: each a warning naming the tool and the keyword."""
        kind = format_named(fmt).forms[0].dialect
        return tuple(_diagnostic(b, p) for b, forms in zip(self._mcp, self._forms())
                     if forms.problems(kind) for p in forms.problems(kind))

    def strict(self) -> tuple[bool, ...]:
        """Per tool, whether its OpenAI definition is strict."""
        return tuple(x.strict is not None for x in self.shapes())

    def builtin_tools(self) -> tuple[BuiltinTool, ...]:
        """The offered built-in tools as the call checker reads them (made once per block)."""
        return self._block.builtin_tools()

    @property
    def cache(self) -> Cache:
        """The plan's memo, where call validators for MCP schemas are kept too."""
        return self._cache

    @property
    def count(self) -> int:
        return len(self._block.specs) + len(self._mcp)


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

    def openai(self, api: Literal["chat", "responses"] | None = None, strict: bool = True
               ) -> list[dict[str, Any]]:
        """OpenAI `tools`: Chat Completions shape, or the flat Responses API shape (`api=None`:
        the one the model speaks, `default_openai_api`, as `to_openai` picks it).

        `strict=True` (default): every tool whose schema strict mode can express is sent with
        `strict: true` and its schema in strict form (every property required, the optional
        ones nullable, `additionalProperties: false` throughout); the others keep their schema
        with `strict: false`. A strict model sends null for an optional argument it leaves out:
        `decode()` removes those nulls. `strict=False`: plain schemas, optional parameters
        optional (Chat: no `strict` key; Responses: `strict: false`).
        """
        if api is None:
            api = default_openai_api(self.provider if self.provider is not None
                                     else ProviderInfo())
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

    def definitions(self, fmt: str) -> Any:
        """The native definitions in any tool format, a fresh copy: a format's id (its
        default form: `anthropic`, `gemini`…) or another of its forms (`openai-loose`,
        `gemini-json`; promptc/_model/formats.py lists them). `openai()`, `anthropic()` and
        `gemini()` pick the form by their options."""
        if fmt not in TOOL_FORMS:
            raise ValueError(f"unknown tool format {fmt!r}; known: {', '.join(TOOL_FORMS)}")
        return self._payload(fmt)

    def json_text(self, fmt: str = "openai", upto: int | None = None) -> str:
        """The JSON text of a tool format's payload (`openai`, `openai-responses`,
        `anthropic`, `gemini`, …; of its first `upto` tools): what token counts and cache keys
        use."""
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
        from .._calls.desk import builtin_tools
        from .._model.tools import enum_sources
        return builtin_tools(self.specs, enum_sources(self.specs, self.skills))

    def _calls(self, mode: str | None = None) -> CallDesk:
        desk = self.desk
        if desk is None:
            native = self._tools()
            context = self.context if self.context is not None else PromptContext()
            from .._calls.desk import CallDesk, mcp_entries
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
        `tool_call` or Responses `function_call`, a Gemini function call: any format's,
        promptc/_model/formats.py; SDK object or JSON) checked: a `ToolCall` to run (its
        `tool_result(output)` is the answer in the same API's shape) or a `CallError` whose
        `tool_result()` is the ready error result to send."""
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
