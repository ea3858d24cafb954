"""A call's answer in the shape of the API it came from.

Each provider pairs a result with its call differently: Anthropic a `tool_result` block naming
the `tool_use_id` (with `is_error`), OpenAI Chat a `tool` message with the `tool_call_id`, the
Responses API a `function_call_output` item with the `call_id` (a `custom_tool_call_output`
for a free-form tool's call), Gemini a function response part
naming the function (and its id, when the call had one), spelled as the call was (`function_call`
in the SDK's form, `functionCall` in REST JSON).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

__all__ = ["Wire", "WIRES", "result_for"]

Wire = Literal["anthropic", "openai-chat", "openai-responses", "openai-responses-custom",
               "gemini", "gemini-rest"]
WIRES: tuple[Wire, ...] = ("anthropic", "openai-chat", "openai-responses",
                           "openai-responses-custom", "gemini", "gemini-rest")


def _anthropic(call_id: str | None, _name: str, content: str, is_error: bool
               ) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": content}
    if is_error:
        out["is_error"] = True
    return out


def _chat(call_id: str | None, _name: str, content: str, _is_error: bool) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def _responses(call_id: str | None, _name: str, content: str, _is_error: bool
               ) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": content}


def _custom(call_id: str | None, _name: str, content: str, _is_error: bool) -> dict[str, Any]:
    return {"type": "custom_tool_call_output", "call_id": call_id, "output": content}


def _gemini_response(call_id: str | None, name: str, content: str, is_error: bool
                     ) -> dict[str, Any]:
    response: dict[str, Any] = {"name": name,
                                "response": {"error" if is_error else "output": content}}
    if call_id is not None:
        response["id"] = call_id
    return response


def _gemini(call_id: str | None, name: str, content: str, is_error: bool) -> dict[str, Any]:
    return {"function_response": _gemini_response(call_id, name, content, is_error)}


def _gemini_rest(call_id: str | None, name: str, content: str, is_error: bool
                 ) -> dict[str, Any]:
    return {"functionResponse": _gemini_response(call_id, name, content, is_error)}


_SHAPES: dict[str, Callable[[str | None, str, str, bool], dict[str, Any]]] = {
    "anthropic": _anthropic, "openai-chat": _chat, "openai-responses": _responses,
    "openai-responses-custom": _custom, "gemini": _gemini, "gemini-rest": _gemini_rest,
}


def result_for(wire: Wire | None, call_id: str | None, name: str, content: str,
               is_error: bool) -> dict[str, Any]:
    """The result item for a call that came in `wire`'s shape. A call read from text has no
    wire: its result goes back as the next user message, as plain text."""
    if wire is None:
        raise ValueError(f"the call to {name!r} was read from text, not from a provider's call "
                         "object: send its result (or the error's message) back as the next "
                         "user message")
    return _SHAPES[wire](call_id, name, content, is_error)
