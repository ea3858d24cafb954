"""The call format the text variants teach (components/tool_use.md), read and written.

    <read_file>
    <path>src/config.py</path>
    </read_file>

An opening tag named after the tool, one child tag per parameter holding its value as plain text,
the closing tag. Reading a value: one line break right after the parameter's opening tag is
layout; everything else up to its end is the value, exactly. A value ends at the first
`</name>` of its own parameter that is followed, after white space, by the tool's closing tag,
by the opening tag of one of the tool's parameters, or by the opening tag of another name that is
closed before the tool's closing tag (a parameter the tool does not have: reported by name, not
mistaken for part of the value). So a value may hold its own closing tag anywhere else.

A value that no such rule can carry (one that holds its own closing tag followed by such a tag,
or that starts like the escape below) is written by `format_call` as CDATA sections,
`<![CDATA[…]]>` (a `]]>` inside split across two), which the reader takes apart again: every
value round-trips. A value holding a reasoning block's closing tag (`</think>`) is written so too,
the tag split across two sections: the reader takes the last such tag in a reply as the end of
the model's reasoning (`reader`), so a call never writes one.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping
from typing import Any

import attrs

from .checker import BuiltinTool
from .records import CallProblem, OpenCall, Problem
from .scan import CDATA_CLOSE, CDATA_OPEN, TAG, TextIndex, skip_space

__all__ = ["Read", "Opened", "read_call", "format_call", "CDATA_OPEN", "REASONING_TAGS"]

REASONING_TAGS = ("think", "thinking", "reasoning", "thought")
_SPLIT = CDATA_CLOSE + CDATA_OPEN


@attrs.frozen
class Read:
    """A call read from `start` to `end`: its values as written (layout removed), in order,
    and what is wrong with its shape."""

    name: str
    start: int
    end: int
    given: list[tuple[str, str]]
    problems: tuple[CallProblem, ...] = ()


@attrs.frozen
class Opened:
    """A streamed call that is still being written."""

    call: OpenCall


class _Reading:
    """One call being read (the state `read_call` threads through its steps)."""

    __slots__ = ("index", "text", "tool", "start", "partial", "closing", "given", "problems")

    def __init__(self, index: TextIndex, tool: BuiltinTool, start: int, partial: bool) -> None:
        self.index = index
        self.text = index.text
        self.tool = tool
        self.start = start
        self.partial = partial
        self.closing = f"</{tool.name}>"
        self.given: list[tuple[str, str]] = []
        self.problems: list[CallProblem] = []

    def done(self, end: int) -> Read:
        return Read(self.tool.name, self.start, end, self.given, tuple(self.problems))

    def opened(self, parameter: str | None = None, value: str = "") -> Opened:
        return Opened(OpenCall(self.tool.name, dict(self.given), parameter, value, self.start))

    def tool_closer(self, pos: int) -> int | None:
        return self.index.next_closer(self.tool.name, pos)


def read_call(index: TextIndex, tool: BuiltinTool, start: int, offered: frozenset[str],
              partial: bool = False) -> Read | Opened | None:
    """The call of `tool` whose opening tag starts at `start`, or None when the tag is the
    tool's name in prose (not followed by a parameter tag or the closing tag)."""
    r = _Reading(index, tool, start, partial)
    pos = start + len(tool.name) + 2
    first = True
    while True:
        step = _next_parameter(r, pos, first, offered)
        if not isinstance(step, int):
            return step
        pos, first = step, False


def _next_parameter(r: _Reading, pos: int, first: bool, offered: frozenset[str]
                    ) -> int | Read | Opened | None:
    """Read the parameter at `pos` (adding it to `r`) and say where the next one may start;
    or the end of the call: read, still open, or not a call at all."""
    text = r.text
    at = skip_space(text, pos)
    if at == len(text):
        return _at_end(r, first)
    if text.startswith(r.closing, at):
        return r.done(at + len(r.closing))
    m = TAG.match(text, at)
    if m is None:
        return _stray(r, at, first)
    name = m.group(1)
    if first and name not in r.tool.params and (name in offered or
                                                r.tool_closer(m.end()) is None):
        return None  # the tool's name in prose, then another call or other markup
    value = _value(r, name, m.end())
    if value is None:
        r.problems.append(CallProblem(Problem.UNCLOSED_PARAMETER, f"parameter {name!r} "
                                      f"has no closing tag </{name}>", name))
        return r.done(len(text))
    if isinstance(value, Opened):
        return value
    written, after = value
    r.given.append((name, written))
    return after


def _at_end(r: _Reading, first: bool) -> Read | Opened | None:
    if r.partial:
        return r.opened()
    if first:
        return None
    r.problems.append(CallProblem(Problem.UNCLOSED_CALL,
                                  f"the call has no closing tag {r.closing}"))
    return r.done(len(r.text))


def _stray(r: _Reading, at: int, first: bool) -> Read | Opened | None:
    """Text that is not a parameter tag inside the call (or the name in prose)."""
    text = r.text
    if r.partial and _could_continue(text, at, r.tool):
        return r.opened()
    close = r.tool_closer(at)
    if first and (close is None or not r.index.starts_line(r.start)):
        return None
    r.problems.append(CallProblem(Problem.STRAY_TEXT, "only parameter tags may stand between "
                                  f"<{r.tool.name}> and {r.closing}"))
    if close is None:
        r.problems.append(CallProblem(Problem.UNCLOSED_CALL,
                                      f"the call has no closing tag {r.closing}"))
        return r.done(len(text))
    return r.done(close + len(r.closing))


def _value(r: _Reading, name: str, start: int) -> tuple[str, int] | Opened | None:
    """(the value of `name` opened at `start`, where its closing tag ends); an Opened while
    streaming; None when it is never closed."""
    cdata = _cdata(r.index, start, name)
    if isinstance(cdata, tuple):
        return cdata
    if cdata is _UNFINISHED and r.partial:  # an escaped value still being streamed
        return r.opened(name, "")
    ends = _value_end(r, name, start)
    if ends is None:
        if r.partial:
            return r.opened(name, _streamed_value(r.text[start:], name))
        return None
    end, after = ends
    return _strip_layout(r.text[start:end]), after


def _value_end(r: _Reading, name: str, start: int) -> tuple[int, int] | None:
    closing = f"</{name}>"
    text, index, tool = r.text, r.index, r.tool
    n = len(text)
    starts = index.closers(name)
    i = bisect.bisect_left(starts, start)
    while i < len(starts):
        j = starts[i]
        i += 1
        after = j + len(closing)
        nxt = skip_space(text, after)
        if nxt == n or text.startswith(r.closing, nxt):
            return j, after
        m = TAG.match(text, nxt)
        if m is not None and (m.group(1) in tool.params or _closed_inside(r, m)):
            return j, after
        if r.partial and _could_continue(text, nxt, tool):
            return j, after
    return None


def _closed_inside(r: _Reading, m: Any) -> bool:
    """The tag `m` opens is closed before the tool's closing tag: a parameter of its own."""
    own = r.index.next_closer(m.group(1), m.end())
    if own is None:
        return False
    tool_end = r.tool_closer(m.end())
    return tool_end is not None and own < tool_end


_UNFINISHED = object()  # the text ends inside a CDATA-escaped value


def _cdata(index: TextIndex, start: int, name: str) -> tuple[str, int] | object | None:
    """A value written as CDATA sections followed by its closing tag; `_UNFINISHED` when the
    text ends before that structure does (a streamed prefix); else None (not escaped). The
    sections are found through the index and joined only once the closing tag is there, so
    no opening reads the text after it more than once."""
    text = index.text
    if not text.startswith(CDATA_OPEN, start):
        rest = text[start:start + len(CDATA_OPEN)]
        return _UNFINISHED if start < len(text) and CDATA_OPEN.startswith(rest) else None
    end = index.cdata_run_end(start)
    if end is None:
        return _UNFINISHED
    closing = f"</{name}>"
    if not text.startswith(closing, end):  # the text may end part way into either
        if len(text) - end < max(len(closing), len(CDATA_OPEN)):
            rest = text[end:]
            if closing.startswith(rest) or CDATA_OPEN.startswith(rest):
                return _UNFINISHED
        return None
    chunks = []
    pos = start
    while pos < end:
        close = index.cdata_section_end(pos)
        assert close is not None  # the run ends at `end`
        chunks.append(text[pos + len(CDATA_OPEN):close - len(CDATA_CLOSE)])
        pos = close
    return "".join(chunks), end + len(closing)


def _streamed_value(value: str, name: str) -> str:
    cut = value.rfind("<")
    if cut >= 0 and f"</{name}>".startswith(value[cut:]):
        value = value[:cut]
    return _strip_layout(value)


def _could_continue(text: str, at: int, tool: BuiltinTool) -> bool:
    """Streamed text ends with what may become a parameter tag or the closing tag."""
    if len(text) - at > 66:  # longer than any tag: something else follows
        return False
    tail = text[at:]
    if "\n" in tail:
        return False
    if f"</{tool.name}>".startswith(tail):
        return True
    return any(f"<{p}>".startswith(tail) for p in tool.params)


def _strip_layout(value: str) -> str:
    return value[1:] if value.startswith("\n") else value


# --- writing -------------------------------------------------------------------------------

def format_call(tool: BuiltinTool, arguments: Mapping[str, Any]) -> str:
    """A call in the taught format, parameters in the tool's order (ValueError for a parameter
    the tool does not have). Every value reads back as itself."""
    unknown = [k for k in arguments if k not in tool.params]
    if unknown:
        raise ValueError(f"tool {tool.name!r} has no parameter {unknown[0]!r}")
    lines = [f"<{tool.name}>"]
    for name in tool.order:
        if name in arguments:
            lines.append(f"<{name}>{_written(name, arguments[name])}</{name}>")
    lines.append(f"</{tool.name}>")
    return "\n".join(lines)


def _written(name: str, value: Any) -> str:
    """The value's text (a number, flag, array or object as JSON), escaped where it must be:
    an array's strings may hold the parameter's own closing tag too."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "),
                          allow_nan=False)
    if _needs_cdata(name, text):
        text = text.replace(CDATA_CLOSE, "]]" + _SPLIT + ">")
        for tag in REASONING_TAGS:
            text = text.replace(f"</{tag}>", f"</{tag}{_SPLIT}>")
        return CDATA_OPEN + text + CDATA_CLOSE
    return "\n" + text if "\n" in text else text


def _needs_cdata(name: str, value: str) -> bool:
    """A plain value would not read back as itself: it holds its own closing tag (which a
    following tag could end early) or a reasoning block's (which ends the reasoning), or it
    starts like the escape."""
    return f"</{name}>" in value or value.startswith(CDATA_OPEN) or \
        any(f"</{tag}>" in value for tag in REASONING_TAGS)
