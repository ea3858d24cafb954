"""Pydantic AI: the prompt as `instructions` and its tools as a toolset.

    agent = Agent("anthropic:claude-sonnet-4-5", **agent_kwargs(prompt, run_tool))
    print(agent.run_sync("List the files.").output)

On an Anthropic model the instructions are the prompt's cache blocks, in order: the static
block as a literal part, the session and request blocks as dynamic `InstructionPart`s. Pydantic
AI sends each part as its own system block, and with `anthropic_cache_instructions` puts its
marker after the literal part: exactly promptc's static block, which every session of the
variant shares (the date and the working directory stay out of it). Pydantic AI strips white
space from the ends of every part, so the blank lines at the two block boundaries are not sent;
the words are. Its tool marker
(`anthropic_cache_tool_definitions`) can only go on the last tool, so it is asked for only when
that tool ends the built-in block: after a session's own tools (skills, MCP) it would cache a
prefix that only sessions with the same tools share, which the static block's marker, later in
the same prefix, already covers, and it would take one of Anthropic's four markers for nothing.
Elsewhere the instructions
are the prompt's text as one string (Pydantic AI joins several parts with blank lines, which
would change the text), and on OpenAI's own API the settings carry the `prompt_cache_key`.
Tools are Pydantic AI tools built from their JSON Schemas (it adapts schemas per model itself,
strict mode included), each call checked before `run_tool` sees it.
"""

from __future__ import annotations

from typing import Any

from .._compile.result import CompiledPrompt
from .._emit.payloads import cache_key
from .._emit.toolset import wire_format
from .._model.provider import normalize_provider
from ._common import ToolRunner, answer_async, require

__all__ = ["agent_kwargs", "tools", "toolset", "instructions"]


def tools(prompt: CompiledPrompt, run_tool: ToolRunner) -> Any:
    """A `FunctionToolset` with one tool per offered tool (empty in text mode)."""
    require("pydantic_ai", "pydantic-ai")
    from pydantic_ai import Tool
    from pydantic_ai.toolsets import FunctionToolset
    offered = prompt.tools
    made = []
    if offered.mode == "native":
        for name, description, schema in offered.functions():
            made.append(Tool.from_schema(_runner(prompt, run_tool, name), name=name,
                                         description=description, json_schema=schema))
    return FunctionToolset(made)


def _runner(prompt: CompiledPrompt, run_tool: ToolRunner, name: str) -> Any:
    async def run(**arguments: Any) -> str:
        return await answer_async(prompt.tools, run_tool, name, arguments)
    return run


def instructions(prompt: CompiledPrompt) -> Any:
    """The instructions: the cache blocks as parts (Anthropic), else the text."""
    if wire_format(prompt.provider) != "anthropic":
        return prompt.text
    require("pydantic_ai", "pydantic-ai")
    from pydantic_ai.messages import InstructionPart
    blocks = [b for b in prompt.blocks if b.text]
    return [b.text if b.cache == "static" else InstructionPart(b.text, dynamic=True)
            for b in blocks]


def _built_in_block_ends_the_tools(prompt: CompiledPrompt) -> bool:
    """Pydantic AI marks only the last tool: that is the end of the built-in block (the tools
    every session shares) only when no session brings tools of its own after it."""
    tools = prompt.tools
    return tools.mode == "native" and 0 < tools.stable == len(tools.names)


def agent_kwargs(prompt: CompiledPrompt, run_tool: ToolRunner) -> dict[str, Any]:
    """`instructions`, `toolsets` and the cache settings, for
    `pydantic_ai.Agent(model, **agent_kwargs(prompt, run_tool))`."""
    out: dict[str, Any] = {"instructions": instructions(prompt),
                           "toolsets": [tools(prompt, run_tool)]}
    fmt = wire_format(prompt.provider)
    if fmt == "anthropic":
        settings: dict[str, Any] = {"anthropic_cache_instructions": True}
        if _built_in_block_ends_the_tools(prompt):
            settings["anthropic_cache_tool_definitions"] = True
        out["model_settings"] = settings
    elif fmt == "openai" and normalize_provider(prompt.provider.provider) == "openai":
        # Pydantic AI's `openai:` models use the Responses API: the key of that payload
        out["model_settings"] = {"openai_prompt_cache_key": cache_key(prompt,
                                                                      "openai-responses")}
    return out


toolset = tools  # the name before 0.2
