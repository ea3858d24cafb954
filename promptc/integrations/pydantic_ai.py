"""Pydantic AI: the prompt as `instructions` and its tools as a toolset.

    agent = Agent("anthropic:claude-sonnet-4-5", **agent_kwargs(prompt, run_tool))
    print(agent.run_sync("List the files.").output)

The instructions are the prompt's text as one string (Pydantic AI joins a list of parts with
blank lines, which would change the text). Tools are Pydantic AI tools built from their JSON
Schemas (Pydantic AI adapts schemas per model itself, strict mode included). Cache markers are
Pydantic AI's to place: on an Anthropic model the settings ask it to cache the tool definitions
and the instructions, once each; promptc adds none of its own.
"""

from __future__ import annotations

from typing import Any

from .._compile.result import CompiledPrompt
from .._emit.toolset import wire_format
from ._common import ToolRunner, require, run_call_async

__all__ = ["agent_kwargs", "toolset"]


def toolset(prompt: CompiledPrompt, run_tool: ToolRunner) -> Any:
    """A `FunctionToolset` with one tool per offered tool (empty in text mode)."""
    require("pydantic_ai", "pydantic-ai")
    from pydantic_ai import Tool
    from pydantic_ai.toolsets import FunctionToolset
    tools = prompt.tools
    made = []
    if tools.mode == "native":
        for name, description, schema in tools.functions():
            made.append(Tool.from_schema(_runner(prompt, run_tool, name), name=name,
                                         description=description, json_schema=schema))
    return FunctionToolset(made)


def _runner(prompt: CompiledPrompt, run_tool: ToolRunner, name: str) -> Any:
    async def run(**arguments: Any) -> str:
        return await run_call_async(prompt.tools, run_tool, name, arguments)
    return run


def agent_kwargs(prompt: CompiledPrompt, run_tool: ToolRunner) -> dict[str, Any]:
    """`instructions`, `toolsets` and (for an Anthropic model) the cache settings, for
    `pydantic_ai.Agent(model, **agent_kwargs(prompt, run_tool))`."""
    out: dict[str, Any] = {"instructions": prompt.text, "toolsets": [toolset(prompt, run_tool)]}
    if wire_format(prompt.provider) == "anthropic":
        out["model_settings"] = {"anthropic_cache_tool_definitions": True,
                                 "anthropic_cache_instructions": True}
    return out
