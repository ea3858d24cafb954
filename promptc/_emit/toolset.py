"""The tools of one request: which are offered, how, and their native JSON per provider.

The JSON for a set of tools is built once and shared by every request that offers the same set
(`NativeTools`, keyed by the complete input: the offered specs, what their option lists come from,
and the MCP tools with their names, descriptions and schemas). Every call hands out a fresh copy,
so a client may change what it gets.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Literal

import attrs

from .._base.frozen import FreshCopies, thaw
from .._model.context import Skill
from .._model.tools import EnumSources, McpBinding, ToolSpec, json_schema
from .._model.variant import ActiveToolMode

__all__ = ["ToolSet", "NativeTools", "native_key", "FunctionList", "to_openai",
           "to_openai_responses", "to_anthropic", "to_gemini", "FORMATS"]

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
    return result if isinstance(result, dict) else {}


def to_gemini(functions: FunctionList) -> list[dict[str, Any]]:
    return [{"function_declarations": [
        {"name": n, "description": d, "parameters": _gemini_schema(s)} for n, d, s in functions]}]


FORMATS: dict[str, Callable[[FunctionList], list[Any]]] = {
    "functions": lambda fns: [[n, d, s] for n, d, s in fns],
    "openai": to_openai, "openai-responses": to_openai_responses,
    "anthropic": to_anthropic, "gemini": to_gemini,
}


def _mcp_schema(binding: McpBinding) -> dict[str, Any]:
    schema = thaw(binding.input_schema) if binding.input_schema else {}
    if not isinstance(schema, dict) or schema.get("type") != "object":
        schema = {"type": "object", "properties": {}}
    schema.setdefault("properties", {})
    return schema


def _mcp_description(binding: McpBinding) -> str:
    """The MCP server's own words, verbatim (as the text prompt shows them); a blank one gets
    a line naming the tool and its server."""
    if binding.description.strip():
        return binding.description
    return f"{binding.tool} (MCP server {binding.server})"


def native_key(specs: Sequence[ToolSpec], sources: EnumSources,
               mcp: Sequence[McpBinding]) -> Hashable:
    """The complete, typed input of a tool set's native JSON (all strings). A server's name is
    in it only where the JSON says it, so sessions that differ in server names share it."""
    return (tuple(s.name for s in specs), sources,
            tuple((b.native_name, _mcp_description(b), b.input_schema.json_text) for b in mcp))


class NativeTools:
    """The native definitions of one tool set, built once, handed out as fresh copies."""

    __slots__ = ("_specs", "_sources", "_mcp", "_copies")

    def __init__(self, specs: tuple[ToolSpec, ...], sources: EnumSources,
                 mcp: tuple[McpBinding, ...]) -> None:
        self._specs = specs
        self._sources = sources
        self._mcp = mcp
        self._copies: dict[str, FreshCopies] = {}

    def _functions(self) -> FunctionList:
        enabled = frozenset(s.name for s in self._specs)
        out: FunctionList = [(s.name, s.description, json_schema(s, enabled, self._sources))
                             for s in self._specs]
        out.extend((b.native_name, _mcp_description(b), _mcp_schema(b)) for b in self._mcp)
        return out

    def payload(self, fmt: str) -> Any:
        copies = self._copies.get(fmt)
        if copies is None:  # two threads may both build it: the results are equal
            copies = self._copies[fmt] = FreshCopies(FORMATS[fmt](self._functions()))
        return copies()


@attrs.frozen
class ToolSet:
    """Enabled tool specs (+ natively offered MCP tools), and their native JSON per provider."""

    mode: ActiveToolMode
    specs: tuple[ToolSpec, ...]
    mcp: tuple[McpBinding, ...] = ()
    skills: tuple[Skill, ...] = attrs.field(default=(), repr=False)
    native: NativeTools | None = attrs.field(default=None, eq=False, repr=False)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.specs) + tuple(b.native_name for b in self.mcp)

    def _payload(self, fmt: str) -> Any:
        native = self.native
        if native is None:
            from .._model.tools import enum_sources
            native = NativeTools(self.specs, enum_sources(self.specs, self.skills), self.mcp)
            object.__setattr__(self, "native", native)
        return native.payload(fmt)

    def functions(self) -> FunctionList:
        """(name, description, JSON schema) for every offered tool (a fresh copy)."""
        return [(n, d, s) for n, d, s in self._payload("functions")]

    def openai(self, api: Literal["chat", "responses"] = "chat") -> list[dict[str, Any]]:
        """OpenAI `tools`: Chat Completions shape, or the flat Responses API shape."""
        if api not in ("chat", "responses"):
            raise ValueError(f"api must be 'chat' or 'responses', got {api!r}")
        result: list[dict[str, Any]] = self._payload("openai" if api == "chat" else
                                                     "openai-responses")
        return result

    def anthropic(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._payload("anthropic")
        return result

    def gemini(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._payload("gemini")
        return result

    def mcp_target(self, native_name: str) -> tuple[str, str] | None:
        """(server, tool) an MCP function name routes to, for the client's dispatcher."""
        for b in self.mcp:
            if b.native_name == native_name:
                return b.server, b.tool
        return None
