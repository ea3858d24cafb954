"""`llm` (Simon Willison's library and CLI): `system` and `tools` for `model.prompt` or
`model.chain`.

    chain = llm.get_model("gpt-4.1").chain("List the files.", **prompt_kwargs(prompt, run_tool))
    print(chain.text())

`llm` sends tools with plain JSON Schemas (no strict mode), and runs each call through the
tool's implementation: here `run_tool`, after `prompt.tools.decode` checked the call. `llm`
sends no `prompt_cache_key` (its OpenAI plugin has no option for it). Its
plugins for other providers take the same `llm.Tool`s. In text mode there are no tools to give:
read the calls from the reply's text with `prompt.tools.parse`.
"""

from __future__ import annotations

from typing import Any

from .._compile.result import CompiledPrompt
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


def prompt_kwargs(prompt: CompiledPrompt, run_tool: ToolRunner) -> dict[str, Any]:
    """`system` (the prompt's text) and `tools`, for `model.prompt(...)` / `model.chain(...)`."""
    out: dict[str, Any] = {"system": prompt.text}
    made = tools(prompt, run_tool)
    if made:
        out["tools"] = made
    return out
