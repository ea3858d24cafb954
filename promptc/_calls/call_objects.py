"""A provider's own call object, read into (API shape, call id, name, arguments).

Accepted as the SDKs hand them out or as plain JSON, in every format of the format table
(promptc/_model/formats.py: each format's `read_call`): an Anthropic `tool_use` block, an
OpenAI Chat `tool_call`, a Responses `function_call` item, a Gemini function call, and so on;
a free-form tool's call (a Responses `custom_tool_call`, a Chat `custom` tool call) carries
the raw text of the tool's one parameter. SDK objects are read through their `model_dump()`
(pydantic), so no SDK is imported here. Anything else is a programming error of the caller:
`CallShapeError` says which shapes are accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .._base.errors import PromptcError
from .._model.formats import FORMATS, read_call
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


def read_provider_call(call: Any) -> ProviderCall:
    """The call in `call`, whichever provider's shape it has (each format's reader:
    promptc/_model/formats.py)."""
    d = _plain(call)
    if not isinstance(d, Mapping):
        raise CallShapeError(_EXPECTED + f"; got {type(call).__name__}")
    found = read_call(d)
    if found is None:
        raise CallShapeError(_EXPECTED + f"; got an object with keys {sorted(map(str, d))[:8]}")
    wire, call_id, name, arguments, freeform = found
    if not isinstance(name, str):
        raise CallShapeError(f"the call's name must be a string, got {type(name).__name__}")
    return ProviderCall(wire, call_id, name, arguments, freeform)


_EXPECTED = ("expected a provider's call object: " + ", ".join(f.calls_as for f in FORMATS) +
             ", as the SDK returns it or as JSON")
