"""A call's answer in the shape of the API it came from.

Each format pairs a result with its call in its own way (promptc/_model/formats.py, each
format's `replies`, one per spelling its calls arrive in): Anthropic a `tool_result` block
naming the `tool_use_id` (with `is_error`), OpenAI Chat a `tool` message with the
`tool_call_id`, the Responses API a `function_call_output` item with the `call_id`, Gemini a
function response part spelled as the call was (`function_call` in the SDK's form,
`functionCall` in REST JSON), and so on.
"""

from __future__ import annotations

from typing import Any

from .._model.formats import WIRES, result_shape

__all__ = ["Wire", "WIRES", "result_for"]

Wire = str  # a spelling a call arrives in: one of WIRES


def result_for(wire: Wire | None, call_id: str | None, name: str, content: str,
               is_error: bool) -> dict[str, Any]:
    """The result item for a call that came in `wire`'s shape. A call read from text has no
    wire: its result goes back as the next user message, as plain text."""
    if wire is None:
        raise ValueError(f"the call to {name!r} was read from text, not from a provider's call "
                         "object: send its result (or the error's message) back as the next "
                         "user message")
    return result_shape(wire)(call_id, name, content, is_error)
