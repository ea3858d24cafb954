"""Tool calls read back from a model: the text format the text variants teach, and native calls.

The text format (components/tool_use.md): an opening tag named after the tool, one child tag per
parameter holding its value as plain text, the closing tag:

    <read_file>
    <path>src/config.py</path>
    </read_file>

`TextCallParser.parse(text)` finds every call of an offered tool in a reply, converts each value
to its parameter's type (integer, number, boolean; arrays and objects as JSON) and checks it
against the tool (required parameters present, no unknown or repeated ones, values from the
listed options). What goes wrong is data: a `CallError` in the result, never an exception. A call
shaped like one (a snake_case tag at the start of a line, outside fenced code, whose first child
is a tag, closed later) but naming a tool that is not offered is an error too. With `partial=True` the text is a streamed
prefix: a call still being written is `open`, and a trailing `<rea` that may begin one is held
back in `pending`.

Reading values: one line break right after a parameter's opening tag is layout, not value
(models write long values on their own lines); everything else between the tags is the value,
exactly. A value ends at the first `</name>` of its own parameter that is followed, after
whitespace, by another parameter's opening tag or by the tool's closing tag; so a value may
contain its own closing tag anywhere else. `format_call` writes a call the same way, and parsing
what it writes gives back the arguments (the property tests check this).

Everything here is linear in the length of the text: every search moves forward.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from .._model.tools import EnumSources, ToolSpec, parameters_for
from .schemas import drop_unasked_nulls

__all__ = ["ToolCall", "CallError", "CallProblem", "OpenCall", "ParsedMessage",
           "TextCallParser", "McpTarget"]

_TAG = re.compile(r"<([A-Za-z_][A-Za-z0-9_-]{0,63})>")
_CLOSER = re.compile(r"</([A-Za-z_][A-Za-z0-9_-]{0,63})>")
_FENCE = re.compile(r"^[ \t]*(```|~~~)", re.M)
_WS = re.compile(r"\s*")
_INT = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_NAME_PREFIX = re.compile(r"</?[A-Za-z0-9_-]*")


@attrs.frozen
class ToolCall:
    """A call the model made, its arguments converted and checked.

    `raw`, `start`, `end`: where a text call sits in the reply (empty for a native call).
    `server`, `tool`: for a natively offered MCP tool, the server and tool it routes to.
    """

    name: str
    arguments: dict[str, Any]
    raw: str = ""
    start: int = 0
    end: int = 0
    server: str | None = None
    tool: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "arguments": self.arguments}
        if self.server is not None:
            out["server"], out["tool"] = self.server, self.tool
        return out


@attrs.frozen
class CallProblem:
    """One thing wrong with a call: `code` is stable (for programs), `message` is for people
    (and for the model: send it back as the tool result)."""

    code: str  # unknown-tool, unknown-parameter, duplicate-parameter, missing-parameter,
    #           bad-value, not-an-option, unclosed-call, unclosed-parameter, stray-text, bad-json
    message: str
    parameter: str | None = None


@attrs.frozen
class CallError:
    """A call that cannot be run as written: every problem found, and what could be read."""

    name: str
    problems: tuple[CallProblem, ...]
    arguments: dict[str, Any] = attrs.field(factory=dict)
    raw: str = ""
    start: int = 0
    end: int = 0

    @property
    def code(self) -> str:
        return self.problems[0].code

    @property
    def message(self) -> str:
        return "; ".join(p.message for p in self.problems)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "code": self.code, "message": self.message,
                "problems": [attrs.asdict(p) for p in self.problems],
                "arguments": self.arguments}


@attrs.frozen
class OpenCall:
    """A call still being written (streamed text): the tool, the arguments complete so far, and
    the parameter being written with its value so far (None between parameters)."""

    name: str
    arguments: dict[str, Any]
    parameter: str | None = None
    value: str = ""
    start: int = 0


Part = str | ToolCall | CallError


@attrs.frozen
class ParsedMessage:
    """A reply split into prose, calls and errors, in order."""

    parts: tuple[Part, ...]
    open: OpenCall | None = None
    pending: str = ""  # streamed text held back: it may be the start of a call

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCall))

    @property
    def errors(self) -> tuple[CallError, ...]:
        return tuple(p for p in self.parts if isinstance(p, CallError))

    @property
    def text(self) -> str:
        """The prose around the calls (calls and errors left out)."""
        return "".join(p for p in self.parts if isinstance(p, str))

    @property
    def complete(self) -> bool:
        """No call is still being written and nothing is held back."""
        return self.open is None and not self.pending


McpTarget = tuple[str, str, Mapping[str, Any]]  # server, tool, original input schema


@attrs.frozen
class _Param:
    name: str
    type: str
    required: bool
    options: tuple[str, ...]
    items: str | None  # the type of an array's items, when simple


@attrs.frozen
class _Tool:
    name: str
    params: Mapping[str, _Param]
    order: tuple[str, ...]
    closing: str


_TYPE_CHECK = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


class _Open(Exception):
    """Internal: a streamed call is still being written."""

    def __init__(self, call: OpenCall) -> None:
        self.call = call


class TextCallParser:
    """Reads calls of one tool set. Built once per tool set (the tool set holds it)."""

    __slots__ = ("_tools", "_mcp")

    def __init__(self, specs: Sequence[ToolSpec], sources: EnumSources = (),
                 mcp: Mapping[str, McpTarget] | None = None) -> None:
        enabled = frozenset(s.name for s in specs)
        tools: dict[str, _Tool] = {}
        for spec in specs:
            params: dict[str, _Param] = {}
            for p, enum in parameters_for(spec, enabled, sources):
                items = p.items.get("type") if p.items else "string"
                params[p.name] = _Param(p.name, p.type, p.required, tuple(enum),
                                        items if isinstance(items, str) else None)
            tools[spec.name] = _Tool(spec.name, params, tuple(params), f"</{spec.name}>")
        self._tools = tools
        self._mcp = dict(mcp or {})

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._tools)

    # --- writing ---------------------------------------------------------------------------

    def format_call(self, name: str, arguments: Mapping[str, Any]) -> str:
        """A call in the text format, parameters in the tool's order (ValueError for a tool or
        parameter the set does not have)."""
        tool = self._tools.get(name)
        if tool is None:
            raise ValueError(f"tool {name!r} is not offered")
        unknown = [k for k in arguments if k not in tool.params]
        if unknown:
            raise ValueError(f"tool {name!r} has no parameter {unknown[0]!r}")
        lines = [f"<{name}>"]
        for pname in tool.order:
            if pname in arguments:
                lines.append(f"<{pname}>{_write(arguments[pname])}</{pname}>")
        lines.append(tool.closing)
        return "\n".join(lines)

    # --- native calls ----------------------------------------------------------------------

    def decode(self, name: str, arguments: str | Mapping[str, Any] | None) -> ToolCall | CallError:
        """A native call (arguments as JSON text or already decoded) checked like a text call;
        nulls that strict mode made the model send for optional parameters are removed."""
        if arguments is None or arguments == "":
            values: Any = {}
        elif isinstance(arguments, str):
            try:
                values = json.loads(arguments)
            except (ValueError, RecursionError) as exc:
                return CallError(name, (CallProblem("bad-json",
                                                    f"arguments are not JSON ({exc})"),))
        else:
            values = dict(arguments)
        if not isinstance(values, dict):
            return CallError(name, (CallProblem("bad-json", "arguments must be a JSON object"),))
        mcp = self._mcp.get(name)
        if mcp is not None:
            server, tool_name, schema = mcp
            return ToolCall(name, drop_unasked_nulls(values, schema), server=server,
                            tool=tool_name)
        tool = self._tools.get(name)
        if tool is None:
            return CallError(name, (_unknown_tool(name, self._tools),), values)
        problems: list[CallProblem] = []
        out: dict[str, Any] = {}
        for key, value in values.items():
            param = tool.params.get(key)
            if param is None:
                problems.append(_unknown_param(tool, key))
                continue
            if value is None and not param.required:
                continue  # strict mode's stand-in for "not given"
            if not _TYPE_CHECK[param.type](value):
                problems.append(CallProblem("bad-value", f"parameter {key!r} must be "
                                            f"{_a(param.type)}", key))
                continue
            if param.options and value not in param.options:
                problems.append(_not_an_option(param, value))
                continue
            out[key] = value
        problems.extend(_missing(tool, out, problems))
        if problems:
            return CallError(name, tuple(problems), out)
        return ToolCall(name, out)

    # --- reading text ----------------------------------------------------------------------

    def parse(self, text: str, partial: bool = False) -> ParsedMessage:
        """Every call in `text`, with the prose around it (see the module docstring)."""
        parts: list[Part] = []
        prose = 0  # where the prose not yet emitted starts
        pos = 0
        scan = _Scan(text)
        opened: OpenCall | None = None
        while True:
            m = _TAG.search(text, pos)
            if m is None:
                break
            tool = self._tools.get(m.group(1))
            if tool is not None:
                try:
                    found = self._call(tool, text, m.start(), m.end(), partial)
                except _Open as still:
                    opened = still.call
                    if m.start() > prose:
                        parts.append(text[prose:m.start()])
                    prose = len(text)
                    break
                if found is None:  # the name in prose, not a call
                    pos = m.end()
                    continue
                if m.start() > prose:
                    parts.append(text[prose:m.start()])
                parts.append(found)
                prose = pos = found.end
                continue
            end = scan.call_shaped(m)
            if end is None:
                pos = m.end()
                continue
            if m.start() > prose:
                parts.append(text[prose:m.start()])
            parts.append(CallError(m.group(1), (_unknown_tool(m.group(1), self._tools),),
                                   raw=text[m.start():end], start=m.start(), end=end))
            prose = pos = end
        pending = ""
        if partial and opened is None and prose < len(text):
            lt = text.rfind("<", prose)
            if lt >= 0:
                tail = text[lt:]
                if _NAME_PREFIX.fullmatch(tail) and any(
                        f"<{n}>".startswith(tail) for n in self._tools):
                    pending = tail
        tail_end = len(text) - len(pending)
        if tail_end > prose:
            parts.append(text[prose:tail_end])
        return ParsedMessage(tuple(parts), opened, pending)

    def _call(self, tool: _Tool, text: str, start: int, pos: int, partial: bool
              ) -> ToolCall | CallError | None:
        """The call opened at `start` (its opening tag ends at `pos`); None when the tag is not
        followed by a parameter or the closing tag (the tool's name mentioned in prose)."""
        raw: dict[str, str] = {}
        problems: list[CallProblem] = []
        n = len(text)
        first = True
        while True:
            at = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if at == n:
                if partial:
                    raise _Open(OpenCall(tool.name, _loose(tool, raw), start=start))
                if first:
                    return None
                problems.append(CallProblem("unclosed-call",
                                            f"the call has no closing tag {tool.closing}"))
                return self._finish(tool, text, start, n, raw, problems)
            if text.startswith(tool.closing, at):
                end = at + len(tool.closing)
                return self._finish(tool, text, start, end, raw, problems)
            m = _TAG.match(text, at)
            if m is None:
                if partial and _could_continue(text, at, tool):
                    raise _Open(OpenCall(tool.name, _loose(tool, raw), start=start))
                if first and not (_starts_line(text, start) and
                                  text.find(tool.closing, at) >= 0):
                    return None  # the tool's name in prose
                close = text.find(tool.closing, at)
                end = n if close < 0 else close + len(tool.closing)
                problems.append(CallProblem("stray-text", "only parameter tags may stand "
                                            f"between <{tool.name}> and {tool.closing}"))
                if close < 0:
                    problems.append(CallProblem("unclosed-call",
                                                f"the call has no closing tag {tool.closing}"))
                return self._finish(tool, text, start, end, raw, problems)
            pname = m.group(1)
            param = tool.params.get(pname)
            if param is None and first and (pname in self._tools or
                                            text.find(tool.closing, m.end()) < 0):
                return None  # the tool's name in prose, then another call or other markup
            first = False
            value_end, after = self._value_end(tool, text, m.end(), pname, partial)
            if value_end < 0:
                if partial:
                    value = text[m.end():]
                    cut = value.rfind("<")
                    if cut >= 0 and f"</{pname}>".startswith(value[cut:]):
                        value = value[:cut]
                    raise _Open(OpenCall(tool.name, _loose(tool, raw), pname,
                                         _strip_layout(value), start))
                problems.append(CallProblem("unclosed-parameter", f"parameter {pname!r} has "
                                            f"no closing tag </{pname}>", pname))
                return self._finish(tool, text, start, n, raw, problems)
            value = text[m.end():value_end]
            if param is None:
                problems.append(_unknown_param(tool, pname))
            elif pname in raw:
                problems.append(CallProblem("duplicate-parameter",
                                            f"parameter {pname!r} is given twice", pname))
            else:
                raw[pname] = value
            pos = after

    def _value_end(self, tool: _Tool, text: str, start: int, pname: str, partial: bool
                   ) -> tuple[int, int]:
        """(where the value of `pname` opened at `start` ends, where its closing tag ends), or
        (-1, -1) when it is not closed (yet)."""
        closing = f"</{pname}>"
        k = start
        n = len(text)
        while True:
            j = text.find(closing, k)
            if j < 0:
                return -1, -1
            after = j + len(closing)
            nxt = _WS.match(text, after).end()  # type: ignore[union-attr]
            if nxt == n:
                return j, after
            if text.startswith(tool.closing, nxt):
                return j, after
            m = _TAG.match(text, nxt)
            if m is not None and m.group(1) in tool.params:
                return j, after
            if partial and _could_continue(text, nxt, tool):
                return j, after
            k = j + 1

    def _finish(self, tool: _Tool, text: str, start: int, end: int, raw: dict[str, str],
                problems: list[CallProblem]) -> ToolCall | CallError:
        values: dict[str, Any] = {}
        for pname, value in raw.items():
            converted = _convert(tool.params[pname], value)
            if isinstance(converted, CallProblem):
                problems.append(converted)
            else:
                values[pname] = converted
        problems.extend(_missing(tool, values, problems))
        source = text[start:end]
        if problems:
            return CallError(tool.name, tuple(problems), values, source, start, end)
        return ToolCall(tool.name, values, source, start, end)


class _Scan:
    """Per-text indexes, built on first need: closing tags by name, fenced regions."""

    __slots__ = ("text", "_closers", "_fences")

    def __init__(self, text: str) -> None:
        self.text = text
        self._closers: dict[str, list[int]] | None = None
        self._fences: list[int] | None = None

    def call_shaped(self, m: re.Match[str]) -> int | None:
        """Where a call-shaped block of an unknown tool opened by `m` ends, or None: the tag
        starts a line (outside fenced code), its first child is a tag, and `</name>` follows."""
        text = self.text
        if "_" not in m.group(1):
            return None  # tools are snake_case; <div>, <thinking> are not calls
        if not _starts_line(text, m.start()):
            return None
        at = _WS.match(text, m.end()).end()  # type: ignore[union-attr]
        if _TAG.match(text, at) is None:
            return None
        if self._inside_fence(m.start()):
            return None
        closers = self._closers
        if closers is None:
            closers = self._closers = {}
            for c in _CLOSER.finditer(text):
                closers.setdefault(c.group(1), []).append(c.start())
        starts = closers.get(m.group(1))
        if not starts:
            return None
        i = bisect.bisect_left(starts, m.end())
        if i == len(starts):
            return None
        return starts[i] + len(m.group(1)) + 3

    def _inside_fence(self, at: int) -> bool:
        fences = self._fences
        if fences is None:
            fences = self._fences = [f.start() for f in _FENCE.finditer(self.text)]
        return bisect.bisect_right(fences, at) % 2 == 1


def _starts_line(text: str, at: int) -> bool:
    return not text[text.rfind("\n", 0, at) + 1:at].strip()


def _could_continue(text: str, at: int, tool: _Tool) -> bool:
    """Streamed text ends with what may become a parameter tag or the closing tag."""
    tail = text[at:]
    if "\n" in tail or len(tail) > 66:
        return False
    if tool.closing.startswith(tail):
        return True
    return any(f"<{p}>".startswith(tail) for p in tool.params)


def _strip_layout(value: str) -> str:
    return value[1:] if value.startswith("\n") else value


def _write(value: Any) -> str:
    if isinstance(value, str):
        return "\n" + value if "\n" in value else value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _convert(param: _Param, raw: str) -> Any:
    value = _strip_layout(raw)
    kind = param.type
    if kind == "string":
        if param.options and value not in param.options:
            if value.strip() in param.options:
                return value.strip()
            return _not_an_option(param, value)
        return value
    text = value.strip()
    if kind == "integer":
        if _INT.fullmatch(text):
            return int(text)
    elif kind == "number":
        if _NUMBER.fullmatch(text):
            number = json.loads(text)
            return number
    elif kind == "boolean":
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
    else:  # array, object: JSON
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            parsed = None
        if kind == "array" and isinstance(parsed, list):
            check = _TYPE_CHECK.get(param.items or "")
            if check is None or all(check(v) for v in parsed):
                return parsed
            return CallProblem("bad-value", f"parameter {param.name!r} must be a JSON array of "
                               f"{param.items}s", param.name)
        if kind == "object" and isinstance(parsed, dict):
            return parsed
        return CallProblem("bad-value", f"parameter {param.name!r} must be "
                           f"{_a(kind)} written as JSON", param.name)
    return CallProblem("bad-value", f"parameter {param.name!r} must be {_a(kind)}, "
                       f"got {text[:40]!r}", param.name)


def _loose(tool: _Tool, raw: Mapping[str, str]) -> dict[str, Any]:
    """Arguments of an open call so far: converted where they convert, else as written."""
    out: dict[str, Any] = {}
    for pname, value in raw.items():
        converted = _convert(tool.params[pname], value)
        out[pname] = _strip_layout(value) if isinstance(converted, CallProblem) else converted
    return out


def _missing(tool: _Tool, values: Mapping[str, Any], problems: Sequence[CallProblem]
             ) -> list[CallProblem]:
    reported = {p.parameter for p in problems}
    return [CallProblem("missing-parameter", f"required parameter {p!r} is missing", p)
            for p, param in tool.params.items()
            if param.required and p not in values and p not in reported]


def _unknown_tool(name: str, tools: Mapping[str, _Tool]) -> CallProblem:
    offered = ", ".join(tools) or "none"
    return CallProblem("unknown-tool", f"tool {name!r} is not offered (offered: {offered})")


def _unknown_param(tool: _Tool, name: str) -> CallProblem:
    known = ", ".join(tool.order) or "none"
    return CallProblem("unknown-parameter", f"tool {tool.name!r} has no parameter {name!r} "
                       f"(its parameters: {known})", name)


def _not_an_option(param: _Param, value: Any) -> CallProblem:
    return CallProblem("not-an-option", f"parameter {param.name!r} must be one of "
                       f"{', '.join(param.options)}; got {str(value)[:40]!r}", param.name)


def _a(kind: str) -> str:
    return {"integer": "an integer", "array": "an array", "object": "an object"}.get(
        kind, f"a {kind}")
