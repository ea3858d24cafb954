"""LangChain: the system message and the arguments of `bind_tools`.

    model = ChatOpenAI(model="gpt-4.1").bind_tools(**bind_tools_kwargs(prompt))
    reply = model.invoke([system_message(prompt), ("user", "List the files.")])

For OpenAI the tools are strict where the schema allows (each tool says so itself, so
`bind_tools` is not asked to force it); for an Anthropic model (`ChatAnthropic`) the system
message is the content blocks of `prompt.to_anthropic()` with their cache markers, and the tools
are Anthropic's shape with the marker after the built-in block. In text mode there is nothing to
bind: read the calls from the reply's text with `prompt.tools.parse`.
"""

from __future__ import annotations

from typing import Any

from .._compile.result import CompiledPrompt
from .._emit.toolset import wire_format
from ._common import ToolRunner, require, run_call

__all__ = ["system_message", "bind_tools_kwargs", "tool_messages"]


def system_message(prompt: CompiledPrompt, *, breakpoints: int = 2,
                   include_request: bool = True) -> Any:
    """A `SystemMessage`: the prompt's text, or (Anthropic) its cache-marked blocks."""
    messages = require("langchain_core.messages", "langchain")
    if wire_format(prompt.provider) == "anthropic":
        blocks = prompt.to_anthropic(breakpoints, include_request=include_request)["system"]
        return messages.SystemMessage(content=blocks)
    text = prompt.to_openai(include_request=include_request)["messages"][0]["content"]
    return messages.SystemMessage(content=text)


def bind_tools_kwargs(prompt: CompiledPrompt, *, breakpoints: int = 2) -> dict[str, Any]:
    """`tools` for `chat_model.bind_tools(**...)` (an empty list in text mode)."""
    if prompt.tools.mode != "native":
        return {"tools": []}
    fmt = wire_format(prompt.provider)
    if fmt == "anthropic":
        return {"tools": prompt.to_anthropic(breakpoints).get("tools", [])}
    return {"tools": prompt.tools.openai("chat", strict=fmt == "openai")}


def tool_messages(prompt: CompiledPrompt, message: Any, run_tool: ToolRunner) -> list[Any]:
    """`ToolMessage`s answering an `AIMessage`'s `tool_calls`, each call checked by
    `prompt.tools.decode` before `run_tool` sees it."""
    messages = require("langchain_core.messages", "langchain")
    out = []
    for call in getattr(message, "tool_calls", None) or ():
        result = run_call(prompt.tools, run_tool, call["name"], call["args"])
        out.append(messages.ToolMessage(content=result, tool_call_id=call["id"]))
    return out
