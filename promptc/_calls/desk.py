"""The calls side of one request's tools: every way a call comes back, through one checker.

`CallDesk` is what `ToolSet.parse`, `decode`, `check` and `format_call` delegate to. It is built
on the first call a request checks (nothing here runs on the per-request compile path): the
built-in tools' tables come from the offered specs (and are shared by every request with the same
tool set), the MCP tools from the context's servers, with their function names when they are
offered natively.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._base.frozen import thaw
from .._model.context import McpServer
from .._model.json_schema import unwritable_number
from .._model.tools import EnumSources, McpBinding, ToolSpec, parameters_for
from .call_objects import read_provider_call
from .checker import BuiltinTool, CallChecker, McpEntry, Param, Span
from .mcp_check import Cache
from .reader import MessageReader
from .records import CallError, CallProblem, ParsedMessage, Problem, ToolCall
from .taught import format_call
from .values import load_json, pairs

__all__ = ["CallDesk", "builtin_tools", "mcp_entries", "native_given"]


def builtin_tools(specs: Sequence[ToolSpec], sources: EnumSources) -> tuple[BuiltinTool, ...]:
    """The offered tools as the checker reads them: parameters that apply (those depending on
    a tool that is not offered left out), their types, options and modes."""
    enabled = frozenset(s.name for s in specs)
    out = []
    for spec in specs:
        params = {}
        for p, options in parameters_for(spec, enabled, sources):
            items = p.items.get("type") if p.items else "string"
            params[p.name] = Param(p.name, p.type, p.required, tuple(options),
                                   items if isinstance(items, str) else None)
        out.append(BuiltinTool(spec.name, params, spec.modes, spec.freeform,
                               spec.aliases or (), spec.source == "builtin"))
    return tuple(out)


def mcp_entries(servers: Sequence[McpServer], bindings: Sequence[McpBinding]
                ) -> tuple[McpEntry, ...]:
    """Every tool of the connected servers, with its function name when offered natively."""
    functions = {(b.server, b.tool): b.native_name for b in bindings}
    return tuple(McpEntry(server.name, tool.name, _schema(tool.input_schema),
                          tool.input_schema.json_text, tool.read_only,
                          functions.get((server.name, tool.name)))
                 for server in servers for tool in server.tools)


def _schema(frozen: Any) -> Mapping[str, Any]:
    plain = thaw(frozen) if frozen else {}
    return plain if isinstance(plain, dict) else {}


def native_given(arguments: str | Mapping[str, Any] | None
                 ) -> tuple[list[tuple[str, Any]], list[CallProblem]]:
    """A native call's arguments (JSON text, decoded data or nothing) as the checker takes
    them; a key given twice is given twice (the checker reports it like a repeated tag)."""
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        return [], []
    if not isinstance(arguments, str):
        if not isinstance(arguments, Mapping):
            return [], [CallProblem(Problem.BAD_JSON, "the arguments must be a JSON object")]
        number = unwritable_number(arguments)
        if number is not None:
            return [], [CallProblem(Problem.BAD_JSON, f"the arguments hold {number} (not a "
                                    "JSON number: too large to represent, or NaN)")]
        return pairs(arguments), []
    decoded = load_json(arguments)
    if decoded.problem is not None:
        return [], [CallProblem(Problem.BAD_JSON, f"the arguments text {decoded.problem}")]
    if not isinstance(decoded.value, dict):
        return [], [CallProblem(Problem.BAD_JSON, "the arguments must be a JSON object")]
    return pairs(decoded.value), []


class CallDesk:
    """Reads, checks and writes calls for one request's tools in one mode."""

    __slots__ = ("checker", "reader")

    def __init__(self, checker: CallChecker, native: bool = False) -> None:
        self.checker = checker
        self.reader = MessageReader(checker, self.format_call, native)

    @classmethod
    def build(cls, tools: Sequence[BuiltinTool], mcp: Sequence[McpEntry], mode: str,
              cache: Cache | None = None, native: bool = False) -> CallDesk:
        """`native`: the tools go out through function calling (what warnings point at)."""
        return cls(CallChecker(tools, mcp, mode, cache), native)

    def in_mode(self, mode: str | None) -> CallDesk:
        if mode is None or mode == self.checker.mode:
            return self
        return CallDesk(self.checker.in_mode(mode), self.reader.native)

    def parse(self, text: str, partial: bool = False) -> ParsedMessage:
        return self.reader.parse(text, partial)

    def decode(self, name: str, arguments: str | Mapping[str, Any] | None,
               span: Span = Span()) -> ToolCall | CallError:
        given, problems = native_given(arguments)
        return self.checker.check_json(name, given, problems, span)

    def check(self, call: Any) -> ToolCall | CallError:
        found = read_provider_call(call)
        span = Span(call_id=found.call_id, wire=found.wire)
        if found.freeform:
            given, problems = self._freeform_given(found.name, found.arguments)
            return self.checker.check_json(found.name, given, problems, span)
        return self.decode(found.name, found.arguments, span)

    def _freeform_given(self, name: str, text: str | Mapping[str, Any] | None
                        ) -> tuple[list[tuple[str, Any]], list[CallProblem]]:
        """A free-form call's raw text as the value of its tool's one parameter; a tool that
        takes JSON arguments (or an input that is no text) is told so."""
        tool = self.checker.builtin(name)
        if tool is None and not self.checker.offers(name):  # the checker says it is unknown
            return [], []
        if tool is not None and tool.freeform and isinstance(text, str):
            return [(tool.freeform, text)], []
        return [], [CallProblem(Problem.BAD_JSON, f"{name} takes its arguments as a JSON object "
                                "in a function call, not as free-form text")]

    def format_call(self, name: str, arguments: Mapping[str, Any]) -> str:
        tool = self.checker.builtin(name)
        if tool is None:
            raise ValueError(f"tool {name!r} is not offered")
        return format_call(tool, arguments)
