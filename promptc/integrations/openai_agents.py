"""The OpenAI Agents SDK: an `Agent` per session, its instructions dynamic, its tools promptc's.

    agent = make_agent(compiler, provider, context, run_tool, model="gpt-4.1")
    result = Runner.run_sync(agent, "List the files.", context=context)

One compile makes the agent: its FunctionTools come from that prompt's tool set (strict where
OpenAI's strict mode takes the schema — the SDK's default strict conversion would otherwise make
every optional parameter required), and its `instructions` callable hands the SDK that prompt's
text. A run whose context (`Runner.run(..., context=...)`) is another PromptContext of the same
session (a new date, a runtime value, plan or act) gets that context's prompt, compiled then,
and its calls are checked against that context's mode; a new session is a new agent
(`make_agent` again: building one costs a compile, nothing more).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from .._compile.compiler import Compiler
from .._compile.result import CompiledPrompt
from .._emit.payloads import cache_key
from .._model.context import PromptContext
from .._model.provider import ProviderInfo, normalize_provider
from ._common import Mode, ToolRunner, answer_async, require

__all__ = ["make_agent", "tools", "function_tools", "dynamic_instructions"]


def _run_mode(tool_context: Any) -> Mode:
    """The mode of the run a call belongs to: its PromptContext's, when it was given one."""
    given = getattr(tool_context, "context", None)
    return given.mode if isinstance(given, PromptContext) else None


def tools(prompt: CompiledPrompt, run_tool: ToolRunner) -> list[Any]:
    """One `agents.FunctionTool` per offered tool, with the strictness its schema allows; each
    call is checked against the mode of the run it belongs to."""
    agents = require("agents", "openai-agents")
    toolset = prompt.tools
    out = []
    for spec in toolset.openai("responses", strict=True):
        name = spec["name"]

        async def invoke(ctx: Any, arguments: str, name: str = name) -> str:
            return await answer_async(toolset, run_tool, name, arguments, mode=_run_mode(ctx))

        out.append(agents.FunctionTool(name=name, description=spec["description"],
                                       params_json_schema=spec["parameters"],
                                       on_invoke_tool=invoke,
                                       strict_json_schema=spec["strict"]))
    return out


def dynamic_instructions(compiler: Compiler, provider: ProviderInfo, prompt: CompiledPrompt,
                         context: PromptContext) -> Any:
    """An `instructions` callable for `agents.Agent`: the session's prompt, or the prompt of
    the PromptContext a run was given as its context."""
    def dynamic(run_context: Any, _agent: Any) -> str:
        given = getattr(run_context, "context", None)
        if isinstance(given, PromptContext) and given is not context:
            return compiler.compile(provider, given, variant=prompt.variant.id).text
        return prompt.text
    return dynamic


def make_agent(compiler: Compiler, provider: ProviderInfo,
               context: PromptContext | Mapping[str, Any] | None, run_tool: ToolRunner, *,
               name: str = "promptc", **agent_kwargs: Any) -> Any:
    """An `agents.Agent` for one session (`agent_kwargs`: model, model_settings, handoffs…).
    Native tools only: a variant that describes its tools in text gets no FunctionTools."""
    agents = require("agents", "openai-agents")
    ctx = compiler.context(context)
    prompt = compiler.compile(provider, ctx)
    made = tools(prompt, run_tool) if prompt.tools.mode == "native" else []
    if normalize_provider(prompt.provider.provider) == "openai":  # route by what is sent first
        settings = agent_kwargs.pop("model_settings", None) or agents.ModelSettings()
        extra = dict(settings.extra_args or {})
        extra.setdefault("prompt_cache_key", cache_key(prompt, "openai-responses"))
        agent_kwargs["model_settings"] = dataclasses.replace(settings, extra_args=extra)
    return agents.Agent(name=name,
                        instructions=dynamic_instructions(compiler, provider, prompt, ctx),
                        tools=made, **agent_kwargs)


function_tools = tools  # the name before 0.2
# The name before 0.2, still importable but not exported: `instructions` elsewhere
# (pydantic_ai) is the instructions themselves, not a callable that compiles them per run.
instructions = dynamic_instructions
