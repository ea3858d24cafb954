"""`llm` (Simon Willison's library and CLI): the messages and `tools` for `model.prompt` or
`model.chain`.

    chain = llm.get_model("gpt-4.1").chain(**prompt_kwargs(prompt, run_tool, "List the files."))
    print(chain.text())

With the split placement (the default) the system prompt is the part every session shares and
the session's details are a user message of their own before `text`; with a later prompt of
the same conversation, give `previous` and the conversation as sent (`history`, llm `Message`s
without the system one): they are kept as they are and an update, when the details changed,
follows the new text as a message of its own. A prompt sent as one string gives `system`
(and the text stays `model.prompt`'s own argument) when no `text` is given.

`llm` sends tools with plain JSON Schemas (no strict mode), and runs each call through the
tool's implementation: here `run_tool`, after `prompt.tools.decode` checked the call. `llm`
sends no `prompt_cache_key` (its OpenAI plugin has no option for it). Its
plugins for other providers take the same `llm.Tool`s. In text mode there are no tools to give:
read the calls from the reply's text with `prompt.tools.parse`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._compile.compiled import CompiledPrompt
from ._common import ToolRunner, answer, require

__all__ = ["prompt_kwargs", "tools"]


def tools(prompt: CompiledPrompt, run_tool: ToolRunner) -> list[Any]:
    """One `llm.Tool` per natively offered tool."""
    llm = require("llm", "llm")
    if prompt.tools.mode != "native":
        return []
    out = []
    for name, description, schema in prompt.tools.functions():
        out.append(llm.Tool(name=name, description=description, input_schema=schema,
                            implementation=_runner(prompt, run_tool, name)))
    return out


def _runner(prompt: CompiledPrompt, run_tool: ToolRunner, name: str) -> Any:
    def run(**arguments: Any) -> str:
        return answer(prompt.tools, run_tool, name, arguments)
    return run


def prompt_kwargs(prompt: CompiledPrompt, run_tool: ToolRunner, text: str | None = None, *,
                  previous: CompiledPrompt | None = None,
                  history: Iterable[Any] | None = None) -> dict[str, Any]:
    """`messages` (or, for a prompt sent as one string and no `text`, `system`) and `tools`,
    for `model.prompt(...)` / `model.chain(...)`."""
    out: dict[str, Any] = {}
    if not prompt.message and text is None and history is None:
        out["system"] = prompt.system
    else:
        llm = require("llm", "llm")
        sent = [llm.system(prompt.system), *(history or ())]
        update = prompt.message_update(previous) if previous is not None else ""
        if previous is None and prompt.message:
            sent.insert(1, llm.user(prompt.message))
        if text is not None:
            sent.append(llm.user(text))
        if update:
            sent.append(llm.user(update))
        out["messages"] = sent
    made = tools(prompt, run_tool)
    if made:
        out["tools"] = made
    return out
