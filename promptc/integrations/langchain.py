"""LangChain: the messages a request starts with, the arguments of `bind_tools`, and the
answers to calls.

    model = ChatOpenAI(model="gpt-4.1").bind_tools(**bind_tools_kwargs(prompt))
    sent = messages(prompt, [("user", "List the files.")])   # system, details, yours
    reply = model.invoke(sent)
    history = [*sent[1:], reply, *answer_calls(prompt, reply, run_tool)]
    reply = model.invoke(messages(later_prompt, history, previous=prompt))  # + an update

With the split placement (the default) the system message is the part every session shares and
the session's details are a human message of their own that opens the conversation; given the
previous prompt, the conversation is kept as it is and an update, when the details changed,
follows it as a message of its own.

For OpenAI the tools are strict where the schema allows (each tool says so itself, so
`bind_tools` is not asked to force it) and a `prompt_cache_key` rides along; for an Anthropic
model (`ChatAnthropic`) the system message is the content blocks of `prompt.to_anthropic()` with
their cache markers, and the tools are Anthropic's shape with the marker after the built-in
block. A call LangChain could not parse (`reply.invalid_tool_calls`) is answered too, with what
was wrong, so the next request carries no call id without its answer. In text mode there is
nothing to bind: read the calls from the reply's text with `prompt.tools.parse`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._compile.compiled import CompiledPrompt
from .._emit.payloads import cache_key
from .._model.provider import normalize_provider
from ._common import Mode, ToolRunner, answer, framework_format, require

__all__ = ["system_message", "messages", "bind_tools_kwargs", "answer_calls", "tool_messages"]


def system_message(prompt: CompiledPrompt, *, breakpoints: int = 2,
                   include_request: bool = True) -> Any:
    """A `SystemMessage`: the system prompt as sent, or (Anthropic) its cache-marked blocks."""
    lc = require("langchain_core.messages", "langchain")
    if framework_format(prompt.provider) == "anthropic":
        blocks = prompt.to_anthropic(breakpoints, include_request=include_request)["system"]
        return lc.SystemMessage(content=blocks)
    text = prompt.to_openai("chat", include_request=include_request)["messages"][0]["content"]
    return lc.SystemMessage(content=text)


def messages(prompt: CompiledPrompt, conversation: Iterable[Any] = (), *,
             previous: CompiledPrompt | None = None, breakpoints: int = 2,
             include_request: bool = True) -> list[Any]:
    """What a request sends: the system message, then with the split the details (a human
    message of their own) before `conversation`, or given `previous` the conversation as
    kept and the update, when the details changed, after it."""
    lc = require("langchain_core.messages", "langchain")
    out = [system_message(prompt, breakpoints=breakpoints, include_request=include_request)]
    given = list(conversation)
    if previous is not None:
        update = prompt.message_update(previous)
        return [*out, *given, *([lc.HumanMessage(content=update)] if update else [])]
    if not prompt.message:
        return [*out, *given]
    if framework_format(prompt.provider) == "anthropic":  # its blocks, with the marker
        blocks = prompt.to_anthropic(breakpoints, include_request=include_request)["messages"]
        first = lc.HumanMessage(content=blocks[0]["content"])
    else:
        first = lc.HumanMessage(content=prompt.message)
    return [*out, first, *given]


def bind_tools_kwargs(prompt: CompiledPrompt, *, breakpoints: int = 2) -> dict[str, Any]:
    """`tools` for `chat_model.bind_tools(**...)` (an empty list in text mode), and on OpenAI's
    own API the `prompt_cache_key` (bound with the tools, sent with every request)."""
    fmt = framework_format(prompt.provider)
    out: dict[str, Any] = {"tools": []}
    if prompt.tools.mode == "native":
        if fmt == "anthropic":
            out["tools"] = prompt.to_anthropic(breakpoints).get("tools", [])
        else:
            out["tools"] = prompt.tools.openai("chat", strict=fmt == "openai")
    if fmt == "openai" and normalize_provider(prompt.provider.provider) == "openai":
        out["prompt_cache_key"] = cache_key(prompt, "openai")
    return out


def answer_calls(prompt: CompiledPrompt, message: Any, run_tool: ToolRunner, *,
                 mode: Mode = None) -> list[Any]:
    """`ToolMessage`s answering an `AIMessage`: one per call in `tool_calls` (checked against
    its tool and `mode`, by default the prompt's, before `run_tool` sees it) and one, with
    status "error", per call in `invalid_tool_calls`."""
    lc = require("langchain_core.messages", "langchain")
    out = []
    for call in getattr(message, "tool_calls", None) or ():
        result = answer(prompt.tools, run_tool, call["name"], call["args"], mode=mode)
        out.append(lc.ToolMessage(content=result, tool_call_id=call["id"],
                                  status="error" if result.startswith("error: ") else "success"))
    for bad in getattr(message, "invalid_tool_calls", None) or ():
        out.append(lc.ToolMessage(content=_unreadable(prompt, bad, mode),
                                  tool_call_id=bad.get("id") or "", status="error"))
    return out


def _unreadable(prompt: CompiledPrompt, bad: Any, mode: Mode) -> str:
    """Why a call LangChain could not parse is not run, in the checker's words where it can say
    (the arguments' own JSON error), else LangChain's."""
    name = bad.get("name") or ""
    checked = prompt.tools.decode(name, bad.get("args") or "", mode=mode)
    message = getattr(checked, "message", None)
    if message:
        return f"error: {message}"
    return f"error: the call to {name or 'a tool'} could not be read: {bad.get('error') or ''}"


tool_messages = answer_calls  # the name before 0.2
