"""Tool specs: loaded from data, filtered per request, rendered as prompt text or native JSON.

A spec's prose (description, parameter instructions) lives in `components/tools/<name>.toml`;
this module only shapes it: which tools and parameters apply to a request, and how each provider
wants the JSON Schema wrapped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from .._base.errors import ToolSpecError
from .._base.files import read_toml
from .._base.frozen import EMPTY, FrozenDict, freeze, thaw
from .._base.record_builder import build_record, describe, typed
from .._base.suggest import did_you_mean
from .._text.control import neutral
from .._text.fence import attribute
from .conditions import ALWAYS, Condition, compile_condition
from .context import McpServer, Skill

__all__ = ["ToolParameter", "ToolSpec", "McpBinding", "load_tool_file", "parse_tool",
           "parameters_for", "json_schema", "mcp_bindings", "sanitize_tool_name",
           "mcp_function_name", "per_session", "MCP_PREFIX", "usage_value", "options_of",
           "catalogue_data", "enum_sources", "with_carried", "sources_of", "EnumSources", "PARAM_TYPES",
           "NAME_PATTERN",
           "MODES"]

PARAM_TYPES = ("string", "integer", "number", "boolean", "array", "object")
MODES = ("plan", "act")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
ENUM_SOURCES = ("skills", "skill_references")
_STR = typed(str, ToolSpecError)
_BOOL = typed(bool, ToolSpecError)


def _names(value: Any) -> tuple[str, ...]:
    if not value:
        return ()
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise ToolSpecError(f"must be a list of strings, got {describe(value)}")
    items = tuple(value)
    if not all(isinstance(item, str) for item in items):
        raise ToolSpecError("must be a list of strings")
    return items


def _table(value: Any) -> FrozenDict:
    if not value:
        return EMPTY
    if not isinstance(value, Mapping):
        raise ToolSpecError(f"must be a table, got {describe(value)}", field="items")
    frozen: FrozenDict = freeze(dict(value))
    return frozen


@attrs.frozen
class ToolParameter:
    """One parameter: its JSON type, whether required, the instruction the model reads."""

    name: str = attrs.field(validator=_STR)
    type: str = attrs.field(default="string", validator=_STR)
    required: bool = attrs.field(default=False, validator=_BOOL)
    instruction: str = attrs.field(default="", validator=_STR)
    usage: str = attrs.field(default="", validator=_STR)
    enum: tuple[str, ...] = attrs.field(default=(), converter=_names)
    items: FrozenDict = attrs.field(default=EMPTY, converter=_table)
    depends_on: tuple[str, ...] = attrs.field(default=(), converter=_names)
    enum_from: str = attrs.field(default="", validator=_STR)
    # Carried by every call (see ToolSpec.text_parameter): documented once, in its own
    # section, not in each tool's entry of the text catalogue.
    shared: bool = attrs.field(default=False, validator=_BOOL)


@attrs.frozen
class ToolSpec:
    """A tool the model may call. `when` decides per request whether it is offered."""

    name: str
    description: str
    parameters: tuple[ToolParameter, ...] = ()
    when: Condition = ALWAYS
    override: bool = False
    source: str = "builtin"
    origin: str = ""
    example: str = ""  # a hand-written text usage example; default: built from `usage` values
    # The modes in which the model may call it. Offered in both modes either way, so the tool
    # list (and the cached prefix) does not change with the mode: the prompt's mode section
    # says what the current mode allows, and a client refuses the rest (`allowed_in`).
    modes: tuple[str, ...] = MODES
    # The one parameter whose text is the whole call where an API takes free-form tools (the
    # Responses API's `custom` tools): the model writes it raw, not as JSON. "" for none.
    freeform: str = ""
    # In text mode a call is a whole message, so a call of this tool on its own would cost a
    # turn: there it is not offered, and its one parameter rides on every other call instead,
    # optional, under this name (`with_carried`). "" for none.
    text_parameter: str = ""
    # Names a model may use for it (`edit`, `str_replace_editor`): a call to a tool nobody
    # offers is pointed at the offered tool that declares the name. None: not given (a
    # variant's own spec of a tool then keeps the shared spec's aliases).
    aliases: tuple[str, ...] | None = None


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


@attrs.frozen
class _ToolFile:
    name: str = attrs.field(validator=_STR)
    description: str = attrs.field(validator=_STR)
    parameters: tuple[ToolParameter, ...] = attrs.field(default=())
    when: FrozenDict = attrs.field(default=EMPTY, converter=_table)
    override: bool = attrs.field(default=False, validator=_BOOL)
    example: str = attrs.field(default="", validator=_STR)
    modes: tuple[Any, ...] = attrs.field(default=MODES, converter=_as_tuple)
    freeform: str = attrs.field(default="", validator=_STR)
    text_parameter: str = attrs.field(default="", validator=_STR)
    aliases: Any = None


def parse_tool(data: Mapping[str, Any], *, origin: str, source: str = "builtin",
               expected_name: str | None = None) -> ToolSpec:
    """Validate one tool table (from TOML or a plugin) into a ToolSpec."""
    raw = build_record(_ToolFile, data, source=origin, error=ToolSpecError)
    _check_tool_header(raw, origin, expected_name)
    seen: set[str] = set()
    for i, p in enumerate(raw.parameters):
        _check_parameter(p, raw.name, seen, origin, f"parameters[{i}]")
        seen.add(p.name)
    _check_modes(raw.modes, origin)
    _check_freeform(raw, origin)
    _check_text_parameter(raw, origin)
    aliases = _aliases(raw.aliases, raw.name, origin)
    when = compile_condition(raw.when, origin, "when", ToolSpecError) if raw.when else ALWAYS
    return ToolSpec(name=raw.name, description=raw.description.strip(),
                    parameters=raw.parameters, when=when, override=raw.override, source=source,
                    origin=origin, example=raw.example.strip("\n"),
                    modes=tuple(m for m in MODES if m in raw.modes), freeform=raw.freeform,
                    text_parameter=raw.text_parameter, aliases=aliases)


def _aliases(value: Any, tool: str, origin: str) -> tuple[str, ...] | None:
    """`aliases`: a list of names, each a tool name's characters, none twice (case, `_` and
    `-` aside) and none the tool's own name."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        raise ToolSpecError(f"aliases must be a list of names, got {describe(value)}",
                            source=origin, field="aliases")
    seen: dict[str, str] = {squash_name(tool): tool}
    for i, alias in enumerate(value):
        field = f"aliases[{i}]"
        if not isinstance(alias, str) or not NAME_PATTERN.match(alias):
            raise ToolSpecError(f"alias {alias!r} must be 1-64 characters of [A-Za-z0-9_-]",
                                source=origin, field=field)
        key = squash_name(alias)
        if key in seen:
            what = "the tool's own name" if seen[key] == tool else f"alias {seen[key]!r}"
            raise ToolSpecError(f"alias {alias!r} repeats {what}", source=origin, field=field)
        seen[key] = alias
    return tuple(value)


def squash_name(name: str) -> str:
    """A name as aliases compare it: lower case, without `_` and `-` (`ReadFile`, `read-file`
    and `read_file` are one name)."""
    return name.lower().replace("_", "").replace("-", "")


def _check_tool_header(raw: _ToolFile, origin: str, expected_name: str | None) -> None:
    """The tool's name (as its file is named, when it has one) and description."""
    if not NAME_PATTERN.match(raw.name):
        raise ToolSpecError(f"tool name {raw.name!r} must be 1-64 characters of [A-Za-z0-9_-]",
                            source=origin, field="name")
    if expected_name is not None and raw.name != expected_name:
        raise ToolSpecError(f"name {raw.name!r} does not match the file name {expected_name!r}",
                            source=origin, field="name")
    if not raw.description.strip():
        raise ToolSpecError("description is empty", source=origin, field="description")


def _check_parameter(p: ToolParameter, tool: str, seen: set[str], origin: str,
                     field: str) -> None:
    """One parameter, in the order a reader of the spec meets its keys."""
    if not NAME_PATTERN.match(p.name):
        raise ToolSpecError(f"parameter name {p.name!r} must be [A-Za-z0-9_-]",
                            source=origin, field=f"{field}.name")
    if p.name in seen:
        raise ToolSpecError(f"duplicate parameter {p.name!r}", source=origin,
                            field=f"{field}.name")
    if p.type not in PARAM_TYPES:
        raise ToolSpecError(f"type must be one of {list(PARAM_TYPES)}" +
                            did_you_mean(p.type, PARAM_TYPES), source=origin,
                            field=f"{field}.type")
    if not p.instruction.strip():
        raise ToolSpecError("instruction is empty", source=origin, field=f"{field}.instruction")
    _check_options(p, origin, field)
    _check_depends_on(p, tool, origin, field)


def _check_options(p: ToolParameter, origin: str, field: str) -> None:
    """What values the parameter takes: `enum` or `enum_from` (not both); `items` of arrays."""
    if p.enum_from and p.enum_from not in ENUM_SOURCES:
        raise ToolSpecError(f"enum_from must be one of {list(ENUM_SOURCES)}",
                            source=origin, field=f"{field}.enum_from")
    if p.enum and p.enum_from:
        raise ToolSpecError("give either `enum` or `enum_from`, not both", source=origin,
                            field=f"{field}.enum_from")
    if p.items and p.type != "array":
        raise ToolSpecError("`items` applies only to arrays", source=origin,
                            field=f"{field}.items")


def _check_depends_on(p: ToolParameter, tool: str, origin: str, field: str) -> None:
    """Other tools an optional parameter needs (never its own tool)."""
    if p.name in p.depends_on or tool in p.depends_on:
        raise ToolSpecError("a parameter cannot depend on its own tool", source=origin,
                            field=f"{field}.depends_on")
    if p.required and p.depends_on:
        raise ToolSpecError("a required parameter cannot depend on other tools",
                            source=origin, field=f"{field}.depends_on")


def _check_modes(modes: tuple[Any, ...], origin: str) -> None:
    """`modes` lists "plan", "act" or both, each once."""
    if (not modes or not all(isinstance(m, str) for m in modes)
            or not set(modes) <= set(MODES) or len(set(modes)) != len(modes)):
        raise ToolSpecError(f"modes must list \"plan\", \"act\" or both, got "
                            f"{list(modes)!r}", source=origin, field="modes")


def _check_freeform(raw: _ToolFile, origin: str) -> None:
    """A free-form tool's text is one value: it names the tool's only parameter, a required
    string."""
    if not raw.freeform:
        return
    params = raw.parameters
    if [p.name for p in params] != [raw.freeform] or params[0].type != "string" or \
            not params[0].required:
        raise ToolSpecError(f"freeform must name the tool's only parameter, a required string; "
                            f"got {raw.freeform!r} with parameters {[p.name for p in params]}",
                            source=origin, field="freeform")


def _check_text_parameter(raw: _ToolFile, origin: str) -> None:
    """A tool carried by every text call has one parameter, given under a valid name."""
    if not raw.text_parameter:
        return
    if not NAME_PATTERN.match(raw.text_parameter) or len(raw.parameters) != 1:
        raise ToolSpecError(f"text_parameter must be a parameter name ([A-Za-z0-9_-]) for a "
                            f"tool with one parameter; got {raw.text_parameter!r} with "
                            f"{len(raw.parameters)} parameters", source=origin,
                            field="text_parameter")


def with_carried(spec: ToolSpec, carried: Sequence[ToolSpec]) -> ToolSpec:
    """`spec` with the parameters of the `carried` tools (each one's under its
    `text_parameter` name, optional, `shared`) after its own; a name it already has is its
    own."""
    own = {p.name for p in spec.parameters}
    extra = tuple(attrs.evolve(c.parameters[0], name=c.text_parameter, required=False,
                               shared=True, depends_on=())
                  for c in carried if c.text_parameter not in own)
    return attrs.evolve(spec, parameters=spec.parameters + extra) if extra else spec


def load_tool_file(path: Path, source: str) -> ToolSpec:
    return parse_tool(read_toml(path, ToolSpecError), origin=str(path), source=source,
                      expected_name=path.stem)


EnumSources = tuple[tuple[str, tuple[str, ...]], ...]  # (skill name, its references) each


def enum_sources(specs: Sequence[ToolSpec], skills: Sequence[Skill]) -> EnumSources:
    """What the specs' option lists are taken from: skill names (and references, when a
    parameter lists them), and nothing when no parameter takes its options from skills. This,
    not the skill records, is what tool definitions depend on."""
    wanted = {p.enum_from for spec in specs for p in spec.parameters if p.enum_from}
    return sources_of(wanted, skills)


def sources_of(wanted: Collection[str], skills: Sequence[Skill]) -> EnumSources:
    """`enum_sources` for the option sources (`enum_from` values) the offered specs name.
    The names and paths are the session's text, listed to the model as options (in the native
    tool JSON too): a chat-template control token in one is neutralised here, once, so the
    option offered and the option the checker accepts are the same text."""
    if not wanted:
        return ()
    refs = "skill_references" in wanted
    return tuple((neutral(s.name), tuple(neutral(r) for r in s.references) if refs else ())
                 for s in skills)


def options_of(param: ToolParameter, sources: EnumSources = ()) -> tuple[str, ...]:
    """The options a parameter offers in a request: its `enum`, or what `enum_from` names."""
    return _enum_values(param, sources)


def _enum_values(param: ToolParameter, sources: EnumSources) -> tuple[str, ...]:
    if param.enum_from == "skills":
        return tuple(name for name, _refs in sources)
    if param.enum_from == "skill_references":
        seen: dict[str, None] = {}
        for _name, refs in sources:
            for ref in refs:
                seen.setdefault(ref, None)
        return tuple(seen)
    return param.enum


def parameters_for(spec: ToolSpec, enabled: frozenset[str], sources: EnumSources = ()
                   ) -> list[tuple[ToolParameter, tuple[str, ...]]]:
    """Parameters whose tool dependencies are all enabled, with their effective enum."""
    return [(p, _enum_values(p, sources)) for p in spec.parameters
            if all(d in enabled for d in p.depends_on)]


def json_schema(spec: ToolSpec, enabled: frozenset[str], sources: EnumSources = (),
                closed: bool = True) -> dict[str, Any]:
    """The tool's parameters as JSON Schema; `closed`: with `additionalProperties: false`
    (what OpenAI's strict mode needs; a format that does not hold a model to the schema is
    sent it open, to save the tokens: promptc/_model/formats.py)."""
    props: dict[str, Any] = {}
    required: list[str] = []
    for p, enum in parameters_for(spec, enabled, sources):
        prop: dict[str, Any] = {"type": p.type, "description": p.instruction.strip()}
        if enum:
            prop["enum"] = list(enum)
        if p.type == "array":
            prop["items"] = thaw(p.items) if p.items else {"type": "string"}
        props[p.name] = prop
        if p.required:
            required.append(p.name)
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    if closed:
        schema["additionalProperties"] = False
    return schema


# --- MCP tools as native functions -------------------------------------------------------------

@attrs.frozen
class McpBinding:
    """An MCP tool offered natively: the function name the model sees, and where it goes."""

    native_name: str
    server: str
    tool: str
    description: str
    input_schema: FrozenDict


_BAD_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
MCP_PREFIX = "mcp__"
MAX_NAME = 64


def sanitize_tool_name(name: str) -> str:
    """Map any string to 1-64 characters of [A-Za-z0-9_-]; long names keep a hash suffix."""
    clean = _BAD_CHARS.sub("_", name).strip("_") or "tool"
    if len(clean) > MAX_NAME:
        clean = clean[:55] + "_" + _digest(name)
    return clean


def _digest(*parts: str) -> str:
    import hashlib
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:8]


_CLEAN_PART = re.compile(r"[A-Za-z0-9-](?:[A-Za-z0-9_-]*[A-Za-z0-9-])?")


def _part(text: str) -> str:
    if _CLEAN_PART.fullmatch(text):  # most names: nothing to change
        return text
    return _BAD_CHARS.sub("_", text).strip("_") or "x"


def mcp_function_name(server: str, tool: str, _server_part: str | None = None) -> str:
    """`mcp__<server>__<tool>`: each part sanitized to [A-Za-z0-9_-]; when the whole would pass
    64 characters, both parts are shortened (the server to no less than 16) and a hash of the
    original names keeps the result unique."""
    s = _server_part if _server_part is not None else _part(server)
    t = _part(tool)
    name = f"{MCP_PREFIX}{s}__{t}"
    if len(name) <= MAX_NAME:
        return name
    room = MAX_NAME - len(MCP_PREFIX) - 2 - 9  # 9: "_" + an 8-digit hash
    s = s[:max(16, room - len(t))]
    t = t[:room - len(s)]
    return f"{MCP_PREFIX}{s}__{t}".rstrip("_") + "_" + _digest(server, tool)


def mcp_bindings(servers: Sequence[McpServer], taken: Iterable[str],
                 report: Callable[[str, str], None] | None = None) -> tuple[McpBinding, ...]:
    """Name every MCP tool for native calling: always `mcp__<server>__<tool>` (see
    `mcp_function_name`), deterministic and without collisions.

    A name already taken (by a tool the variant offers, or by an earlier MCP tool whose names
    sanitize alike) gets a hash of its server and tool, then a counter. Every name that is not
    the plain `mcp__<server>__<tool>` is reported. Linear in the number of tools: each base name
    remembers the next counter to try.
    """
    used = set(taken)
    counters: dict[str, int] = {}
    out: list[McpBinding] = []
    for server in servers:
        part = _part(server.name)  # once per server
        # the usual case, a server name that needs no change: `mcp__<server>__` as it is
        prefix = f"{MCP_PREFIX}{part}__" if part is server.name else ""
        for tool in server.tools:
            name, why = f"{prefix}{tool.name}", ""
            if not prefix or len(name) > MAX_NAME or _part(tool.name) is not tool.name:
                name, why = _named(server.name, tool.name, part)
            if name in used:
                name, why = _untaken(name, server.name, tool.name, used, counters), \
                    "is already taken"
            if why and report is not None:
                plain = f"{MCP_PREFIX}{server.name}__{tool.name}"
                report(f"{server.name}/{tool.name}",
                       f"MCP tool {tool.name!r} of server {server.name!r}: {plain!r} {why}; "
                       f"offered natively as {name!r}")
            used.add(name)
            out.append(McpBinding(name, server.name, tool.name, tool.description,
                                  tool.input_schema))
    return tuple(out)


def _named(server: str, tool: str, server_part: str) -> tuple[str, str]:
    """A tool's function name and, when it is not the plain `mcp__<server>__<tool>`, why."""
    tool_part = _part(tool)
    if server_part is server and tool_part is tool:  # both clean: `_part` kept them
        name = f"{MCP_PREFIX}{server}__{tool}"
        if len(name) <= MAX_NAME:
            return name, ""
    name = mcp_function_name(server, tool, server_part)
    plain = f"{MCP_PREFIX}{server}__{tool}"
    if name == plain:
        return name, ""
    return name, ("is longer than 64 characters" if len(plain) > MAX_NAME else
                  "has characters a function name cannot have")


def _untaken(name: str, server: str, tool: str, used: set[str], counters: dict[str, int]
             ) -> str:
    """A free name for a taken one: a hash of its server and tool, then a counter."""
    base = name[:55] + "_" + _digest(server, tool)
    candidate = base
    n = counters.get(base, 2)
    while candidate in used:
        suffix = f"_{n}"
        candidate = base[:MAX_NAME - len(suffix)] + suffix
        n += 1
    counters[base] = n
    return candidate


SESSION_FREE_READS = frozenset({"features", "mode", "provider"})


def per_session(spec: ToolSpec) -> bool:
    """Whether a tool's presence or schema depends on the session (MCP servers, skills, rules,
    attachments, workspace roots) rather than only on the variant, features, mode and model:
    such tools go after the built-in block, so that block is the same in every session."""
    return bool(spec.when.reads - SESSION_FREE_READS) or any(p.enum_from
                                                             for p in spec.parameters)


def usage_value(param: ToolParameter, options: Sequence[str] = ()) -> str:
    """The value a generated usage example shows: the parameter's `usage`, unless the request
    lists options it is not one of (a skill name, say): then the first option, so every example
    is a call the model may make as shown."""
    usage = param.usage or param.name
    if options and usage not in options:
        return options[0]
    return usage


def catalogue_data(specs: Sequence[ToolSpec], sources: EnumSources,
                   offered: Sequence[ToolSpec] | None = None) -> list[dict[str, Any]]:
    """What the text-catalogue template iterates over: one entry per tool in `specs` (a part
    of the `offered` tools, which decide the parameters that depend on other tools)."""
    enabled = frozenset(s.name for s in (specs if offered is None else offered))
    tools = []
    for spec in specs:
        params = []
        for p, enum in parameters_for(spec, enabled, sources):
            if p.shared:  # described once, in its own section
                continue
            if p.enum_from:  # skill names and paths are the session's text: one line, escaped
                enum = tuple(attribute(o) for o in enum)
            params.append({
                "name": p.name, "type": p.type, "required": p.required,
                "optional": not p.required, "instruction": p.instruction.strip(),
                "options": list(enum), "has_options": bool(enum),
                # fixed options are listed; a session's (skill names, reference paths) are
                # shown fenced in their own section
                "show_options": bool(enum) and not p.enum_from,
                "options_joined": ", ".join(enum), "usage": usage_value(p, enum),
            })
        tools.append({"name": spec.name, "description": spec.description,
                      "parameters": params, "has_parameters": bool(params),
                      "example": spec.example, "has_example": bool(spec.example)})
    return tools
