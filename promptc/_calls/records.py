"""The records of calls coming back: a checked call, a call that cannot run, its problems, the
warnings a client may pass on, and a reply split into prose and calls.

Everything is plain, frozen data a test can assert on and a client can log or send. Problem and
warning codes are stable strings (`Problem`, `Notice`); messages are written to be sent back to
the model as they are.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs

from .replies import Wire, result_for

__all__ = ["Problem", "Notice", "CallProblem", "CallWarning", "ToolCall", "CallError",
           "OpenCall", "ParsedMessage", "Part"]


class Problem(enum.StrEnum):
    """Why a call was not run (`CallProblem.code`)."""

    UNKNOWN_TOOL = "unknown-tool"
    UNKNOWN_SERVER = "unknown-server"
    UNKNOWN_PARAMETER = "unknown-parameter"
    DUPLICATE_PARAMETER = "duplicate-parameter"
    MISSING_PARAMETER = "missing-parameter"
    BAD_VALUE = "bad-value"
    NOT_AN_OPTION = "not-an-option"
    BAD_JSON = "bad-json"
    UNCLOSED_CALL = "unclosed-call"
    UNCLOSED_PARAMETER = "unclosed-parameter"
    STRAY_TEXT = "stray-text"
    SECOND_CALL = "second-call"
    NOT_IN_MODE = "not-allowed-in-mode"
    CALL_IN_REASONING = "call-in-reasoning"
    FOREIGN_FORMAT = "foreign-format"
    UNCHECKABLE = "uncheckable"


class Notice(enum.StrEnum):
    """What a client may pass on about a reply whose call was read (`CallWarning.code`)."""

    FOREIGN_FORMAT = "foreign-format"
    FENCED_CALL = "fenced-call"
    TEXT_AFTER_CALL = "text-after-call"
    CALL_IN_REASONING = "call-in-reasoning"
    QUOTED_CALL = "quoted-call"
    SCHEMA_UNCHECKED = "schema-unchecked"
    XML_ENTITIES = "xml-entities"


@attrs.frozen
class CallProblem:
    """One thing wrong with a call: `code` for programs, `message` for the model."""

    code: Problem
    message: str
    parameter: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"code": str(self.code), "message": self.message, "parameter": self.parameter}


@attrs.frozen
class CallWarning:
    """Something about a reply worth telling the model, although nothing failed: a call in
    another format (`suggestion` holds it in the taught one), a fenced call, text after the
    call. `start`/`end`: where in the reply it is."""

    code: Notice
    message: str
    start: int = 0
    end: int = 0
    name: str = ""
    suggestion: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": str(self.code), "message": self.message,
                               "start": self.start, "end": self.end}
        if self.name:
            out["name"] = self.name
        if self.suggestion:
            out["suggestion"] = self.suggestion
        return out


@attrs.frozen
class ToolCall:
    """A call the model made, its arguments converted and checked.

    `raw`, `start`, `end`: where a text call sits in the reply (empty for a native call).
    `server`, `tool`: the MCP server and tool it routes to (through `use_mcp_tool` or an
    `mcp__<server>__<tool>` function). `call_id`, `wire`: a provider call's id and API shape,
    which `tool_result` answers in. `warnings`: notes on this call (a schema promptc could not
    fully check).
    """

    name: str
    arguments: dict[str, Any]
    raw: str = ""
    start: int = 0
    end: int = 0
    server: str | None = None
    tool: str | None = None
    call_id: str | None = None
    wire: Wire | None = None
    warnings: tuple[CallWarning, ...] = ()

    @property
    def mcp_arguments(self) -> dict[str, Any] | None:
        """The MCP tool's own input (what `tools/call` takes), or None for a built-in tool."""
        if self.server is None:
            return None
        if self.name == "use_mcp_tool":
            inner = self.arguments.get("arguments")
            return inner if isinstance(inner, dict) else {}
        return self.arguments

    def tool_result(self, output: str, *, is_error: bool = False) -> dict[str, Any]:
        """The provider's tool-result item answering this call with `output`."""
        return result_for(self.wire, self.call_id, self.name, output, is_error)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "arguments": self.arguments}
        if self.server is not None:
            out["server"], out["tool"] = self.server, self.tool
        if self.call_id is not None:
            out["call_id"] = self.call_id
        if self.warnings:
            out["warnings"] = [w.to_dict() for w in self.warnings]
        return out


@attrs.frozen
class CallError:
    """A call that is not run: every problem found, what could be read, and (for a provider
    call) the ready result that tells the model (`tool_result()`)."""

    name: str
    problems: tuple[CallProblem, ...]
    arguments: dict[str, Any] = attrs.field(factory=dict)
    raw: str = ""
    start: int = 0
    end: int = 0
    server: str | None = None
    tool: str | None = None
    call_id: str | None = None
    wire: Wire | None = None

    @property
    def code(self) -> Problem:
        return self.problems[0].code

    @property
    def message(self) -> str:
        """Every problem in one text, fit to send back to the model as the call's result."""
        return "; ".join(p.message for p in self.problems)

    def tool_result(self) -> dict[str, Any]:
        """The provider's tool-result item (an error) carrying `message`."""
        return result_for(self.wire, self.call_id, self.name, self.message, True)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "code": str(self.code),
                               "message": self.message,
                               "problems": [p.to_dict() for p in self.problems],
                               "arguments": self.arguments}
        if self.server is not None:
            out["server"], out["tool"] = self.server, self.tool
        if self.call_id is not None:
            out["call_id"] = self.call_id
        return out


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
    """A reply split into prose, calls and errors, in order, and the warnings about it.

    `partial`: the text was a streamed prefix (`parse(..., partial=True)`). Its calls and errors
    are what has been read so far, for showing; none is final, since text still to come can
    change what a call is (a `</think>` after it makes everything before it reasoning, which is
    never run). So `call`, the call to run, is None until the reply is parsed complete.
    """

    parts: tuple[Part, ...]
    open: OpenCall | None = None
    pending: str = ""  # streamed text held back: it may be the start of a call
    warnings: tuple[CallWarning, ...] = ()
    partial: bool = False

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCall))

    @property
    def call(self) -> ToolCall | None:
        """The call to run: a text variant's message carries at most one. None for a
        streamed prefix (`partial`): only the complete reply says what runs."""
        if self.partial:
            return None
        calls = self.calls
        return calls[0] if calls else None

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

    def to_dict(self) -> dict[str, Any]:
        parts: list[Any] = []
        for part in self.parts:
            if isinstance(part, str):
                parts.append({"text": part})
            elif isinstance(part, ToolCall):
                parts.append({"call": part.to_dict()})
            else:
                parts.append({"error": part.to_dict()})
        out = {"parts": parts, "calls": [c.to_dict() for c in self.calls],
               "errors": [e.to_dict() for e in self.errors],
               "warnings": [w.to_dict() for w in self.warnings],
               "complete": self.complete}
        if self.partial:
            out["partial"] = True
        return out
