"""A reply read the way the text variants teach it: prose, one call, and what went wrong.

One forward pass over the reply visits its events in order (a code fence, a reasoning block, a
tag, a foreign-format marker), one `on_<event>` method per kind, and every event consumes what it
covers, so nothing is read twice and the pass is linear in the reply's length (streamed prefixes
too). The rules, each the other half of a sentence in components/tool_use.md:

* The first call of a message is the call. A second one is not run: it comes back as a
  `second-call` error telling the model to send it next. Text after the call is kept as prose
  and noted in a `text-after-call` warning.
* A call inside a reasoning block (`<think>`, `<thinking>`, `<reasoning>`, `<thought>`) is never
  run: when the reply has no other call it is a `call-in-reasoning` error, else a warning. A
  reasoning model's chat template writes the opening tag itself, so the reply may start inside
  the block: everything before the reply's last closing tag of a reasoning block is reasoning,
  whatever stands before it (an opening tag, a fence, inline code, an unfinished call: none of
  them can end the reasoning early, or a call in it would run). A call never writes such a tag
  (`taught.format_call` splits it across CDATA sections), so only a model's slip (a value holding
  `</think>` as it is, or prose after the call quoting one) puts one after a call, and then the
  call is not run: the safe side.
* A call in a code fence is read only when the fence holds nothing but that call and ends the
  message (with a `fenced-call` warning). A call in inline code or `<code>`, in quotation marks,
  in a blockquote, an indented code block or `<pre>`, in a fence with other text or in a fence
  that prose follows is a quotation: prose (with a `quoted-call` warning when the message makes
  no call). Quoted calls never run.
* A tag shaped like a call that names no offered tool is an `unknown-tool` error (what is
  shaped like a call, and what stays markup: `unknown`).
* Calls in a model's own format (see `foreign`) are read, checked and run with a
  `foreign-format` warning holding the same call in the taught form.
* A streamed prefix (`partial=True`) runs nothing: its calls are shown as read so far, but text
  still to come can make any of them reasoning (a later `</think>`), so only the complete reply
  has a call to run (`ParsedMessage.call`); a fenced call is not even shown until then.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from .checker import CallChecker, Span
from .foreign import (FORMAT_NAMES, FUNCTION_TAG, MISTRAL, Foreign, read_bare_json,
                      read_function_block, read_mistral, read_tool_call_block)
from .records import (CallError, CallProblem, CallWarning, Notice, OpenCall, ParsedMessage,
                      Part, Problem, ToolCall)
from .scan import TextIndex, skip_space
from .taught import REASONING_TAGS, Opened, read_call
from .unknown import UnknownTools

__all__ = ["MessageReader", "REASONING_TAGS"]
_EVENTS = re.compile(r"(?P<fence>^[ ]{0,3}(?:`{3,}|~{3,})[^\n]*)"
                     r"|<(?P<tag>[A-Za-z_][A-Za-z0-9_-]{0,63})>"
                     r"|(?P<function><function=[^>\n]{1,80}>)"
                     r"|(?P<mistral>\[TOOL_CALLS\])", re.M)
_QUOTES = frozenset("\"'`“‘«„")
_HELD = re.compile(r"</?[A-Za-z0-9_=-]*")
Formatter = Callable[[str, dict[str, Any]], str]


class MessageReader:
    """Reads replies against one checker; `format_call` writes a call in the taught form
    (for the foreign-format warnings). `native`: the tools are offered through function
    calling, so that is what a warning points a model at, not the text format."""

    __slots__ = ("checker", "format_call", "native", "_offered", "unknown")

    def __init__(self, checker: CallChecker, format_call: Formatter,
                 native: bool = False) -> None:
        self.checker = checker
        self.format_call = format_call
        self.native = native
        self._offered = frozenset(checker.names)
        self.unknown = UnknownTools(checker.names)

    def parse(self, text: str, partial: bool = False) -> ParsedMessage:
        return _Pass(self, text, partial).run()

    @property
    def offered(self) -> frozenset[str]:
        return self._offered


@attrs.frozen
class _Found:
    """A call (or error) found by a quoting pass, with its span in that pass's text."""

    item: ToolCall | CallError
    start: int
    end: int
    warnings: tuple[CallWarning, ...] = ()


class _Pass:
    """One reading of one text. `quoting`: the text is a fence's or a reasoning block's
    inside, where only the calls matter (nothing is run from here; the caller decides)."""

    def __init__(self, reader: MessageReader, text: str, partial: bool,
                 quoting: bool = False) -> None:
        self.reader = reader
        self.checker = reader.checker
        self.text = text
        self.index = TextIndex(text)
        self.partial = partial
        self.quoting = quoting
        self.parts: list[Part] = []
        self.warnings: list[CallWarning] = []
        self.found: list[_Found] = []  # quoting passes: what was found
        self.prose = 0
        self.calls = 0
        self.open: OpenCall | None = None
        self.pending = ""
        self.stopped = False
        self.quoted: _Found | None = None
        self.reasoned: tuple[_Found, str] | None = None
        self.reasoning: list[tuple[int, int]] = []

    # --- the pass --------------------------------------------------------------------------

    def run(self) -> ParsedMessage:
        pos = 0 if self.quoting else self._implicit_reasoning()
        text = self.text
        while not self.stopped:
            m = _EVENTS.search(text, pos)
            if m is None:
                break
            visit = getattr(self, f"on_{m.lastgroup}")
            pos = max(visit(m), m.start() + 1)
        return self._finish()

    def on_fence(self, m: re.Match[str]) -> int:
        if self.quoting:
            return m.end()
        return self._fence(m)

    def on_tag(self, m: re.Match[str]) -> int:
        name = m.group("tag")
        if name in REASONING_TAGS and not self.quoting:
            return self._reasoning(name, m.start(), m.end())
        if name == "tool_call":
            return self._foreign(read_tool_call_block(self.index, m.start(), self.partial),
                                 m.start())
        tool = self.checker.builtin(name)
        if tool is not None:
            return self._taught(tool, m)
        return self._unknown(m)

    def on_function(self, m: re.Match[str]) -> int:
        inner = FUNCTION_TAG.match(self.text, m.start())
        assert inner is not None
        return self._foreign(read_function_block(self.index, inner, self.partial), m.start())

    def on_mistral(self, m: re.Match[str]) -> int:
        foreign, reached = read_mistral(self.text, m.start(), self.partial)
        if foreign is None:
            self._hold(m.start())
            return len(self.text)
        self._foreign(foreign, m.start())
        return max(reached, foreign.end)

    # --- taught calls ----------------------------------------------------------------------

    def _taught(self, tool: Any, m: re.Match[str]) -> int:
        result = read_call(self.index, tool, m.start(), self.reader.offered, self.partial)
        if result is None:
            return m.end()
        if isinstance(result, Opened):
            self._emit_prose(m.start())
            self.open = result.call
            self.prose = len(self.text)
            self.stopped = True
            return len(self.text)
        span = Span(self.text[result.start:result.end], result.start, result.end)
        checked = self.checker.check_text(result.name, result.given, result.problems, span)
        self._add(checked, result.start, result.end)
        return result.end

    def _unknown(self, m: re.Match[str]) -> int:
        """A block shaped like a call of a tool nobody offers (rules: `unknown`)."""
        name = m.group("tag")
        found = self.reader.unknown.read(self.index, name, m.start(), m.end())
        if found is None:
            return m.end()
        if not found.sure and (self.quoting or self._quoted(m.start())):
            return m.end()  # an example in a quotation, a fence or reasoning: prose
        raw = self.text[m.start():found.end]
        error = CallError(name, (self.checker.unknown_tool(name),), {}, raw, m.start(),
                          found.end)
        self._add(error, m.start(), found.end)
        return found.end

    # --- calls in other formats ------------------------------------------------------------

    def _foreign(self, foreign: Foreign | None, start: int) -> int:
        if foreign is None:  # streamed and not closed yet: it may still become a call
            self._hold(start)
            return len(self.text)
        if foreign.problem:
            self._add(self._unreadable(foreign), foreign.start, foreign.end)
            return foreign.end
        for call in foreign.calls:
            span = Span(self.text[foreign.start:foreign.end], foreign.start, foreign.end)
            check = self.checker.check_text if call.text_values else self.checker.check_json
            checked = check(call.name, call.given, (), span)
            self._add(checked, foreign.start, foreign.end, self._foreign_note(checked,
                                                                              foreign))
        return foreign.end

    def _foreign_note(self, checked: ToolCall | CallError, foreign: Foreign
                      ) -> tuple[CallWarning, ...]:
        if isinstance(checked, CallError):
            return ()
        written = f"the call to {checked.name} was written as {FORMAT_NAMES[foreign.format]}"
        if self.reader.native or self.checker.builtin(checked.name) is None:
            return (CallWarning(Notice.FOREIGN_FORMAT,
                                f"{written} in the reply's text; it was read and checked, but "
                                "make calls through function calling", foreign.start,
                                foreign.end, checked.name),)
        suggestion = self.reader.format_call(checked.name, checked.arguments)
        return (CallWarning(Notice.FOREIGN_FORMAT,
                            f"{written}; it was read and checked, but write calls in the "
                            f"prompt's format:\n{suggestion}", foreign.start, foreign.end,
                            checked.name, suggestion),)

    def _unreadable(self, foreign: Foreign) -> CallError:
        how = ("make calls through function calling" if self.reader.native else
               "write calls in the prompt's format: the tool's name as the outer tag and one "
               "child tag per parameter, as the tool descriptions show")
        problem = CallProblem(Problem.FOREIGN_FORMAT,
                              f"a call written as {FORMAT_NAMES[foreign.format]} could not be "
                              f"read ({foreign.problem}); {how}")
        raw = self.text[foreign.start:foreign.end]
        return CallError(foreign.format, (problem,), {}, raw, foreign.start, foreign.end)

    # --- regions ---------------------------------------------------------------------------

    def _fence(self, m: re.Match[str]) -> int:
        text = self.text
        mark = m.group("fence").lstrip(" ")
        char = mark[0]
        run = len(mark) - len(mark.lstrip(char))
        if char == "`" and "`" in mark[run:]:
            return m.end()  # not a fence: a backtick fence's info string has no backticks
        inner_start = min(m.end() + 1, len(text))
        closer = re.compile(rf"^[ ]{{0,3}}{re.escape(char)}{{{run},}}[ \t]*$", re.M).search(
            text, inner_start)
        if closer is None and self.partial:
            return len(text)  # an open fence: what it holds is not known yet
        inner_end, end = (len(text), len(text)) if closer is None else (closer.start(),
                                                                        closer.end())
        inner = _Pass(self.reader, text[inner_start:inner_end], False, quoting=True)
        inner.run()
        self._fenced(inner, m.start(), inner_start, end)
        return end

    def _fenced(self, inner: _Pass, start: int, inner_start: int, end: int) -> None:
        """What a closed fence from `start` to `end` holds: the call, or a quotation."""
        lone = inner.lone()
        if lone is None or self.partial or skip_space(self.text, end) < len(self.text):
            # other text in the fence, or prose after it: an example in an explanation
            if inner.found and self.quoted is None and not self.partial:
                self.quoted = _shift(inner.found[0], inner_start)
            return
        shifted = _shift(lone, inner_start)
        warning = CallWarning(Notice.FENCED_CALL, f"the call to {lone.item.name} was inside a "
                              "code fence; it was read, but write calls without a fence",
                              start, end, lone.item.name)
        self._add(shifted.item, start, end, (*shifted.warnings, warning))

    def _reasoning(self, name: str, start: int, body: int) -> int:
        close = self.index.next_closer(name, body)
        if close is None and self.partial:
            return len(self.text)
        inner_end = len(self.text) if close is None else close
        end = len(self.text) if close is None else close + len(name) + 3
        self._reasoning_region(name, start, body, inner_end, end)
        return end

    def _reasoning_region(self, name: str, start: int, body: int, inner_end: int,
                          end: int) -> None:
        self.reasoning.append((start, end))
        inner = _Pass(self.reader, self.text[body:inner_end], False, quoting=True)
        inner.run()
        if inner.found and self.reasoned is None:
            self.reasoned = (_shift(inner.found[0], body), name)

    def _implicit_reasoning(self) -> int:
        """Where reading starts: after the reply's last closing tag of a reasoning block
        (`</think>`, …); the text before it is the model's reasoning (module docstring)."""
        text = self.text
        last: tuple[int, str] | None = None
        for name in REASONING_TAGS:
            close = text.rfind(f"</{name}>")
            if close >= 0 and (last is None or close > last[0]):
                last = (close, name)
        if last is None:
            return 0
        close, name = last
        end = close + len(name) + 3
        self._reasoning_region(name, 0, 0, close, end)
        return end

    def _quoted(self, start: int) -> bool:
        """A call at `start` is an example: in quotation marks, inline code or `<code>`, a
        blockquote, an indented code block or `<pre>` (a fence is `_fence`'s)."""
        index = self.index
        return (start > 0 and self.text[start - 1] in _QUOTES) or \
            index.in_inline_code(start) or index.in_blockquote(start) or \
            index.in_html_code(start) or index.in_indented_code(start)

    # --- collecting ------------------------------------------------------------------------

    def _add(self, item: ToolCall | CallError, start: int, end: int,
             warnings: Sequence[CallWarning] = ()) -> None:
        if self.quoting:
            self.found.append(_Found(item, start, end, tuple(warnings)))
            return
        if self._quoted(start):
            if self.quoted is None:
                self.quoted = _Found(item, start, end)
            return
        self._emit_prose(start)
        if self.calls:
            item = _second(item)
        else:
            self.warnings.extend(warnings)
        self.calls += 1
        self.parts.append(item)
        self.prose = end

    def _emit_prose(self, upto: int) -> None:
        if upto > self.prose:
            self.parts.append(self.text[self.prose:upto])
        self.prose = max(self.prose, upto)

    def _hold(self, start: int) -> None:
        self._emit_prose(start)
        self.pending = self.text[start:]
        self.prose = len(self.text)
        self.stopped = True

    def lone(self) -> _Found | None:
        """The one call a quoting pass's text holds and nothing else, or None."""
        if len(self.found) == 1:
            only = self.found[0]
            if not (self.text[:only.start] + self.text[only.end:]).strip():
                return only
            return None
        if not self.found:
            bare = read_bare_json(self.text, 0, len(self.text), self.reader.offered)
            if bare is not None and (len(bare.calls) == 1 or bare.problem):
                self._foreign(bare, 0)
                return self.found[0] if len(self.found) == 1 else None
        return None

    # --- the end ---------------------------------------------------------------------------

    def _finish(self) -> ParsedMessage:
        if not self.quoting:
            if not self.stopped and not self.partial and not self.calls:
                self._bare_json()
            if self.partial and not self.stopped:
                self._held_tail()
            self._emit_prose(len(self.text) - len(self.pending))
            if not self.partial:
                self._notes()
        return ParsedMessage(tuple(self.parts), self.open, self.pending, tuple(self.warnings),
                             self.partial and not self.quoting)

    def _bare_json(self) -> None:
        """A message that is a bare JSON call (reasoning blocks aside)."""
        gaps = _gaps(self.reasoning, len(self.text))
        filled = [(s, e) for s, e in gaps if self.text[s:e].strip()]
        if len(filled) != 1:
            return
        start, end = filled[0]
        foreign = read_bare_json(self.text, start, end, self.reader.offered)
        if foreign is not None:
            self.parts.clear()
            self.prose = 0
            self._foreign(foreign, start)

    def _held_tail(self) -> None:
        """A streamed reply may end in the first characters of a call: hold them back."""
        text = self.text
        lt = text.rfind("<", self.prose)
        if lt >= 0 and _HELD.fullmatch(text, lt) and self._may_open(text[lt:]):
            self.pending = text[lt:]
            return
        bracket = text.rfind("[", self.prose)
        if bracket >= 0 and MISTRAL.startswith(text[bracket:]):
            self.pending = text[bracket:]

    def _may_open(self, tail: str) -> bool:
        names = (*self.reader.offered, "tool_call", *REASONING_TAGS)
        return any(f"<{n}>".startswith(tail) for n in names) or "<function=".startswith(tail) \
            or tail.startswith("<function=")

    def _notes(self) -> None:
        first = next((i for i, p in enumerate(self.parts) if not isinstance(p, str)), None)
        if first is not None:
            after = "".join(p for p in self.parts[first + 1:] if isinstance(p, str))
            if after.strip():
                name = self.parts[first].name  # type: ignore[union-attr]
                self.warnings.append(CallWarning(
                    Notice.TEXT_AFTER_CALL, f"the message goes on after the call to {name}: a "
                    "call should end the message, since it runs before anything written after "
                    "it is read", self.parts[first].end, len(self.text), name))  # type: ignore
        self._reasoning_note(first is None)
        if first is None and self.quoted is not None:
            name = self.quoted.item.name
            self.warnings.append(CallWarning(
                Notice.QUOTED_CALL, f"the message quotes a call to {name} (in a code block, "
                "inline code, a blockquote or quotation marks) and makes no call, so nothing "
                "was run; to call it, write the call on its own, unquoted", self.quoted.start,
                self.quoted.end, name))

    def _reasoning_note(self, no_call: bool) -> None:
        if self.reasoned is None:
            return
        found, tag = self.reasoned
        name = found.item.name
        if not no_call:
            self.warnings.append(CallWarning(
                Notice.CALL_IN_REASONING, f"a call to {name} inside the <{tag}> reasoning "
                "block was not run (the reply's own call was)", found.start, found.end, name))
            return
        problem = CallProblem(Problem.CALL_IN_REASONING,
                              f"the call to {name} was written inside the <{tag}> reasoning "
                              "block, so it was not run; write the call in the reply itself, "
                              "after the reasoning")
        error = CallError(name, (problem,), dict(found.item.arguments), found.item.raw,
                          found.start, found.end)
        text = self.text
        self.parts = [p for p in (text[:found.start], error, text[found.end:]) if p != ""]


def _second(item: ToolCall | CallError) -> CallError:
    """A call after the message's first: not run. One that could not have run anyway keeps
    its own problems, so the model is not told to resend it as it is."""
    if isinstance(item, CallError):
        problems: tuple[CallProblem, ...] = (CallProblem(
            Problem.SECOND_CALL, f"only one call per message is run, and this call to "
            f"{item.name} came after the first, so it was not run; it could not run as written "
            "either"), *item.problems)
    else:
        problems = (CallProblem(
            Problem.SECOND_CALL, f"only one call per message is run, and this call to "
            f"{item.name} came after the first: it was not run; send it in your next message, "
            "once you have the first call's result"),)
    return CallError(item.name, problems, dict(item.arguments), item.raw, item.start, item.end,
                     server=item.server, tool=item.tool)


def _shift(found: _Found, by: int) -> _Found:
    item = attrs.evolve(found.item, start=found.item.start + by, end=found.item.end + by)
    warnings = tuple(attrs.evolve(w, start=w.start + by, end=w.end + by)
                     for w in found.warnings)
    return _Found(item, found.start + by, found.end + by, warnings)


def _gaps(regions: Sequence[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    out = []
    pos = 0
    for start, end in sorted(regions):
        if start > pos:
            out.append((pos, start))
        pos = max(pos, end)
    if pos < n:
        out.append((pos, n))
    return out
