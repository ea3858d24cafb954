"""A small agent loop whose system prompt is compiled by promptc on every request.

The shape, from the outside in:

* one `Compiler`, built when the program starts and shared from then on;
* one `PromptContext` per user turn: the session's fields (working directory, OS, shell…) plus
  whatever belongs to that turn alone (here, the date);
* one `compile()` per request to the model, so the prompt always matches the context; it is cheap,
  because everything that does not depend on the request was done when the compiler loaded.

Requests are built by the official SDKs, one backend per API:

* `AnthropicMessages`: Messages API with `system`, `tools` and `messages` from
  `prompt.to_anthropic(previous=…, messages=…)`.
* `OpenAIChat`: Chat Completions with `messages` (the system message first), `tools` and
  `prompt_cache_key` from `prompt.to_openai("chat", previous=…, messages=…)`.
* `OpenAIResponses`: Responses API with `instructions`, `input`, `tools` and `prompt_cache_key`
  from `prompt.to_openai("responses", previous=…, messages=…)`; turns are chained with
  `previous_response_id`, and the instructions are sent every time because that API does not
  carry them over.

The system prompt is the part every session shares (the default placement), the same bytes at
every request; the session's details (machine, mode, date…) open the conversation as a user
message of their own. Each backend hands the adapter its conversation and the prompt of the
request before (`previous`), and keeps what the adapter returns: when the details changed (a
mode switch, a new day), an update follows the conversation as a message of its own, and
nothing sent before is rewritten, so the provider's cache keeps reading it.

Both tool modes work, and no call is checked by hand. With native tools (the model calls
functions) each call object the SDK returned goes to `prompt.tools.check`, which gives either
the checked call (typed arguments; an MCP tool's server and tool) or a `CallError` whose
`tool_result()` is the error result ready to send back in that API's shape; a call's own answer
is `call.tool_result(output)`. With text tools (the prompt teaches an XML-style call format, as
for a model without function calling or `--native-tools no`) the loop reads the reply with
`prompt.tools.parse`: the call to run, the errors to send back, the warnings to pass on, all in
the next user message. Either way, a call that does not fit its tool, or that the current mode
rules out, is not run: the model gets the problem back as the result. The loop hands each call
to a `ToolRunner`, sends the result back and asks again, until the model answers without a tool
call. The runner used here only describes the call; put your own in its place to do real work.

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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import anthropic
import attrs
import openai

from promptc import CallError, CompiledPrompt, Compiler, PromptContext, ProviderInfo, ToolCall

if TYPE_CHECKING:  # the SDKs' own request types, for the histories each backend keeps
    from anthropic.types import ContentBlockParam, MessageParam
    from openai.types.chat import ChatCompletionMessageParam, ChatCompletionMessageToolCallParam
    from openai.types.responses import ResponseInputItemParam

ToolRunner = Callable[[ToolCall], str]

DEFAULT_MODELS = {"anthropic": "claude-sonnet-4-6", "chat": "gpt-5", "responses": "gpt-5"}
API_KEYS = {"anthropic": "ANTHROPIC_API_KEY", "chat": "OPENAI_API_KEY",
            "responses": "OPENAI_API_KEY"}  # what each SDK client reads


@dataclass(frozen=True)
class Reply:
    """What the model said back: its text, and the native call objects as the SDK gave them."""

    text: str
    calls: tuple[Any, ...] = ()


class Backend(Protocol):
    """One API's side of the conversation; it keeps the history in that API's own format."""

    @property
    def provider(self) -> ProviderInfo: ...

    def add_user(self, text: str) -> None: ...

    def send(self, prompt: CompiledPrompt) -> Reply: ...

    def add_tool_results(self, results: list[dict[str, Any]]) -> None: ...


def text_results(results: list[tuple[str, str]]) -> str:
    """Results of text-format calls, as the user message that answers them."""
    return "\n\n".join(f"[{name}] result:\n{output}" for name, output in results)


def describe_call(call: ToolCall) -> str:
    """A stand-in for running a tool: it reports what would have been run and does nothing."""
    args = json.dumps(call.arguments, sort_keys=True)
    return f"(example only: {call.name} was not run; arguments {args})"


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
            reply = self.backend.send(prompt)
            if prompt.tools.mode == "text":  # the call is written in the reply's text
                parsed = prompt.tools.parse(reply.text)
                if parsed.call is None and not parsed.errors:
                    return reply.text
                done = [(parsed.call.name, self.run_tool(parsed.call))] if parsed.call else []
                done += [(e.name, f"error: {e.message}") for e in parsed.errors]
                done += [("note", w.message) for w in parsed.warnings]
                self.backend.add_user(text_results(done))
                continue
            if not reply.calls:
                return reply.text
            results = []
            for raw in reply.calls:  # checked against its tool and the mode, answered in kind
                checked = prompt.tools.check(raw)
                results.append(checked.tool_result() if isinstance(checked, CallError)
                               else checked.tool_result(self.run_tool(checked)))
            self.backend.add_tool_results(results)
        raise RuntimeError(f"the model gave no final answer in {self.max_requests} requests")


@dataclass
class AnthropicMessages:
    client: anthropic.Anthropic
    model: str = DEFAULT_MODELS["anthropic"]
    max_tokens: int = 4096
    messages: list[MessageParam] = field(default_factory=list)
    native_tools: bool | None = None  # None: promptc decides (the model's capability)
    previous: CompiledPrompt | None = None  # the prompt of the request before

    @property
    def provider(self) -> ProviderInfo:
        return ProviderInfo(provider="anthropic", model=self.model,
                            native_tools=self.native_tools)

    def add_user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def send(self, prompt: CompiledPrompt) -> Reply:
        # system blocks, tools if native, and the conversation with the details in place
        payload = prompt.to_anthropic(previous=self.previous, messages=self.messages)
        self.messages, self.previous = payload["messages"], prompt  # kept as sent
        response = self.client.messages.create(
            model=self.model,
            max_tokens=self.max_tokens,
            system=payload["system"],
            tools=payload.get("tools", anthropic.NOT_GIVEN),
            messages=self.messages,
        )
        content: list[ContentBlockParam] = []
        texts: list[str] = []
        for block in response.content:
            if block.type == "text":
                content.append({"type": "text", "text": block.text})
                texts.append(block.text)
            elif block.type == "tool_use":
                content.append({"type": "tool_use", "id": block.id, "name": block.name,
                                "input": block.input})
        self.messages.append({"role": "assistant", "content": content})
        calls = tuple(b for b in response.content if b.type == "tool_use")
        return Reply("".join(texts), calls)

    def add_tool_results(self, results: list[dict[str, Any]]) -> None:
        self.messages.append({"role": "user", "content": results})  # type: ignore[typeddict-item]


@dataclass
class OpenAIChat:
    client: openai.OpenAI
    model: str = DEFAULT_MODELS["chat"]
    history: list[ChatCompletionMessageParam] = field(default_factory=list)  # after the system one
    native_tools: bool | None = None
    previous: CompiledPrompt | None = None

    @property
    def provider(self) -> ProviderInfo:
        return ProviderInfo(provider="openai", model=self.model, native_tools=self.native_tools)

    def add_user(self, text: str) -> None:
        self.history.append({"role": "user", "content": text})

    def send(self, prompt: CompiledPrompt) -> Reply:
        # messages (the system one first, the details in place), tools, prompt_cache_key
        payload = prompt.to_openai("chat", previous=self.previous, messages=self.history)
        self.history, self.previous = payload["messages"][1:], prompt  # kept as sent
        response = self.client.chat.completions.create(
            model=self.model,
            messages=payload["messages"],
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
        return Reply(message.content or "", tuple(functions))

    def add_tool_results(self, results: list[dict[str, Any]]) -> None:
        self.history.extend(results)  # type: ignore[arg-type]


@dataclass
class OpenAIResponses:
    client: openai.OpenAI
    model: str = DEFAULT_MODELS["responses"]
    pending: list[ResponseInputItemParam] = field(default_factory=list)  # not sent yet
    previous_id: str | None = None
    native_tools: bool | None = None
    previous: CompiledPrompt | None = None

    @property
    def provider(self) -> ProviderInfo:
        return ProviderInfo(provider="openai", model=self.model, native_tools=self.native_tools)

    def add_user(self, text: str) -> None:
        self.pending.append({"role": "user", "content": text})

    def send(self, prompt: CompiledPrompt) -> Reply:
        # instructions, tools (strict where the schema allows), prompt_cache_key, and the new
        # input items with the details in place (the server keeps the rest of the conversation)
        payload = prompt.to_openai("responses", previous=self.previous, messages=self.pending)
        response = self.client.responses.create(
            model=self.model,
            instructions=payload["instructions"],
            tools=payload.get("tools", openai.NOT_GIVEN),
            prompt_cache_key=payload["prompt_cache_key"],
            previous_response_id=self.previous_id,  # None on a conversation's first request
            input=payload["input"],
        )
        self.pending, self.previous = [], prompt
        self.previous_id = response.id
        calls = tuple(item for item in response.output if item.type == "function_call")
        return Reply(response.output_text, calls)

    def add_tool_results(self, results: list[dict[str, Any]]) -> None:
        self.pending.extend(results)  # type: ignore[arg-type]


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

    def run_tool(call: ToolCall) -> str:
        print(f"[tool] {call.name} {json.dumps(call.arguments)}", file=sys.stderr)
        return describe_call(call)

    agent = Agent(Compiler.default(), make_backend(args.api, args.model, native), run_tool)
    print(agent.turn(args.message, turn_context(session_context())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
