"""A small agent loop whose system prompt is compiled by promptc on every request.

The shape, from the outside in:

* one `Compiler`, built when the program starts and shared from then on;
* one `PromptContext` per user turn: the session's fields (working directory, OS, shell…) plus
  whatever belongs to that turn alone (here, the date);
* one `compile()` per request to the model, so the prompt always matches the context; it is cheap,
  because everything that does not depend on the request was done when the compiler loaded.

Requests are built by the official SDKs, one backend per API:

* `AnthropicMessages`: Messages API with `system` set to the text blocks of
  `prompt.to_anthropic()` (cache breakpoints after the static and session parts) and its native
  `tools`.
* `OpenAIChat`: Chat Completions with the system message of `prompt.to_openai()` first in
  `messages`, then the conversation, plus `tools` and `prompt_cache_key`.
* `OpenAIResponses`: Responses API with `instructions`, `tools` and `prompt_cache_key` from
  `prompt.to_openai("responses")`; turns are chained with `previous_response_id`, and the
  instructions are sent every time because that API does not carry them over.

Both tool modes work. With native tools (the model calls functions) each call is checked with
`prompt.tools.decode` (arguments against the tool; the nulls OpenAI's strict mode sends for
optional parameters removed). With text tools (the prompt teaches an XML-style call format, as
for a model without function calling or `--native-tools no`) the loop reads the calls out of the
reply with `prompt.tools.parse` and sends the results back as the next user message. Either
way, a call that does not fit its tool is not run: the model gets the problem back as the
result. The loop hands each call to a `ToolRunner`, sends the result back and asks again, until
the model answers without a tool call. The runner used here only describes the call; put your
own in its place to do real work.

Running it against the real APIs (it spends tokens; tools are never actually run):

    pip install -e '.[test]'              # promptc plus the anthropic and openai SDKs
    export ANTHROPIC_API_KEY=...          # for --api anthropic
    export OPENAI_API_KEY=...             # for --api chat and --api responses
    python examples/agent_loop.py --api anthropic "What is in this folder?"
    python examples/agent_loop.py --api chat --model gpt-5 "What is in this folder?"
    python examples/agent_loop.py --api responses --model gpt-5 "What is in this folder?"
    python examples/agent_loop.py --api chat --model gpt-4.1 --native-tools no "What is here?"

Where the requests go is up to the SDK client a backend is given. Both SDKs accept
`http_client=` with a transport of your choosing (a proxy, a recorder, a mock); the tests in
tests/test_examples.py give them a mock transport, so they never touch the network.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import anthropic
import attrs
import openai

from promptc import CallError, CompiledPrompt, Compiler, PromptContext, ProviderInfo

if TYPE_CHECKING:  # the SDKs' own request types, for the histories each backend keeps
    from anthropic.types import ContentBlockParam, MessageParam
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionMessageToolCallParam
    from openai.types.responses import ResponseInputItemParam

ToolRunner = Callable[[str, Mapping[str, Any]], str]

DEFAULT_MODELS = {"anthropic": "claude-sonnet-4-6", "chat": "gpt-5", "responses": "gpt-5"}
API_KEYS = {"anthropic": "ANTHROPIC_API_KEY", "chat": "OPENAI_API_KEY",
            "responses": "OPENAI_API_KEY"}  # what each SDK client reads


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: Mapping[str, Any] | str  # as the API gave them (OpenAI: JSON text)


@dataclass(frozen=True)
class Reply:
    """What the model said back: its text, and the native tool calls it made."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()


class Backend(Protocol):
    """One API's side of the conversation; it keeps the history in that API's own format."""

    @property
    def provider(self) -> ProviderInfo: ...

    def add_user(self, text: str) -> None: ...

    def send(self, prompt: CompiledPrompt) -> Reply: ...

    def add_tool_results(self, results: list[tuple[ToolCall, str]]) -> None: ...


def text_results(results: list[tuple[str, str]]) -> str:
    """Results of text-format calls, as the user message that answers them."""
    return "\n\n".join(f"[{name}] result:\n{output}" for name, output in results)


def describe_call(name: str, arguments: Mapping[str, Any]) -> str:
    """A stand-in for running a tool: it reports what would have been run and does nothing."""
    args = json.dumps(dict(arguments), sort_keys=True)
    return f"(example only: {name} was not run; arguments {args})"


@dataclass
class Agent:
    compiler: Compiler
    backend: Backend
    run_tool: ToolRunner = describe_call
    max_requests: int = 8

    def turn(self, user_text: str, context: PromptContext) -> str:
        """One user turn: ask the model, run the tools it asks for, repeat until it answers."""
        self.backend.add_user(user_text)
        for _ in range(self.max_requests):
            prompt = self.compiler.compile(self.backend.provider, context)
            # Plan and act offer the same tools (so a mode switch keeps the prompt cache); the
            # prompt tells the model what the mode rules out, and the client refuses it here.
            allowed = prompt.tools.allowed_in(context.mode)
            reply = self.backend.send(prompt)
            if prompt.tools.mode == "text":  # calls written in the reply's text
                parsed = prompt.tools.parse(reply.text)
                if not parsed.calls and not parsed.errors:
                    return reply.text
                done = [(c.name, self.run(c.name, c.arguments, allowed, context.mode))
                        for c in parsed.calls]
                done += [(e.name, f"error: {e.message}") for e in parsed.errors]
                self.backend.add_user(text_results(done))
                continue
            if not reply.tool_calls:
                return reply.text
            results = []
            for call in reply.tool_calls:
                checked = prompt.tools.decode(call.name, call.arguments)
                results.append((call, f"error: {checked.message}"
                                if isinstance(checked, CallError)
                                else self.run(checked.name, checked.arguments, allowed,
                                              context.mode)))
            self.backend.add_tool_results(results)
        raise RuntimeError(f"the model gave no final answer in {self.max_requests} requests")

    def run(self, name: str, arguments: Mapping[str, Any], allowed: frozenset[str],
            mode: str) -> str:
        """Run a call the current mode allows; refuse any other, saying why."""
        if name not in allowed:
            return (f"error: {name} is not available in {mode} mode; the user switches modes "
                    "when they are ready")
        return self.run_tool(name, arguments)


@dataclass
class AnthropicMessages:
    client: anthropic.Anthropic
    model: str = DEFAULT_MODELS["anthropic"]
    max_tokens: int = 4096
    messages: list[MessageParam] = field(default_factory=list)
    native_tools: bool | None = None  # None: promptc decides (the model's capability)

    @property
    def provider(self) -> ProviderInfo:
        return ProviderInfo(provider="anthropic", model=self.model,
                            native_tools=self.native_tools)

    def add_user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def send(self, prompt: CompiledPrompt) -> Reply:
        payload = prompt.to_anthropic()  # {"system": [text blocks], "tools": [...] if native}
        response = self.client.messages.create(
            model=self.model,
            max_tokens=self.max_tokens,
            system=payload["system"],
            tools=payload.get("tools", anthropic.NOT_GIVEN),
            messages=self.messages,
        )
        content: list[ContentBlockParam] = []
        texts: list[str] = []
        calls: list[ToolCall] = []
        for block in response.content:
            if block.type == "text":
                content.append({"type": "text", "text": block.text})
                texts.append(block.text)
            elif block.type == "tool_use":
                content.append({"type": "tool_use", "id": block.id, "name": block.name,
                                "input": block.input})
                calls.append(ToolCall(block.id, block.name, dict(block.input)))
        self.messages.append({"role": "assistant", "content": content})
        return Reply("".join(texts), tuple(calls))

    def add_tool_results(self, results: list[tuple[ToolCall, str]]) -> None:
        self.messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call.id, "content": output}
            for call, output in results]})


@dataclass
class OpenAIChat:
    client: openai.OpenAI
    model: str = DEFAULT_MODELS["chat"]
    history: list[ChatCompletionMessageParam] = field(default_factory=list)  # after the system one
    native_tools: bool | None = None

    @property
    def provider(self) -> ProviderInfo:
        return ProviderInfo(provider="openai", model=self.model, native_tools=self.native_tools)

    def add_user(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})

    def send(self, prompt: CompiledPrompt) -> Reply:
        payload = prompt.to_openai("chat")  # messages (the system one), tools, prompt_cache_key
        response = self.client.chat.completions.create(
            model=self.model,
            messages=[*payload["messages"], *self.history],
            tools=payload.get("tools", openai.NOT_GIVEN),
            prompt_cache_key=payload["prompt_cache_key"],
        )
        message = response.choices[0].message
        functions = [c for c in message.tool_calls or () if c.type == "function"]
        echoed: list[ChatCompletionMessageToolCallParam] = [
            {"id": c.id, "type": "function",
             "function": {"name": c.function.name, "arguments": c.function.arguments}}
            for c in functions]
        if echoed:
            self.history.append({"role": "assistant", "content": message.content,
                                 "tool_calls": echoed})
        else:
            self.history.append({"role": "assistant", "content": message.content})
        calls = tuple(ToolCall(c.id, c.function.name, c.function.arguments or "{}")
                      for c in functions)
        return Reply(message.content or "", calls)

    def add_tool_results(self, results: list[tuple[ToolCall, str]]) -> None:
        self.history.extend({"role": "tool", "tool_call_id": call.id, "content": output}
                            for call, output in results)


@dataclass
class OpenAIResponses:
    client: openai.OpenAI
    model: str = DEFAULT_MODELS["responses"]
    pending: list[ResponseInputItemParam] = field(default_factory=list)  # not sent yet
    previous_id: str | None = None
    native_tools: bool | None = None

    @property
    def provider(self) -> ProviderInfo:
        return ProviderInfo(provider="openai", model=self.model, native_tools=self.native_tools)

    def add_user(self, text: str) -> None:
        self.pending.append({"role": "user", "content": text})

    def send(self, prompt: CompiledPrompt) -> Reply:
        # instructions, tools (strict where the schema allows), prompt_cache_key
        payload = prompt.to_openai("responses")
        response = self.client.responses.create(
            model=self.model,
            instructions=payload["instructions"],
            tools=payload.get("tools", openai.NOT_GIVEN),
            prompt_cache_key=payload["prompt_cache_key"],
            previous_response_id=self.previous_id,  # None on a conversation's first request
            input=self.pending,
        )
        self.pending = []
        self.previous_id = response.id
        calls = tuple(ToolCall(item.call_id, item.name, item.arguments or "{}")
                      for item in response.output if item.type == "function_call")
        return Reply(response.output_text, calls)

    def add_tool_results(self, results: list[tuple[ToolCall, str]]) -> None:
        self.pending.extend({"type": "function_call_output", "call_id": call.id, "output": output}
                            for call, output in results)


def session_context() -> PromptContext:
    """What holds for the whole session: where the agent works, and on what machine."""
    return PromptContext(cwd=os.getcwd(), os=platform.system(),
                         shell=os.environ.get("SHELL", ""), home=os.path.expanduser("~"))


def turn_context(session: PromptContext, today: datetime.date | None = None) -> PromptContext:
    """The context of one user turn: the session's fields plus the date of this turn."""
    return attrs.evolve(session, date=(today or datetime.date.today()).isoformat())


def make_backend(api: str, model: str | None = None, native_tools: bool | None = None
                 ) -> Backend:
    """A backend whose SDK client takes its API key from the environment."""
    model = model or DEFAULT_MODELS[api]
    if api == "anthropic":  # reads ANTHROPIC_API_KEY
        return AnthropicMessages(anthropic.Anthropic(), model, native_tools=native_tools)
    if api == "chat":  # reads OPENAI_API_KEY
        return OpenAIChat(openai.OpenAI(), model, native_tools=native_tools)
    if api == "responses":
        return OpenAIResponses(openai.OpenAI(), model, native_tools=native_tools)
    raise ValueError(f"unknown api {api!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run one agent turn against a real API.")
    parser.add_argument("--api", choices=sorted(DEFAULT_MODELS), default="anthropic")
    parser.add_argument("--model", help="default: " + ", ".join(
        f"{model} for {api}" for api, model in DEFAULT_MODELS.items()))
    parser.add_argument("--native-tools", choices=("yes", "no"),
                        help="function calling (yes) or the text call format (no); default: "
                             "what promptc knows of the model")
    parser.add_argument("message", nargs="?", default="Which files are in the working directory?")
    args = parser.parse_args(argv)
    native = None if args.native_tools is None else args.native_tools == "yes"
    key = API_KEYS[args.api]
    if not os.environ.get(key):
        print(f"agent_loop: set {key} to run against the real API (--api {args.api}); the "
              "tests run this loop against a local fake server instead", file=sys.stderr)
        return 2

    def run_tool(name: str, arguments: Mapping[str, Any]) -> str:
        print(f"[tool] {name} {json.dumps(dict(arguments))}", file=sys.stderr)
        return describe_call(name, arguments)

    agent = Agent(Compiler.default(), make_backend(args.api, args.model, native), run_tool)
    print(agent.turn(args.message, turn_context(session_context())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
