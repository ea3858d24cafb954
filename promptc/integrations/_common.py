"""What every integration shares: importing a framework with a clear error, running calls."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Awaitable, Callable, Mapping
from types import ModuleType
from typing import Any

from .._base.errors import PromptcError
from .._emit.parser import CallError, ToolCall
from .._emit.toolset import ToolSet

__all__ = ["MissingExtraError", "require", "ToolRunner", "run_call", "run_call_async"]

ToolRunner = Callable[[ToolCall], "str | Awaitable[str]"]


class MissingExtraError(PromptcError, ImportError):
    """An integration's framework is not installed."""


def require(module: str, extra: str) -> ModuleType:
    """Import a framework module, or say which extra brings it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(f"this integration needs {module.split('.')[0]!r}: "
                                f"pip install 'promptc[{extra}]' ({exc})") from None


def _checked(tools: ToolSet, name: str, arguments: str | Mapping[str, Any] | None
             ) -> ToolCall | str:
    """The call, checked against its tool and against the mode: plan and act offer the same
    tools (so a switch keeps the prompt cache), and a call the mode rules out is refused here,
    as the prompt's mode section told the model."""
    call = tools.decode(name, arguments)
    if isinstance(call, CallError):
        return f"error: {call.message}"
    mode = tools.context.mode if tools.context is not None else None
    if mode in ("plan", "act") and call.name not in tools.allowed_in(mode):
        return f"error: {call.name} is not available in {mode} mode"
    return call


def run_call(tools: ToolSet, run_tool: ToolRunner, name: str,
             arguments: str | Mapping[str, Any] | None) -> str:
    """Decode a native call and run it; a call that does not fit its tool comes back as the
    error text for the model (the runner never sees it)."""
    call = _checked(tools, name, arguments)
    if isinstance(call, str):
        return call
    result = run_tool(call)
    if inspect.isawaitable(result):
        raise TypeError("run_tool returned an awaitable: this framework calls tools "
                        "synchronously; give a plain function")
    return str(result)


async def run_call_async(tools: ToolSet, run_tool: ToolRunner, name: str,
                         arguments: str | Mapping[str, Any] | None) -> str:
    call = _checked(tools, name, arguments)
    if isinstance(call, str):
        return call
    result = run_tool(call)
    if inspect.isawaitable(result):
        result = await result
    return str(result)
