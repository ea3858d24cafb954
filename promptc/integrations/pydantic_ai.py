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

With the split placement (the default) the instructions are the part every session shares (one
literal part) and a history processor the kwargs carry opens the conversation with the
session's details, a user request of their own; Pydantic AI keeps what the processor returns,
so the history a run leaves (`result.all_messages()`) holds them. Given the compiler
(`agent_kwargs(prompt, run_tool, compiler=compiler)`), a run whose `deps` is another
PromptContext of the session (plan or act, a new date) gets the sections that changed as a
request of their own, and its calls are checked against that context's mode. One agent per
session.
"""

from __future__ import annotations

from typing import Any

from .._compile.compiler import Compiler
from .._compile.compiled import CompiledPrompt
from .._emit.details import DetailsLog
from .._emit.payloads import cache_key
from .._model.context import PromptContext
from .._model.provider import normalize_provider
from ._common import Mode, ToolRunner, answer_async, framework_format, require

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
                                         description=description, json_schema=schema,
                                         takes_ctx=True))
    return FunctionToolset(made)


def _runner(prompt: CompiledPrompt, run_tool: ToolRunner, name: str) -> Any:
    from pydantic_ai import RunContext

    async def run(ctx: RunContext[Any], **arguments: Any) -> str:
        given = ctx.deps
        mode: Mode = given.mode if isinstance(given, PromptContext) else None
        return await answer_async(prompt.tools, run_tool, name, arguments, mode=mode)
    return run


def instructions(prompt: CompiledPrompt) -> Any:
    """The instructions: the cache blocks as parts (Anthropic), else the text."""
    if framework_format(prompt.provider) != "anthropic":
        return prompt.text
    require("pydantic_ai", "pydantic-ai")
    from pydantic_ai.messages import InstructionPart
    blocks = [b for b in prompt.system_blocks if b.text]
    return [b.text if b.cache == "static" else InstructionPart(b.text, dynamic=True)
            for b in blocks]


def _built_in_block_ends_the_tools(prompt: CompiledPrompt) -> bool:
    """Pydantic AI marks only the last tool: that is the end of the built-in block (the tools
    every session shares) only when no session brings tools of its own after it."""
    tools = prompt.tools
    return tools.mode == "native" and 0 < tools.stable == len(tools.names)


class _Details:
    """A history processor: the session's details at the start of the conversation, and an
    update after the latest request when a run's deps changed them."""

    def __init__(self, prompt: CompiledPrompt, compiler: Compiler | None) -> None:
        self.prompt, self.compiler = prompt, compiler
        self.log = DetailsLog()

    def _prompt_for(self, deps: Any) -> CompiledPrompt:
        if self.compiler is None or not isinstance(deps, PromptContext):
            return self.prompt
        return self.compiler.compile(self.prompt.provider, deps, variant=self.prompt.variant.id)

    def __call__(self, ctx: Any, messages: list[Any]) -> list[Any]:
        from pydantic_ai.messages import ModelRequest, UserPromptPart
        update = self.log.note(self._prompt_for(ctx.deps), len(messages))
        out = list(messages)
        first = self.log.first
        if first and not _opens_with(out, first):
            out.insert(0, ModelRequest(parts=[UserPromptPart(content=first)]))
        if update:
            out.append(ModelRequest(parts=[UserPromptPart(content=update)]))
        return out


def _history_capability(details: _Details) -> Any:
    """Pydantic AI's history-processing capability around `details`."""
    from pydantic_ai import RunContext
    from pydantic_ai.capabilities import ProcessHistory

    def process(ctx: Any, messages: list[Any]) -> list[Any]:
        return details(ctx, messages)
    # Pydantic AI passes the run context to a processor whose first parameter is annotated
    # RunContext; the string annotations of this module do not resolve to it, so say it here
    process.__annotations__ = {"ctx": RunContext, "messages": list, "return": list}
    return ProcessHistory(process)


def _opens_with(messages: list[Any], text: str) -> bool:
    """The history already opens with the details (a run given the history of one before,
    where Pydantic AI may have joined them with the user's first prompt into one request)."""
    parts: Any = getattr(messages[0], "parts", ()) if messages else ()
    return bool(parts) and getattr(parts[0], "content", None) == text


def agent_kwargs(prompt: CompiledPrompt, run_tool: ToolRunner, *,
                 compiler: Compiler | None = None) -> dict[str, Any]:
    """`instructions`, `toolsets`, the cache settings and with the split the capability that
    sends the session's details (a history processor), for
    `pydantic_ai.Agent(model, **agent_kwargs(prompt, run_tool))`; `compiler`: to follow a run's
    PromptContext deps."""
    out: dict[str, Any] = {"instructions": instructions(prompt),
                           "toolsets": [tools(prompt, run_tool)]}
    if prompt.message:
        out["capabilities"] = [_history_capability(_Details(prompt, compiler))]
    fmt = framework_format(prompt.provider)
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
