"""A provider's own call object, read into (API shape, call id, name, arguments).

Accepted as the SDKs hand them out or as plain JSON: an Anthropic `tool_use` block, an OpenAI
Chat Completions `tool_call`, a Responses API `function_call` item, a Gemini `functionCall`
(the `FunctionCall` itself, or the part holding it, in the SDK's or in REST spelling), and a
free-form tool's call (a Responses `custom_tool_call`, a Chat `custom` tool call), whose
`input` is the raw text of the tool's one parameter. SDK
objects are read through their `model_dump()` (pydantic), so no SDK is imported here. Anything
else is a programming error of the caller: `CallShapeError` says which shapes are accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .._base.errors import PromptcError
from .replies import Wire

__all__ = ["ProviderCall", "CallShapeError", "read_provider_call"]


class CallShapeError(PromptcError, TypeError):
    """The object given is not a call object of a provider promptc knows."""


@attrs.frozen
class ProviderCall:
    wire: Wire
    call_id: str | None
    name: str
    arguments: str | Mapping[str, Any] | None  # JSON text (OpenAI) or decoded (the others)
    freeform: bool = False  # a free-form tool's call: `arguments` is its raw input text


def _plain(call: Any) -> Any:
    if isinstance(call, Mapping):
        return call
    dump = getattr(call, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude_none=True)
    return call


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _anthropic(d: Mapping[str, Any]) -> ProviderCall:
    return ProviderCall("anthropic", _string(d.get("id")), _name(d.get("name")), d.get("input"))


def _responses(d: Mapping[str, Any]) -> ProviderCall:
    return ProviderCall("openai-responses", _string(d.get("call_id")), _name(d.get("name")),
                        d.get("arguments"))


def _custom(d: Mapping[str, Any], wire: Wire, call_id: Any) -> ProviderCall:
    text = d.get("input")
    return ProviderCall(wire, _string(call_id), _name(d.get("name")),
                        text if isinstance(text, str) else None, freeform=True)


def _chat(d: Mapping[str, Any]) -> ProviderCall:
    function = d["function"]
    return ProviderCall("openai-chat", _string(d.get("id")), _name(function.get("name")),
                        function.get("arguments"))


def _gemini(d: Mapping[str, Any], wire: Wire) -> ProviderCall:
    return ProviderCall(wire, _string(d.get("id")), _name(d.get("name")), d.get("args"))


def _name(value: Any) -> str:
    if not isinstance(value, str):
        raise CallShapeError(f"the call's name must be a string, got {type(value).__name__}")
    return value


def read_provider_call(call: Any) -> ProviderCall:
    """The call in `call`, whichever provider's shape it has."""
    d = _plain(call)
    if not isinstance(d, Mapping):
        raise CallShapeError(_EXPECTED + f"; got {type(call).__name__}")
    kind = d.get("type")
    if kind == "tool_use":
        return _anthropic(d)
    if kind == "function_call":
        return _responses(d)
    if kind == "custom_tool_call":
        return _custom(d, "openai-responses-custom", d.get("call_id"))
    if kind == "custom" and isinstance(d.get("custom"), Mapping):
        return _custom(d["custom"], "openai-chat", d.get("id"))
    if isinstance(d.get("function"), Mapping) and "arguments" in d["function"]:
        return _chat(d)
    for key, wire in (("function_call", "gemini"), ("functionCall", "gemini-rest")):
        inner = d.get(key)
        if isinstance(inner, Mapping):
            return _gemini(inner, wire)  # type: ignore[arg-type]
    if "name" in d and "args" in d:
        return _gemini(d, "gemini")
    raise CallShapeError(_EXPECTED + f"; got an object with keys {sorted(map(str, d))[:8]}")


_EXPECTED = ("expected a provider's call object: an Anthropic tool_use block, an OpenAI Chat "
             "tool_call, a Responses function_call or custom_tool_call item, or a Gemini "
             "function call (or its part), as the SDK returns it or as JSON")
