"""The one call checker: a call, however it arrived, against the tools a request offers.

A call is a name and its arguments, either as text (a text call's parameter values, converted
here by each parameter's type) or as JSON values (a native call, a JSON-based model format). The
checks, in order, stop at the first that fails for the call as a whole:

1. the tool is offered (a built-in by its name, an MCP tool by its function name
   `mcp__<server>__<tool>`);
2. the current mode allows it (a built-in declares its modes; in plan mode an MCP tool is
   allowed only when its server marks it `readOnlyHint`, as the MCP specification defines it);
3. the arguments fit: no unknown or repeated parameter, each value of its type (array items
   too) and among its options, every required parameter present; an MCP tool's arguments fit
   its server's input schema (`mcp_check`), also when they come through `use_mcp_tool`, whose
   server and tool must exist and be allowed in the mode.

Every problem found at step 3 is reported, not only the first, so the model can fix the call in
one go. Messages name the tool and the parameter and are written to be sent back as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from .._base.memo import NoCache
from .._base.suggest import did_you_mean
from .mcp_check import Cache, check_arguments, value_at
from .nulls import drop_unasked_nulls
from .records import CallError, CallProblem, Problem, ToolCall
from .replies import Wire
from .unknown import squash
from .value_rules import value_problems, value_warnings
from .values import from_text, integral, load_json, repeated_keys, type_problem

__all__ = ["Param", "BuiltinTool", "McpEntry", "CallChecker", "Span", "USE_MCP_TOOL",
           "MAX_LISTED"]

USE_MCP_TOOL = "use_mcp_tool"
MAX_LISTED = 40
_MEMO = 256


@attrs.frozen
class Param:
    name: str
    type: str
    required: bool
    options: tuple[str, ...] = ()
    items: str | None = None  # an array's item type, when it is a simple one


@attrs.frozen
class BuiltinTool:
    name: str
    params: Mapping[str, Param]
    modes: tuple[str, ...] = ("plan", "act")
    freeform: str = ""  # the parameter a free-form call's raw text fills ("" for none)
    aliases: tuple[str, ...] = ()  # names a model may use for it (the spec's `aliases`)
    builtin: bool = False  # as the built-in pack defines it (`value_rules` knows its format)

    @property
    def order(self) -> tuple[str, ...]:
        return tuple(self.params)


@attrs.frozen
class McpEntry:
    """One MCP tool of a connected server, as calls reach it."""

    server: str
    tool: str
    schema: Mapping[str, Any]  # the server's input schema, as it arrived
    key: str  # its canonical JSON text (what validators are kept by)
    read_only: bool = False
    function: str | None = None  # the native function name, when offered natively

    @property
    def label(self) -> str:
        return self.function or f"{self.server}/{self.tool}"


@attrs.frozen
class Span:
    """Where a text call sits in the reply, and which API a provider call came in."""

    raw: str = ""
    start: int = 0
    end: int = 0
    call_id: str | None = None
    wire: Wire | None = None


_NO_SPAN = Span()
Given = list[tuple[str, Any]]  # (parameter, value) in the order written, repeats kept


class CallChecker:
    """Checks calls against one request's tools in one mode. Built once per tool set and mode
    (its tables are shared by `in_mode`)."""

    __slots__ = ("_tools", "_functions", "_servers", "mode", "_cache", "_not_offered",
                 "_aliases")

    def __init__(self, tools: Sequence[BuiltinTool], mcp: Sequence[McpEntry], mode: str,
                 cache: Cache | None = None) -> None:
        self._tools = {t.name: t for t in tools}
        self._functions = {m.function: m for m in mcp if m.function}
        servers: dict[str, dict[str, McpEntry]] = {}
        for m in mcp:
            servers.setdefault(m.server, {}).setdefault(m.tool, m)
        self._servers = servers
        self.mode = mode
        self._cache: Cache = cache if cache is not None else NoCache()
        self._not_offered: dict[str, CallProblem] = {}  # recent unknown names' messages
        self._aliases: dict[str, str] = {}  # an alias, squashed → the first tool declaring it
        for tool in tools:
            for alias in tool.aliases:
                self._aliases.setdefault(squash(alias), tool.name)

    def in_mode(self, mode: str) -> CallChecker:
        if mode == self.mode:
            return self
        other = object.__new__(CallChecker)
        other._tools, other._functions = self._tools, self._functions
        other._servers, other._cache, other.mode = self._servers, self._cache, mode
        other._not_offered = self._not_offered  # the message does not depend on the mode
        other._aliases = self._aliases
        return other

    # --- what is offered ----------------------------------------------------------------------

    @property
    def names(self) -> tuple[str, ...]:
        return (*self._tools, *self._functions)

    def builtin(self, name: str) -> BuiltinTool | None:
        return self._tools.get(name)

    def offers(self, name: str) -> bool:
        return name in self._tools or name in self._functions

    def allowed(self, name: str, mode: str | None = None) -> bool:
        """Whether `mode` (default: the checker's) allows the offered tool `name`."""
        mode = mode or self.mode
        tool = self._tools.get(name)
        if tool is not None:
            return mode in tool.modes
        entry = self._functions.get(name)
        return entry is not None and (mode != "plan" or entry.read_only)

    def unknown_tool(self, name: str) -> CallProblem:
        """Why `name` cannot be called, with the tools that can. Made once per name (a reply
        may repeat one thousands of times; the memo forgets past `_MEMO` names)."""
        made = self._not_offered.get(name)
        if made is None:
            if len(self._not_offered) >= _MEMO:
                self._not_offered.clear()
            made = self._not_offered[name] = self._not_offered_problem(name)
        return made

    def _not_offered_problem(self, name: str) -> CallProblem:
        if self.offers(name):  # met where it cannot run: a tag in a reply's text
            return CallProblem(Problem.FOREIGN_FORMAT,
                               f"{name} is offered as a function: call it through function "
                               "calling, with its arguments as JSON; a tag in the reply's text "
                               "does not run it")
        where = self._mcp_home(name)
        hint = "" if where else self._suggestion(name)
        shown = list(self.names)
        listed = ", ".join(shown[:MAX_LISTED]) or "none"
        if len(shown) > MAX_LISTED:
            listed += f" and {len(shown) - MAX_LISTED} more"
        return CallProblem(Problem.UNKNOWN_TOOL,
                           f"tool {name!r} is not offered{hint}{where}; the tools offered: "
                           f"{listed}")

    def _suggestion(self, name: str) -> str:
        """The offered tool a model most likely meant: a name spelled almost the same (or the
        same but for case, `_` and `-`), else
        the tool that does the job the name says (its aliases: the whole name, then the first
        of its words that is one; `edit_file` → replace_in_file, `Bash` → execute_command),
        else a name spelled alike. An MCP function name is only ever a spelling."""
        same = [n for n in self.names if squash(n) == squash(name)]  # ReadFile, read-file
        close = f" (did you mean {same[0]!r}?)" if same else \
            did_you_mean(name, self.names, cutoff=0.9)
        if close or name.startswith("mcp__"):
            return close or did_you_mean(name, self.names)
        tool = self._aliases.get(squash(name))
        for word in _words(name) if tool is None else ():
            tool = self._aliases.get(word)
            if tool is not None:
                break
        if tool is not None and tool != name:
            return f" (the tool for that here is {tool!r})"
        return did_you_mean(name, self.names)

    def _mcp_home(self, name: str) -> str:
        """For an MCP tool called by its bare name, or by a function name (`mcp__s__t`) that
        is not offered as one: where it lives and how to reach it."""
        server_name, _, tool_name = name.removeprefix("mcp__").partition("__")
        entry = self._servers.get(server_name, {}).get(tool_name) \
            if name.startswith("mcp__") else None
        if entry is not None and USE_MCP_TOOL in self._tools:
            return (f"; it is the tool {tool_name!r} of the MCP server {server_name!r}: call it "
                    f"through {USE_MCP_TOOL} with server_name {server_name!r} and tool_name "
                    f"{tool_name!r}")
        for server, tools in self._servers.items():
            entry = tools.get(name)
            if entry is None:
                continue
            if entry.function:
                return f" under that name: call it as {entry.function}"
            if USE_MCP_TOOL in self._tools:
                return (f"; it is a tool of the MCP server {server!r}: call it through "
                        f"{USE_MCP_TOOL}")
        return ""

    # --- checking -----------------------------------------------------------------------------

    def check_text(self, name: str, given: Given, problems: Sequence[CallProblem] = (),
                   span: Span = _NO_SPAN) -> ToolCall | CallError:
        """A call whose values are text (converted by each parameter's type). `problems`:
        what the reader already found (an unclosed tag, stray text)."""
        return self._check(name, given, problems, span, text=True)

    def check_json(self, name: str, given: Given, problems: Sequence[CallProblem] = (),
                   span: Span = _NO_SPAN) -> ToolCall | CallError:
        """A call whose values are JSON data; a null for an optional parameter means "not
        given" (OpenAI's strict mode makes a model send one)."""
        return self._check(name, given, problems, span, text=False)

    def _check(self, name: str, given: Given, problems: Sequence[CallProblem], span: Span,
               text: bool) -> ToolCall | CallError:
        tool = self._tools.get(name)
        if tool is not None:
            return self._builtin(tool, given, problems, span, text)
        entry = self._functions.get(name)
        if entry is not None:
            return self._function(entry, given, problems, span)
        return _error(name, [self.unknown_tool(name)], {}, span)  # its arguments do not matter

    def _refusal(self, name: str, read_only_rule: bool) -> CallProblem:
        allowed = [n for n in self.names if self.allowed(n)]
        why = (" (in plan mode, only MCP tools their server marks read-only)"
               if read_only_rule else "")
        return CallProblem(Problem.NOT_IN_MODE,
                           f"{name} is not allowed in {self.mode} mode{why}; allowed now: "
                           f"{', '.join(allowed[:MAX_LISTED]) or 'none'}")

    def _builtin(self, tool: BuiltinTool, given: Given, found: Sequence[CallProblem],
                 span: Span, text: bool) -> ToolCall | CallError:
        if self.mode not in tool.modes:
            return _error(tool.name, [self._refusal(tool.name, False)], {}, span)
        problems = list(found)
        values = _values(tool, given, problems, text)
        problems.extend(value_problems(tool, values, text))
        if not _unreadable(found):  # unread arguments miss nothing: say only why
            _missing(tool, values, problems)
        if problems:
            return _error(tool.name, problems, values, span)
        if tool.name == USE_MCP_TOOL:
            return self._through_use_mcp_tool(values, span)
        return ToolCall(tool.name, values, span.raw, span.start, span.end, call_id=span.call_id,
                        wire=span.wire, warnings=value_warnings(tool, values) if text else ())

    def _through_use_mcp_tool(self, values: dict[str, Any], span: Span) -> ToolCall | CallError:
        """`use_mcp_tool`'s server and tool found, allowed in the mode, and its arguments
        checked against that tool's schema."""
        entry = self._mcp_target(values["server_name"], values["tool_name"])
        if isinstance(entry, CallProblem):
            return _error(USE_MCP_TOOL, [entry], values, span)
        if self.mode == "plan" and not entry.read_only:
            return _error(USE_MCP_TOOL, [self._refusal(entry.label, True)], values, span)
        arguments = _json_object(values.get("arguments"))
        if isinstance(arguments, CallProblem):
            return _error(USE_MCP_TOOL, [arguments], values, span, entry)
        problems = _repeats_in_arguments(entry.label, arguments)
        arguments = drop_unasked_nulls(arguments, entry.schema)
        verdict = check_arguments(arguments, entry.schema, entry.key, entry.label, self._cache)
        values = {**values, "arguments": arguments}
        problems.extend(verdict.problems)
        if problems:
            return _error(USE_MCP_TOOL, problems, values, span, entry)
        return ToolCall(USE_MCP_TOOL, values, span.raw, span.start, span.end,
                        server=entry.server, tool=entry.tool, call_id=span.call_id,
                        wire=span.wire, warnings=verdict.warnings)

    def _mcp_target(self, server: str, tool: str) -> McpEntry | CallProblem:
        tools = self._servers.get(server)
        if tools is None:
            listed = ", ".join(self._servers) or "none"
            return CallProblem(Problem.UNKNOWN_SERVER, f"no MCP server {server!r} is connected"
                               f"{did_you_mean(server, self._servers)}; connected: {listed}",
                               "server_name")
        entry = tools.get(tool)
        if entry is None:
            return CallProblem(Problem.UNKNOWN_TOOL, f"the MCP server {server!r} has no tool "
                               f"{tool!r}{did_you_mean(tool, tools)}; its tools: "
                               f"{', '.join(tools) or 'none'}", "tool_name")
        return entry

    def _function(self, entry: McpEntry, given: Given, found: Sequence[CallProblem],
                  span: Span) -> ToolCall | CallError:
        name = entry.function or entry.tool
        if self.mode == "plan" and not entry.read_only:
            return _error(name, [self._refusal(name, True)], {}, span, entry)
        if _unreadable(found):
            return _error(name, found, {}, span, entry)
        problems = list(found)
        arguments: dict[str, Any] = {}
        for key, value in given:
            if key in arguments:
                problems.append(_twice(name, key))
            arguments[key] = value
        problems.extend(_repeats_in_arguments(name, arguments, top=False))
        arguments = drop_unasked_nulls(arguments, entry.schema)
        verdict = check_arguments(arguments, entry.schema, entry.key, entry.label, self._cache)
        problems.extend(verdict.problems)
        if problems:
            return _error(name, problems, arguments, span, entry)
        return ToolCall(name, arguments, span.raw, span.start, span.end, server=entry.server,
                        tool=entry.tool, call_id=span.call_id, wire=span.wire,
                        warnings=verdict.warnings)


def _words(name: str) -> list[str]:
    """A tool name's words, lower case: `run_shell`, `run-shell` and `RunShell` are
    ["run", "shell"]."""
    import re
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", name)]


def _json_object(arguments: Any) -> dict[str, Any] | CallProblem:
    """`use_mcp_tool`'s arguments as an object (a plugin's spec may declare them a string)."""
    if isinstance(arguments, str):
        decoded = load_json(arguments)
        if decoded.problem is not None or not isinstance(decoded.value, dict):
            why = decoded.problem or "is not a JSON object"
            return CallProblem(Problem.BAD_VALUE, f"parameter 'arguments' of {USE_MCP_TOOL} "
                               f"must be a JSON object; the value {why}", "arguments")
        return decoded.value
    return arguments if isinstance(arguments, dict) else {}


def _values(tool: BuiltinTool, given: Given, problems: list[CallProblem], text: bool
            ) -> dict[str, Any]:
    """The given values converted and checked; what is wrong goes to `problems`."""
    values: dict[str, Any] = {}
    seen: set[str] = set()
    convert = _from_text if text else _from_json
    for key, value in given:
        param = tool.params.get(key)
        if param is None:
            problems.append(_unknown_parameter(tool, key))
            continue
        if key in seen:
            problems.append(_twice(tool.name, key))
            continue
        seen.add(key)
        if value is None and not text and not param.required:
            continue  # strict mode's stand-in for "not given"
        converted, why = convert(param, value)
        if why is None:
            values[key] = converted
            problems.extend(_repeats_in_value(tool, key, converted))
        else:
            problems.append(_wrong_value(tool, key, why))
    return values


def _repeats_in_value(tool: BuiltinTool, key: str, value: Any) -> list[CallProblem]:
    """Keys given twice inside a value (`use_mcp_tool`'s arguments are checked as the MCP
    tool's own, in `_through_use_mcp_tool`)."""
    if tool.name == USE_MCP_TOOL and key == "arguments":
        return []
    return _nested_repeats(tool.name, key, value)


def _wrong_value(tool: BuiltinTool, key: str, why: str) -> CallProblem:
    code = Problem.NOT_AN_OPTION if why.startswith("must be one of") else Problem.BAD_VALUE
    return CallProblem(code, f"parameter {key!r} of {tool.name} {why}", key)


def _from_text(param: Param, raw: Any) -> tuple[Any, str | None]:
    value, why = from_text(param.type, param.items, raw)
    if why is not None:
        return None, why
    if param.options and value not in param.options:
        if isinstance(value, str) and value.strip() in param.options:
            return value.strip(), None
        return None, _not_an_option(param, value)
    return value, None


def _from_json(param: Param, value: Any) -> tuple[Any, str | None]:
    why = type_problem(param.type, param.items, value)
    if why is not None:
        return None, why
    if param.options and value not in param.options:
        return None, _not_an_option(param, value)
    return integral(param.type, value), None


def _missing(tool: BuiltinTool, values: Mapping[str, Any], problems: list[CallProblem]) -> None:
    reported = {p.parameter for p in problems}
    problems.extend(
        CallProblem(Problem.MISSING_PARAMETER, f"tool {tool.name!r} is missing its required "
                    f"parameter {name!r}", name)
        for name, param in tool.params.items()
        if param.required and name not in values and name not in reported)


def _unknown_parameter(tool: BuiltinTool, name: str) -> CallProblem:
    known = ", ".join(tool.order) or "none"
    return CallProblem(Problem.UNKNOWN_PARAMETER, f"tool {tool.name!r} has no parameter "
                       f"{name!r}{did_you_mean(name, tool.order)} (its parameters: {known})",
                       name)


def _unreadable(problems: Sequence[CallProblem]) -> bool:
    """The arguments could not be read at all (bad JSON): nothing else about them is known."""
    return any(p.code == Problem.BAD_JSON for p in problems)


def _nested_repeats(label: str, parameter: str, value: Any) -> list[CallProblem]:
    """A key given twice in a JSON object inside the value of `parameter`."""
    return [CallProblem(Problem.DUPLICATE_PARAMETER,
                        f"{value_at((parameter, *path), label)} gives the key {key!r} twice",
                        parameter)
            for path, key in repeated_keys(value)]


def _repeats_in_arguments(label: str, arguments: Mapping[str, Any], top: bool = True
                          ) -> list[CallProblem]:
    """An MCP tool's arguments: a key given twice at the top is a parameter given twice
    (`top`: still to report; a native call's were reported as it was read), deeper ones are
    reported inside their parameter, as for any tool."""
    found = [_twice(label, key) for key in getattr(arguments, "twice", ())] if top else []
    for key, value in arguments.items():
        found.extend(_nested_repeats(label, key, value))
    return found


def _twice(tool: str, name: str) -> CallProblem:
    return CallProblem(Problem.DUPLICATE_PARAMETER,
                       f"tool {tool!r} was given the parameter {name!r} twice", name)


def _not_an_option(param: Param, value: Any) -> str:
    shown = str(value)
    shown = shown if len(shown) <= 40 else shown[:40] + "…"
    return f"must be one of {', '.join(param.options)}; got {shown!r}"


def _error(name: str, problems: Sequence[CallProblem], values: Mapping[str, Any], span: Span,
           entry: McpEntry | None = None) -> CallError:
    return CallError(name, tuple(problems), dict(values), span.raw, span.start, span.end,
                     server=entry.server if entry else None, tool=entry.tool if entry else None,
                     call_id=span.call_id, wire=span.wire)

