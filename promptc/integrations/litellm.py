"""LiteLLM: keyword arguments for `litellm.completion` (and `acompletion`), for any route.

    kwargs = completion_kwargs(prompt, [{"role": "user", "content": "Hi"}])
    history = kwargs["messages"][1:]      # the conversation as sent, promptc's messages included
    reply = litellm.completion(**kwargs)
    history += [reply.choices[0].message, *answer_calls(prompt, reply.choices[0].message, run_tool)]
    kwargs = completion_kwargs(later_prompt, history, previous=prompt)  # + an update, if any

Tools always go in OpenAI's shape (LiteLLM translates them for every provider); strict schemas
only on OpenAI routes, with a `prompt_cache_key` there. On an Anthropic route (Anthropic, or
Claude on Bedrock/Vertex) the system prompt goes as content blocks with the cache markers of
`prompt.to_anthropic()`, and a marker on the tools stays on the same tool: LiteLLM passes
`cache_control` through to Anthropic. With the split placement (the default) the session's
details open the conversation as a user message of their own (on an Anthropic route its
blocks keep their marker); given the previous prompt, the conversation is kept as it is and an
update, when the details changed, follows it as a message of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._compile.compiled import CompiledPrompt
from .._emit.details import compose, details_message
from .._emit.payloads import cache_key
from .._model.provider import normalize_provider
from ._common import Mode, ToolRunner, answer, framework_format, require

__all__ = ["completion_kwargs", "model_name", "answer_calls", "run_tool_calls"]

_PREFIX = {"google": "gemini", "google_ai_studio": "gemini", "vertex": "vertex_ai"}


def model_name(prompt: CompiledPrompt) -> str:
    """LiteLLM's `provider/model` for the prompt's provider (`anthropic/claude-sonnet-4-5`,
    `gemini/gemini-2.5-pro`, `openrouter/anthropic/claude-sonnet-4.5`)."""
    info = prompt.provider
    name = normalize_provider(info.provider)
    if not name:
        return info.model
    return f"{_PREFIX.get(name, name)}/{info.model}"


def completion_kwargs(prompt: CompiledPrompt, messages: Iterable[Mapping[str, Any]] = (), *,
                      model: str | None = None, breakpoints: int = 2,
                      include_request: bool = True, previous: CompiledPrompt | None = None
                      ) -> dict[str, Any]:
    """`model`, `messages` (the system prompt first, then with the split the details: the
    first message before `messages`, or given `previous` the update after them), and `tools`
    when the variant sends them natively (+ `prompt_cache_key` on OpenAI routes)."""
    fmt = framework_format(prompt.provider)
    native = prompt.tools.mode == "native"
    system: dict[str, Any]
    tools: list[dict[str, Any]] = []
    first: dict[str, Any] | None = None
    if fmt == "anthropic":
        payload = prompt.to_anthropic(breakpoints, include_request=include_request)
        system = {"role": "system", "content": payload["system"]}
        if prompt.message:  # its blocks, with the catalogue's marker when there is one
            first = {"role": "user", "content": payload["messages"][0]["content"]}
        if native:
            tools = prompt.tools.openai("chat", strict=False)
            for mine, marked in zip(tools, payload.get("tools", ())):
                if "cache_control" in marked:
                    mine["cache_control"] = marked["cache_control"]
    else:
        text = prompt.to_openai("chat", include_request=include_request)["messages"][0]
        system = {"role": "system", "content": text["content"]}
        if native:
            tools = prompt.tools.openai("chat", strict=fmt == "openai")
    if first is None and prompt.message:
        first = details_message("openai", prompt.message)
    update = prompt.message_update(previous) if previous is not None else ""
    sent = compose(first, details_message("openai", update) if update else None, list(messages),
                   previous is not None)
    out: dict[str, Any] = {"model": model or model_name(prompt), "messages": [system, *sent]}
    if tools:
        out["tools"] = tools
    if fmt == "openai" and normalize_provider(prompt.provider.provider) == "openai":
        out["prompt_cache_key"] = cache_key(prompt, "openai")
    return out


def answer_calls(prompt: CompiledPrompt, message: Any, run_tool: ToolRunner, *,
                 mode: Mode = None) -> list[dict[str, Any]]:
    """The `tool` messages answering an assistant message's `tool_calls` (LiteLLM's OpenAI
    shape), one per call and in order: each call checked (against its tool and `mode`, by
    default the prompt's) before `run_tool` sees it."""
    require("litellm", "litellm")
    return [{"role": "tool", "tool_call_id": call.id,
             "content": answer(prompt.tools, run_tool, call.function.name,
                               call.function.arguments, mode=mode)}
            for call in getattr(message, "tool_calls", None) or ()]


run_tool_calls = answer_calls  # the name before 0.2
