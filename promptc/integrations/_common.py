"""What every integration shares: importing a framework with a clear error, answering calls.

Every call an integration hands to the user's `run_tool` has been through `ToolSet.decode`,
the one call checker: the tool is offered, the mode allows it, the arguments fit (an MCP tool's
against its server's input schema). Whatever fails becomes the call's answer, a text the model
reads, and the runner never sees the call; an exception the runner raises becomes that call's
answer too (logged on the `promptc` logger), so the other calls of the same reply still run and
keep their results.
"""

from __future__ import annotations

import importlib
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from types import ModuleType
from typing import Any, Literal

from .._base.errors import MissingExtraError
from .._calls.records import CallError, ToolCall
from .._emit.toolset import ToolSet, wire_format
from .._model.provider import ProviderInfo

__all__ = ["MissingExtraError", "require", "ToolRunner", "Mode", "answer", "answer_async",
           "failure_text", "framework_format"]

ToolRunner = Callable[[ToolCall], "str | Awaitable[str]"]
Mode = Literal["plan", "act"] | None

_log = logging.getLogger("promptc")


def require(module: str, extra: str) -> ModuleType:
    """Import a framework module, or say which extra brings it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(f"this integration needs {module.split('.')[0]!r}: "
                                f"pip install 'promptc[{extra}]' ({exc})") from None


# The shapes the frameworks (LiteLLM, LangChain, Pydantic AI) take from promptc.
FRAMEWORK_FORMATS = ("anthropic", "openai", "gemini")


def framework_format(provider: ProviderInfo) -> str:
    """The shape a framework's route to the provider takes from promptc: the provider's own
    API's where a framework speaks it; else (a cloud's own format, which the frameworks'
    adapters write from these) Anthropic's cache-marked blocks for Claude, OpenAI's for the
    rest."""
    fmt = wire_format(provider)
    if fmt in FRAMEWORK_FORMATS:
        return fmt
    return "anthropic" if (provider.family or "").lower().startswith("claude") else "openai"


def failure_text(call: ToolCall, exc: BaseException) -> str:
    """The answer to a call whose tool raised."""
    _log.warning("tool %s raised %s", call.name, type(exc).__name__, exc_info=exc)
    return f"error: the tool {call.name} failed: {type(exc).__name__}: {exc}"


def answer(tools: ToolSet, run_tool: ToolRunner, name: str,
           arguments: str | Mapping[str, Any] | None, *, mode: Mode = None) -> str:
    """A native call checked, then run: its output, or the error text for the model."""
    call = tools.decode(name, arguments, mode=mode)
    if isinstance(call, CallError):
        return f"error: {call.message}"
    try:
        result = run_tool(call)
    except Exception as exc:  # the user's tool: its failure is this call's answer
        return failure_text(call, exc)
    if inspect.isawaitable(result):  # a wiring mistake, not a tool failure: said loudly
        if inspect.iscoroutine(result):
            result.close()
        raise TypeError("run_tool returned an awaitable: this framework calls tools "
                        "synchronously; give a plain function")
    return str(result)


async def answer_async(tools: ToolSet, run_tool: ToolRunner, name: str,
                       arguments: str | Mapping[str, Any] | None, *, mode: Mode = None) -> str:
    """`answer` for frameworks that run tools in an event loop (`run_tool` may be async)."""
    call = tools.decode(name, arguments, mode=mode)
    if isinstance(call, CallError):
        return f"error: {call.message}"
    try:
        result = run_tool(call)
        if inspect.isawaitable(result):
            result = await result
    except Exception as exc:
        return failure_text(call, exc)
    return str(result)
