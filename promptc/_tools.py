"""Tool specs: loaded from data, filtered per request, rendered as prompt text or native JSON.

A spec's prose (description, parameter instructions) lives in `components/tools/<name>.toml`;
this module only shapes it: which tools and parameters apply to a request, and how each provider
wants the JSON Schema wrapped.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from ._conditions import ALWAYS, Condition, compile_condition
from ._context import McpServer, PromptContext, Skill
from ._errors import ToolSpecError
from ._frozen import EMPTY, FrozenDict, freeze, thaw
from ._provider import ProviderInfo
from ._schema import build_record
from ._suggest import did_you_mean

__all__ = ["ToolParameter", "ToolSpec", "McpBinding", "load_tool_file", "parse_tool",
           "enabled_tools", "parameters_for", "json_schema", "mcp_bindings", "sanitize_tool_name",
           "to_openai", "to_openai_responses", "to_anthropic", "to_gemini", "catalogue_data",
           "PARAM_TYPES", "NAME_PATTERN"]

PARAM_TYPES = ("string", "integer", "number", "boolean", "array", "object")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
ENUM_SOURCES = ("skills", "skill_references")


def _names(value: Any) -> tuple[str, ...]:
    return tuple(value) if value else ()


@attrs.frozen
class ToolParameter:
    """One parameter: its JSON type, whether required, the instruction the model reads."""

    name: str
    type: str = "string"
    required: bool = False
    instruction: str = ""
    usage: str = ""
    enum: tuple[str, ...] = attrs.field(default=(), converter=_names)
    items: FrozenDict = attrs.field(default=EMPTY, converter=freeze)
    depends_on: tuple[str, ...] = attrs.field(default=(), converter=_names)
    enum_from: str = ""


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


@attrs.frozen
class _ToolFile:
    name: str
    description: str
    parameters: tuple[ToolParameter, ...] = ()
    when: FrozenDict = EMPTY
    override: bool = False
    example: str = ""


def parse_tool(data: Mapping[str, Any], *, origin: str, source: str = "builtin",
               expected_name: str | None = None) -> ToolSpec:
    """Validate one tool table (from TOML or a plugin) into a ToolSpec."""
    raw = build_record(_ToolFile, data, source=origin, error=ToolSpecError)
    if not NAME_PATTERN.match(raw.name):
        raise ToolSpecError(f"tool name {raw.name!r} must be 1-64 characters of [A-Za-z0-9_-]",
                            source=origin, field="name")
    if expected_name is not None and raw.name != expected_name:
        raise ToolSpecError(f"name {raw.name!r} does not match the file name {expected_name!r}",
                            source=origin, field="name")
    if not raw.description.strip():
        raise ToolSpecError("description is empty", source=origin, field="description")
    seen: set[str] = set()
    for i, p in enumerate(raw.parameters):
        field = f"parameters[{i}]"
        if not NAME_PATTERN.match(p.name):
            raise ToolSpecError(f"parameter name {p.name!r} must be [A-Za-z0-9_-]",
                                source=origin, field=f"{field}.name")
        if p.name in seen:
            raise ToolSpecError(f"duplicate parameter {p.name!r}", source=origin,
                                field=f"{field}.name")
        seen.add(p.name)
        if p.type not in PARAM_TYPES:
            raise ToolSpecError(f"type must be one of {list(PARAM_TYPES)}" +
                                did_you_mean(p.type, PARAM_TYPES), source=origin,
                                field=f"{field}.type")
        if not p.instruction.strip():
            raise ToolSpecError("instruction is empty", source=origin,
                                field=f"{field}.instruction")
        if p.enum_from and p.enum_from not in ENUM_SOURCES:
            raise ToolSpecError(f"enum_from must be one of {list(ENUM_SOURCES)}",
                                source=origin, field=f"{field}.enum_from")
        if p.enum and p.enum_from:
            raise ToolSpecError("give either `enum` or `enum_from`, not both", source=origin,
                                field=f"{field}.enum_from")
        if p.items and p.type != "array":
            raise ToolSpecError("`items` applies only to arrays", source=origin,
                                field=f"{field}.items")
        if p.name in p.depends_on or raw.name in p.depends_on:
            raise ToolSpecError("a parameter cannot depend on its own tool", source=origin,
                                field=f"{field}.depends_on")
        if p.required and p.depends_on:
            raise ToolSpecError("a required parameter cannot depend on other tools",
                                source=origin, field=f"{field}.depends_on")
    when = compile_condition(raw.when, origin, "when", ToolSpecError) if raw.when else ALWAYS
    return ToolSpec(name=raw.name, description=raw.description.strip(),
                    parameters=raw.parameters, when=when, override=raw.override, source=source,
                    origin=origin, example=raw.example.strip("\n"))


def load_tool_file(path: Path, source: str) -> ToolSpec:
    from ._loader import read_text_file
    text = read_text_file(path, ToolSpecError)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        from ._context import _raise_toml
        return _raise_toml(ToolSpecError, exc, path, text)
    except RecursionError:
        raise ToolSpecError("invalid TOML: nested too deeply", source=str(path)) from None
    return parse_tool(data, origin=str(path), source=source, expected_name=path.stem)


def enabled_tools(specs: Sequence[ToolSpec], context: PromptContext, provider: ProviderInfo,
                  tool_mode: str,
                  on_error: Callable[[ToolSpec, Exception], None] | None = None
                  ) -> tuple[ToolSpec, ...]:
    """The specs whose condition holds; a raising condition drops the tool and is reported."""
    out = []
    for spec in specs:
        try:
            ok = spec.when.test(context, provider, tool_mode)
        except Exception as exc:  # a plugin's condition: never let it break the build
            if on_error is None:
                raise
            on_error(spec, exc)
            continue
        if ok:
            out.append(spec)
    return tuple(out)


def _enum_values(param: ToolParameter, skills: Sequence[Skill]) -> tuple[str, ...]:
    if param.enum_from == "skills":
        return tuple(s.name for s in skills)
    if param.enum_from == "skill_references":
        seen: dict[str, None] = {}
        for s in skills:
            for ref in s.references:
                seen.setdefault(ref, None)
        return tuple(seen)
    return param.enum


def parameters_for(spec: ToolSpec, enabled: frozenset[str],
                   skills: Sequence[Skill] = ()) -> list[tuple[ToolParameter, tuple[str, ...]]]:
    """Parameters whose tool dependencies are all enabled, with their effective enum."""
    return [(p, _enum_values(p, skills)) for p in spec.parameters
            if all(d in enabled for d in p.depends_on)]


def json_schema(spec: ToolSpec, enabled: frozenset[str],
                skills: Sequence[Skill] = ()) -> dict[str, Any]:
    props: dict[str, Any] = {}
    required: list[str] = []
    for p, enum in parameters_for(spec, enabled, skills):
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


def sanitize_tool_name(name: str) -> str:
    """Map any string to 1-64 characters of [A-Za-z0-9_-]; long names keep a hash suffix."""
    clean = _BAD_CHARS.sub("_", name).strip("_") or "tool"
    if len(clean) > 64:
        digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
        clean = clean[:55] + "_" + digest
    return clean


def mcp_bindings(servers: Sequence[McpServer], taken: Iterable[str],
                 report: Callable[[str, str], None] | None = None) -> tuple[McpBinding, ...]:
    """Name every MCP tool for native calling, deterministically and without collisions.

    A tool keeps its own (sanitized) name when free; a name that is reserved by a built-in tool or
    already taken becomes `<server>__<tool>`, then gets a hash suffix if that is taken too.
    Every rename is reported.
    """
    used = set(taken)
    reserved = frozenset(used)
    out: list[McpBinding] = []
    for server in servers:
        for tool in server.tools:
            name = sanitize_tool_name(tool.name)
            if name in used:
                why = ("is reserved by a built-in tool" if name in reserved else
                       "is already taken by another MCP tool")
                candidate = sanitize_tool_name(f"{server.name}__{tool.name}")
                if candidate in used:
                    digest = hashlib.sha256(f"{server.name}\0{tool.name}".encode()).hexdigest()
                    candidate = sanitize_tool_name(candidate[:55] + "_" + digest[:8])
                    n = 2
                    base = candidate
                    while candidate in used:
                        candidate = sanitize_tool_name(f"{base[:60]}_{n}")
                        n += 1
                if report is not None:
                    report(f"{server.name}/{tool.name}",
                           f"MCP tool {tool.name!r} of server {server.name!r}: name {name!r} "
                           f"{why}; offered natively as {candidate!r}")
                name = candidate
            elif name != tool.name and report is not None:
                report(f"{server.name}/{tool.name}",
                       f"MCP tool {tool.name!r} of server {server.name!r} is not a valid "
                       f"function name; offered natively as {name!r}")
            used.add(name)
            out.append(McpBinding(name, server.name, tool.name, tool.description,
                                  tool.input_schema))
    return tuple(out)


def _mcp_schema(binding: McpBinding) -> dict[str, Any]:
    schema = thaw(binding.input_schema) if binding.input_schema else {}
    if not isinstance(schema, dict) or schema.get("type") != "object":
        schema = {"type": "object", "properties": {}}
    schema.setdefault("properties", {})
    return schema


def _mcp_description(binding: McpBinding) -> str:
    return binding.description.strip() or f"{binding.tool} (MCP server {binding.server})"


# --- provider wrappings ------------------------------------------------------------------------

FunctionList = list[tuple[str, str, dict[str, Any]]]  # (name, description, JSON schema)


def to_openai(functions: FunctionList) -> list[dict[str, Any]]:
    """Chat Completions `tools`."""
    return [{"type": "function",
             "function": {"name": n, "description": d, "parameters": s}}
            for n, d, s in functions]


def to_openai_responses(functions: FunctionList) -> list[dict[str, Any]]:
    """Responses API `tools` (flat function objects)."""
    # `strict` is spelled out: the Responses API may default to strict schemas, which reject
    # optional parameters (built-in tools have several).
    return [{"type": "function", "name": n, "description": d, "parameters": s, "strict": False}
            for n, d, s in functions]


def to_anthropic(functions: FunctionList) -> list[dict[str, Any]]:
    return [{"name": n, "description": d, "input_schema": s} for n, d, s in functions]


_GEMINI_DROP = frozenset({"$schema", "additionalProperties", "$id", "$defs", "definitions",
                          "$ref", "$comment", "examples", "default", "const", "patternProperties",
                          "unevaluatedProperties", "dependentRequired", "if", "then", "else"})


def _gemini_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Gemini accepts an OpenAPI subset: drop the JSON Schema keywords it rejects (iteratively)."""
    root: dict[str, Any] = {}
    stack: list[tuple[Any, Any, Any]] = [(schema, None, None)]
    result: Any = None
    while stack:
        node, parent, key = stack.pop()
        if isinstance(node, dict):
            out: Any = {}
            for k, v in node.items():
                if k in _GEMINI_DROP and not (parent is not None and key == "properties"):
                    continue
                out[k] = None
                stack.append((v, out, k))
        elif isinstance(node, list):
            out = [None] * len(node)
            for i, v in enumerate(node):
                stack.append((v, out, i))
        else:
            out = node
        if parent is None:
            result = out
        else:
            parent[key] = out
    return result if isinstance(result, dict) else root


def to_gemini(functions: FunctionList) -> list[dict[str, Any]]:
    return [{"function_declarations": [
        {"name": n, "description": d, "parameters": _gemini_schema(s)} for n, d, s in functions]}]


def functions_for(specs: Sequence[ToolSpec], mcp: Sequence[McpBinding],
                  skills: Sequence[Skill]) -> FunctionList:
    enabled = frozenset(s.name for s in specs)
    out: FunctionList = [(s.name, s.description, json_schema(s, enabled, skills)) for s in specs]
    out.extend((b.native_name, _mcp_description(b), _mcp_schema(b)) for b in mcp)
    return out


def catalogue_data(specs: Sequence[ToolSpec], skills: Sequence[Skill]) -> list[dict[str, Any]]:
    """What the text-catalogue template iterates over: one entry per enabled tool."""
    enabled = frozenset(s.name for s in specs)
    tools = []
    for spec in specs:
        params = []
        for p, enum in parameters_for(spec, enabled, skills):
            params.append({
                "name": p.name, "type": p.type, "required": p.required,
                "optional": not p.required, "instruction": p.instruction.strip(),
                "options": list(enum), "has_options": bool(enum),
                "options_joined": ", ".join(enum), "usage": p.usage or p.name,
            })
        tools.append({"name": spec.name, "description": spec.description,
                      "parameters": params, "has_parameters": bool(params),
                      "example": spec.example, "has_example": bool(spec.example)})
    return tools
