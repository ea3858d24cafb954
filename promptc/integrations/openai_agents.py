"""The OpenAI Agents SDK: an `Agent` per session, its instructions dynamic, its tools promptc's.

    agent = make_agent(compiler, provider, context, run_tool, model="gpt-4.1")
    result = Runner.run_sync(agent, "List the files.", context=context)

One compile makes the agent: its FunctionTools come from that prompt's tool set (strict where
OpenAI's strict mode takes the schema — the SDK's default strict conversion would otherwise make
every optional parameter required), and its `instructions` callable hands the SDK that prompt's
system part. A run whose context (`Runner.run(..., context=...)`) is another PromptContext of
the same session (a new date, a runtime value, plan or act) gets that context's prompt,
compiled then, and its calls are checked against that context's mode; a new session is a new
agent (`make_agent` again: building one costs a compile, nothing more).

With the split placement (the default) the agent holds its session's details: its model
(wrapped; `model=` may be a name or a Model) sends them as a user message of their own at the
start of the conversation, and when a run's context changes them, the sections that changed as
a message of their own where they changed, at every later request too. The SDK's history
(`result.to_input_list()`) stays without them; pass it on as it is. The instructions stay the
same bytes for the whole session.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Mapping
from typing import Any

from .._compile.compiler import Compiler
from .._compile.compiled import CompiledPrompt
from .._emit.details import DetailsLog
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


class _Session:
    """One agent's session: the prompt of the run in progress and what its conversation was
    told about its environment."""

    def __init__(self, compiler: Compiler, provider: ProviderInfo, prompt: CompiledPrompt,
                 context: PromptContext) -> None:
        self.compiler, self.provider, self.context = compiler, provider, context
        self.prompt = self.current = prompt
        self.log = DetailsLog()

    def prompt_for(self, run_context: Any) -> CompiledPrompt:
        given = getattr(run_context, "context", None)
        if isinstance(given, PromptContext) and given is not self.context:
            self.current = self.compiler.compile(self.provider, given,
                                                 variant=self.prompt.variant.id)
        else:
            self.current = self.prompt
        return self.current

    def placed(self, items: Any) -> Any:
        """The model's input with the session's details in place."""
        if not self.current.message:
            return items
        listed = [{"role": "user", "content": items}] if isinstance(items, str) else list(items)
        self.log.note(self.current, len(listed))
        return self.log.place(listed, lambda text: {"role": "user", "content": text})


def dynamic_instructions(compiler: Compiler, provider: ProviderInfo, prompt: CompiledPrompt,
                         context: PromptContext, session: _Session | None = None) -> Any:
    """An `instructions` callable for `agents.Agent`: the system prompt of the session's
    prompt, or of the prompt of the PromptContext a run was given as its context."""
    held = session or _Session(compiler, provider, prompt, context)

    def dynamic(run_context: Any, _agent: Any) -> str:
        return held.prompt_for(run_context).system
    return dynamic


def _details_model(agents: Any, inner: Any, session: _Session) -> Any:
    """A Model that sends the session's details with `inner`'s every request."""

    class DetailsModel(agents.Model):  # type: ignore[misc]
        async def get_response(self, *args: Any, **kwargs: Any) -> Any:
            kwargs["input"] = session.placed(kwargs["input"])
            return await inner.get_response(*args, **kwargs)

        async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            kwargs["input"] = session.placed(kwargs["input"])
            async for event in inner.stream_response(*args, **kwargs):
                yield event

    return DetailsModel()


def make_agent(compiler: Compiler, provider: ProviderInfo,
               context: PromptContext | Mapping[str, Any] | None, run_tool: ToolRunner, *,
               name: str = "promptc", **agent_kwargs: Any) -> Any:
    """An `agents.Agent` for one session (`agent_kwargs`: model, model_settings, handoffs…).
    Native tools only: a variant that describes its tools in text gets no FunctionTools."""
    agents = require("agents", "openai-agents")
    ctx = compiler.context(context)
    prompt = compiler.compile(provider, ctx)
    session = _Session(compiler, provider, prompt, ctx)
    made = tools(prompt, run_tool) if prompt.tools.mode == "native" else []
    if normalize_provider(prompt.provider.provider) == "openai":  # route by what is sent first
        settings = agent_kwargs.pop("model_settings", None) or agents.ModelSettings()
        extra = dict(settings.extra_args or {})
        extra.setdefault("prompt_cache_key", cache_key(prompt, "openai-responses"))
        agent_kwargs["model_settings"] = dataclasses.replace(settings, extra_args=extra)
    if prompt.message:  # the split: the model sends the session's details
        model = agent_kwargs.get("model")
        inner = model if isinstance(model, agents.Model) else \
            agents.MultiProvider().get_model(model)
        agent_kwargs["model"] = _details_model(agents, inner, session)
    return agents.Agent(name=name, instructions=dynamic_instructions(
        compiler, provider, prompt, ctx, session), tools=made, **agent_kwargs)


function_tools = tools  # the name before 0.2
# The name before 0.2, still importable but not exported: `instructions` elsewhere
# (pydantic_ai) is the instructions themselves, not a callable that compiles them per run.
instructions = dynamic_instructions
