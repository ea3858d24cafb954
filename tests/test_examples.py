"""examples/agent_loop.py driven through the official SDKs' own request building, offline.

Every SDK client gets an HTTP client whose mock transport keeps the JSON body the SDK produced and
answers from a script: a tool call, then a final answer, then (second user turn) another answer.
The loop works in both tool modes: native calls (checked with `prompt.tools.decode`) and calls
written in the text format (read with `prompt.tools.parse`), each tested here. Nothing here
reaches the network; the API keys are fake.
"""

from __future__ import annotations

import datetime
import importlib
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import pytest

from promptc import CompiledPrompt, Compiler, PromptContext, ProviderInfo, ToolCall
from promptc._cli import main  # imported with the module: its output streams are the run's



def sdk(name: str) -> ModuleType:
    """The SDK, imported by the test that uses it: collecting this module stays cheap (its
    tests run on the worker that has the other SDK tests, SHARED_SETUP in conftest.py)."""
    module: ModuleType = pytest.importorskip(name)
    return module


EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "agent_loop.py"
SESSION = PromptContext(cwd="/home/dev/project", os="Linux", shell="/bin/bash", home="/home/dev")
DAY_ONE = datetime.date(2026, 1, 1)
DAY_TWO = datetime.date(2026, 1, 2)
LIST_ARGS = {"path": ".", "recursive": False}


def http_library(sdk: ModuleType) -> ModuleType:
    """The HTTP package an SDK is built on (httpx in older releases, httpx2 in newer ones)."""
    base = next(cls for cls in sdk.DefaultHttpxClient.__mro__
                if cls.__name__ == "Client" and not cls.__module__.startswith(sdk.__name__))
    return importlib.import_module(base.__module__.split(".")[0])


class Script:
    """A mock transport's handler: records each request, answers with the next canned reply."""

    def __init__(self, http: ModuleType, path: str, replies: list[dict[str, Any]]) -> None:
        self.http = http
        self.path = path
        self.replies = list(replies)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        assert request.method == "POST" and request.url.path.endswith(self.path), request.url
        self.bodies.append(json.loads(request.read()))
        return self.http.Response(200, json=self.replies.pop(0))

    def client(self) -> Any:
        return self.http.Client(transport=self.http.MockTransport(self))


@pytest.fixture(scope="module")
def example() -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("promptc_example_agent_loop", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building classes
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def two_turns(example: ModuleType, compiler: Compiler, backend: Any,
              calls: list[tuple[str, dict[str, Any]]] | None = None) -> list[str]:
    """Turn one: the model calls list_files, then answers. Turn two (a day later): it answers."""
    def run_tool(call: ToolCall) -> str:
        if calls is not None:
            calls.append((call.name, dict(call.arguments)))
        return example.describe_call(call)

    agent = example.Agent(compiler, backend, run_tool)
    return [agent.turn("List the files.", example.turn_context(SESSION, DAY_ONE)),
            agent.turn("Thanks!", example.turn_context(SESSION, DAY_TWO))]


def compiled(compiler: Compiler, provider: str, model: str, day: datetime.date
             ) -> CompiledPrompt:
    context = PromptContext(cwd=SESSION.cwd, os=SESSION.os, shell=SESSION.shell,
                            home=SESSION.home, date=day.isoformat())
    return compiler.compile(ProviderInfo(provider=provider, model=model), context)


def details(builtins: Compiler, provider: str, model: str) -> tuple[str, str]:
    """(the first details message, the update the next day sends), as the model reads them."""
    one, two = (compiled(builtins, provider, model, day) for day in (DAY_ONE, DAY_TWO))
    update = two.message_update(one)
    assert update and DAY_TWO.isoformat() in update
    return one.message, update


def tool_output(example: ModuleType) -> str:
    return example.describe_call(ToolCall("list_files", dict(LIST_ARGS)))


# --- Anthropic Messages API ----------------------------------------------------------------------

def anthropic_message(ident: str, content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {"id": ident, "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1}}


ANTHROPIC_SCRIPT = [
    anthropic_message("msg_1", [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "toolu_1", "name": "list_files", "input": LIST_ARGS}],
        "tool_use"),
    anthropic_message("msg_2", [{"type": "text", "text": "There are three files."}], "end_turn"),
    anthropic_message("msg_3", [{"type": "text", "text": "You are welcome."}], "end_turn"),
]


@pytest.fixture
def anthropic_run(example: ModuleType, builtins: Compiler
                  ) -> tuple[Script, list[str], list[tuple[str, dict[str, Any]]]]:
    anthropic = sdk("anthropic")
    script = Script(http_library(anthropic), "/v1/messages", ANTHROPIC_SCRIPT)
    client = anthropic.Anthropic(api_key="sk-ant-test", max_retries=0,
                                 http_client=script.client())
    calls: list[tuple[str, dict[str, Any]]] = []
    answers = two_turns(example, builtins, example.AnthropicMessages(client), calls)
    return script, answers, calls


def test_anthropic_system_blocks_and_tools_are_the_adapters(anthropic_run: Any,
                                                             builtins: Compiler) -> None:
    script, answers, _ = anthropic_run
    assert answers == ["There are three files.", "You are welcome."]
    assert len(script.bodies) == 3
    for body, day in zip(script.bodies, (DAY_ONE, DAY_ONE, DAY_TWO)):
        prompt = compiled(builtins, "anthropic", "claude-sonnet-4-6", day)
        expected = prompt.to_anthropic()
        assert prompt.tools.mode == "native"
        assert body["model"] == "claude-sonnet-4-6"
        assert body["system"] == expected["system"]
        assert "".join(block["text"] for block in body["system"]) == prompt.system
        markers = [block for block in body["system"] if "cache_control" in block]
        assert 1 <= len(markers) <= 4
        assert body["tools"] == expected["tools"]
        assert [tool["name"] for tool in body["tools"]] == list(prompt.tools.names)


def test_anthropic_tool_result_goes_back(anthropic_run: Any, example: ModuleType,
                                        builtins: Compiler) -> None:
    script, _, calls = anthropic_run
    assert calls == [("list_files", LIST_ARGS)]
    first, second, third = script.bodies
    opening, update = details(builtins, "anthropic", "claude-sonnet-4-6")
    assert "".join(b["text"] for b in first["messages"][0]["content"]) == opening
    assert first["messages"][1:] == [{"role": "user", "content": "List the files."}]
    assert second["messages"][1:] == [
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "list_files", "input": LIST_ARGS}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": tool_output(example)}]},
    ]
    assert second["messages"][0] == first["messages"][0]
    assert third["messages"][:4] == second["messages"]
    assert third["messages"][4:] == [  # the next day: an update of its own after the turn
        {"role": "assistant", "content": [{"type": "text", "text": "There are three files."}]},
        {"role": "user", "content": "Thanks!"},
        {"role": "user", "content": [{"type": "text", "text": update}]},
    ]


def test_anthropic_second_turn_reuses_the_static_prefix(anthropic_run: Any) -> None:
    script, _, _ = anthropic_run
    first, second, third = script.bodies
    static = [json.dumps(body["system"][0], sort_keys=True).encode() for body in script.bodies]
    assert static[0] == static[1] == static[2]
    assert first["system"][0]["cache_control"] == {"type": "ephemeral"}
    tools = {json.dumps(body["tools"], sort_keys=True).encode() for body in script.bodies}
    assert len(tools) == 1  # tools precede system in the cached prefix
    # the whole system prompt is the same; the date moved to an update in the conversation
    assert first["system"] == second["system"] == third["system"]


# --- OpenAI Chat Completions ---------------------------------------------------------------------

def chat_completion(ident: str, message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {"id": ident, "object": "chat.completion", "created": 0, "model": "gpt-5",
            "choices": [{"index": 0, "message": message, "finish_reason": finish,
                         "logprobs": None}]}


CHAT_ARGUMENTS = json.dumps(LIST_ARGS)
CHAT_SCRIPT = [
    chat_completion("chatcmpl-1", {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "list_files", "arguments": CHAT_ARGUMENTS}}]}, "tool_calls"),
    chat_completion("chatcmpl-2", {"role": "assistant", "content": "There are three files."},
                    "stop"),
    chat_completion("chatcmpl-3", {"role": "assistant", "content": "You are welcome."}, "stop"),
]


@pytest.fixture
def chat_run(example: ModuleType, builtins: Compiler) -> tuple[Script, list[str]]:
    openai = sdk("openai")
    script = Script(http_library(openai), "/chat/completions", CHAT_SCRIPT)
    client = openai.OpenAI(api_key="sk-test", max_retries=0, http_client=script.client())
    return script, two_turns(example, builtins, example.OpenAIChat(client))


def test_chat_system_message_tools_and_cache_key(chat_run: Any, builtins: Compiler) -> None:
    script, answers = chat_run
    assert answers == ["There are three files.", "You are welcome."]
    assert len(script.bodies) == 3
    for body, day in zip(script.bodies, (DAY_ONE, DAY_ONE, DAY_TWO)):
        prompt = compiled(builtins, "openai", "gpt-5", day)
        expected = prompt.to_openai()
        assert prompt.tools.mode == "native"
        assert body["model"] == "gpt-5"
        assert body["messages"][0] == expected["messages"][0]
        assert body["messages"][0] == {"role": "system", "content": prompt.system}
        assert body["tools"] == expected["tools"]
        assert body["prompt_cache_key"] == expected["prompt_cache_key"]


def test_chat_tool_result_goes_back(chat_run: Any, example: ModuleType,
                                   builtins: Compiler) -> None:
    script, _ = chat_run
    first, second, third = script.bodies
    opening, update = details(builtins, "openai", "gpt-5")
    assert first["messages"][1:] == [{"role": "user", "content": opening},
                                     {"role": "user", "content": "List the files."}]
    assert second["messages"][2:] == [
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "list_files", "arguments": CHAT_ARGUMENTS}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": tool_output(example)},
    ]
    assert third["messages"][:5] == second["messages"]
    assert third["messages"][5:] == [
        {"role": "assistant", "content": "There are three files."},
        {"role": "user", "content": "Thanks!"},
        {"role": "user", "content": update},
    ]


def test_chat_second_turn_reuses_the_static_prefix(chat_run: Any, builtins: Compiler) -> None:
    script, _ = chat_run
    static = compiled(builtins, "openai", "gpt-5", DAY_ONE).static_prefix
    assert static and static == compiled(builtins, "openai", "gpt-5", DAY_TWO).static_prefix
    for body in script.bodies:
        system = body["messages"][0]["content"].encode()
        assert system[:len(static.encode())] == static.encode()
    assert len({body["prompt_cache_key"] for body in script.bodies}) == 1
    assert len({json.dumps(body["tools"], sort_keys=True) for body in script.bodies}) == 1
    first, _, third = script.bodies
    assert first["messages"][0] == third["messages"][0]  # the date went to an update


# --- OpenAI Responses API ------------------------------------------------------------------------

def response(ident: str, output: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": ident, "object": "response", "created_at": 0, "model": "gpt-5",
            "status": "completed", "output": output, "parallel_tool_calls": True,
            "tool_choice": "auto", "tools": []}


def said(ident: str, text: str) -> dict[str, Any]:
    return {"type": "message", "id": ident, "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


RESPONSES_SCRIPT = [
    response("resp_1", [{"type": "function_call", "id": "fc_1", "call_id": "call_1",
                         "name": "list_files", "arguments": CHAT_ARGUMENTS,
                         "status": "completed"}]),
    response("resp_2", [said("msg_2", "There are three files.")]),
    response("resp_3", [said("msg_3", "You are welcome.")]),
]


@pytest.fixture
def responses_run(example: ModuleType, builtins: Compiler) -> tuple[Script, list[str]]:
    openai = sdk("openai")
    script = Script(http_library(openai), "/responses", RESPONSES_SCRIPT)
    client = openai.OpenAI(api_key="sk-test", max_retries=0, http_client=script.client())
    return script, two_turns(example, builtins, example.OpenAIResponses(client))


def test_responses_instructions_tools_and_cache_key(responses_run: Any,
                                                    builtins: Compiler) -> None:
    script, answers = responses_run
    assert answers == ["There are three files.", "You are welcome."]
    assert len(script.bodies) == 3
    for body, day in zip(script.bodies, (DAY_ONE, DAY_ONE, DAY_TWO)):
        prompt = compiled(builtins, "openai", "gpt-5", day)
        expected = prompt.to_openai("responses")
        assert body["instructions"] == expected["instructions"] == prompt.system
        assert body["prompt_cache_key"] == expected["prompt_cache_key"]
        assert body["tools"] == expected["tools"]
        # every built-in tool's schema is strict-ready (optional parameters nullable)
        assert {t["name"]: t["strict"] for t in body["tools"]} == prompt.tools.strict_flags()
        assert all(tool["strict"] is True for tool in body["tools"])
        assert [tool["name"] for tool in body["tools"]] == list(prompt.tools.names)


def test_responses_tool_result_goes_back(responses_run: Any, example: ModuleType,
                                        builtins: Compiler) -> None:
    script, _ = responses_run
    first, second, third = script.bodies
    opening, update = details(builtins, "openai", "gpt-5")
    assert first.get("previous_response_id") is None  # sent as null, or not at all
    assert first["input"] == [{"role": "user", "content": opening},
                              {"role": "user", "content": "List the files."}]
    assert second["previous_response_id"] == "resp_1"
    assert second["input"] == [{"type": "function_call_output", "call_id": "call_1",
                                "output": tool_output(example)}]
    assert third["previous_response_id"] == "resp_2"
    assert third["input"] == [{"role": "user", "content": "Thanks!"},
                              {"role": "user", "content": update}]


def test_responses_second_turn_reuses_the_static_prefix(responses_run: Any,
                                                        builtins: Compiler) -> None:
    script, _ = responses_run
    static = compiled(builtins, "openai", "gpt-5", DAY_TWO).static_prefix.encode()
    assert static
    for body in script.bodies:
        assert body["instructions"].encode()[:len(static)] == static
    assert len({body["prompt_cache_key"] for body in script.bodies}) == 1
    assert len({json.dumps(body["tools"], sort_keys=True) for body in script.bodies}) == 1


# --- both tool modes on one variant (generic) ------------------------------------------------

TEXT_CALL = ("Let me look.\n<list_files>\n<path>.</path>\n<recursive>false</recursive>\n"
             "</list_files>")


def test_text_mode_calls_are_parsed_run_and_answered(example: ModuleType,
                                                     builtins: Compiler) -> None:
    """gpt-4.1 with `native_tools=False`: the prompt teaches the text format, no `tools` are
    sent, and the loop reads the call out of the reply's text."""
    openai = sdk("openai")
    script = Script(http_library(openai), "/chat/completions", [
        chat_completion("chatcmpl-1", {"role": "assistant", "content": TEXT_CALL}, "stop"),
        CHAT_SCRIPT[1]])
    client = openai.OpenAI(api_key="sk-test", max_retries=0, http_client=script.client())
    calls: list[tuple[str, dict[str, Any]]] = []

    def run_tool(call: ToolCall) -> str:
        calls.append((call.name, dict(call.arguments)))
        return example.describe_call(call)

    backend = example.OpenAIChat(client, model="gpt-4.1", native_tools=False)
    agent = example.Agent(builtins, backend, run_tool)
    assert agent.turn("List the files.", example.turn_context(SESSION, DAY_ONE)) == \
        "There are three files."
    prompt = builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False),
                              example.turn_context(SESSION, DAY_ONE))
    assert prompt.variant.id == "generic" and prompt.tools.mode == "text"
    assert calls == [("list_files", LIST_ARGS)]
    first, second = script.bodies
    assert "tools" not in first and "tools" not in second
    assert first["messages"][0] == {"role": "system", "content": prompt.system}
    assert "<list_files>" in prompt.system  # the text catalogue teaches the format
    assert second["messages"][1] == {"role": "user", "content": prompt.message}
    assert second["messages"][2:] == [
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": TEXT_CALL},
        {"role": "user", "content": example.text_results([("list_files", tool_output(example))])},
    ]


def text_mode_agent(example: ModuleType, builtins: Compiler, reply: str
                    ) -> tuple[Any, Script, list[str]]:
    """An agent on gpt-4.1 with text tools whose model first replies `reply`, then ends the
    turn; the names of the tools it ran are collected."""
    openai = sdk("openai")
    script = Script(http_library(openai), "/chat/completions", [
        chat_completion("chatcmpl-1", {"role": "assistant", "content": reply}, "stop"),
        CHAT_SCRIPT[1]])
    client = openai.OpenAI(api_key="sk-test", max_retries=0, http_client=script.client())
    ran: list[str] = []
    agent = example.Agent(builtins, example.OpenAIChat(client, model="gpt-4.1",
                                                       native_tools=False),
                          lambda call: ran.append(call.name) or "")
    return agent, script, ran


def test_text_mode_bad_calls_go_back_as_errors(example: ModuleType, builtins: Compiler) -> None:
    bad = "<list_files>\n<recursive>perhaps</recursive>\n</list_files>"
    agent, script, ran = text_mode_agent(example, builtins, bad)
    agent.turn("List the files.", example.turn_context(SESSION, DAY_ONE))
    assert ran == []  # never run
    answer = script.bodies[1]["messages"][-1]["content"]
    assert answer.startswith("[list_files] result:\nerror: ")
    assert "parameter 'recursive' of list_files must be true or false, got 'perhaps'" in answer
    assert "tool 'list_files' is missing its required parameter 'path'" in answer


def test_a_call_the_mode_rules_out_is_refused_not_run(example: ModuleType,
                                                     builtins: Compiler) -> None:
    """Plan mode offers write_to_file too (one tool list for both modes keeps the cache); the
    prompt says it is not allowed now, and the loop refuses the call instead of running it."""
    write = "<write_to_file>\n<path>a.txt</path>\n<content>x</content>\n</write_to_file>"
    agent, script, ran = text_mode_agent(example, builtins, write)
    plan = attrs.evolve(example.turn_context(SESSION, DAY_ONE), mode="plan")
    agent.turn("Write a.txt.", plan)
    assert ran == []
    answer = script.bodies[1]["messages"][-1]["content"]
    assert answer.startswith("[write_to_file] result:\nerror: write_to_file is not allowed in "
                             "plan mode; allowed now: ")
    assert "read_file" in answer and "plan_mode_respond" in answer
    prompt = builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False), plan)
    assert "write_to_file" in prompt.tools.names  # offered, and the mode section rules it out
    assert "write_to_file" in prompt.section("act_vs_plan_mode").text


def test_native_mode_on_generic_sends_tools_and_checks_calls(example: ModuleType,
                                                             builtins: Compiler) -> None:
    """gpt-4.1 left to its capability: generic sends native tools; the strict null of an
    optional argument never reaches the runner."""
    null_call = chat_completion("chatcmpl-1", {"role": "assistant", "content": None,
                                               "tool_calls": [
        {"id": "call_1", "type": "function", "function": {
            "name": "list_files", "arguments": json.dumps({"path": ".", "recursive": None})}}]},
        "tool_calls")
    openai = sdk("openai")
    script = Script(http_library(openai), "/chat/completions", [null_call, CHAT_SCRIPT[1]])
    client = openai.OpenAI(api_key="sk-test", max_retries=0, http_client=script.client())
    calls: list[tuple[str, dict[str, Any]]] = []
    agent = example.Agent(builtins, example.OpenAIChat(client, model="gpt-4.1"),
                          lambda call: calls.append((call.name, call.arguments)) or "ok")
    assert agent.turn("Hi.", example.turn_context(SESSION, DAY_ONE)) == "There are three files."
    prompt = compiled(builtins, "openai", "gpt-4.1", DAY_ONE)
    assert prompt.variant.id == "generic" and prompt.tools.mode == "native"
    first, _ = script.bodies
    assert first["tools"] == prompt.to_openai()["tools"]
    assert "<list_files>" not in prompt.text
    assert calls == [("list_files", {"path": "."})]


@pytest.mark.parametrize(("api", "key"), [("anthropic", "ANTHROPIC_API_KEY"),
                                          ("chat", "OPENAI_API_KEY"),
                                          ("responses", "OPENAI_API_KEY")])
def test_without_an_api_key_the_example_says_which_to_set(
        example: ModuleType, api: str, key: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Once an SDK traceback; now one line naming the variable, exit 2."""
    monkeypatch.delenv(key, raising=False)
    assert example.main(["--api", api]) == 2
    err = capsys.readouterr().err
    assert key in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


# --- examples/workflow-node and examples/template-library (issue 35) ---------------------------
# Two projects with prompts of their own, no Python plugin and no wrapper script: each README's
# commands are run here as written, in the example's folder.

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
WORKFLOW = EXAMPLES / "workflow-node"
LIBRARY = EXAMPLES / "template-library"
MODELS = ["anthropic/claude-sonnet-4-5", "openai/gpt-4.1", "ollama/qwen3:8b"]


def sh_commands(readme: Path) -> list[str]:
    """Every `promptc …` line of the README's sh blocks, in order."""
    text = readme.read_text(encoding="utf-8")
    return [line for block in text.split("```sh\n")[1:] for line in
            block.split("```", 1)[0].splitlines() if line.startswith("promptc ")]


class ExampleCli:
    """`promptc …` run in an example's folder, as its README says.

    The example's promptc.toml (builtins = false, folder, matrix, snapshots) is read by the CLI
    once project files land (issue 32, built in parallel; its `--no-builtins` option is the
    sign). Until then this applies the same settings itself: the prompt folder without the
    built-in pack, and the matrix and snapshot folder for `snapshot`."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch,
                 capsys: pytest.CaptureFixture[str]) -> None:
        import tomllib

        from promptc._cli.args import PARSERS
        from promptc._cli.commands import build_parser
        build_parser()
        self.capsys = capsys
        self.settings = tomllib.loads((root / "promptc.toml").read_text(encoding="utf-8"))
        assert self.settings["builtins"] is False
        self.reads_project = any("--no-builtins" in a.option_strings
                                 for a in PARSERS["render"]._actions)
        monkeypatch.delenv("PROMPTC_PROJECT", raising=False)
        monkeypatch.chdir(root)
        if not self.reads_project:
            folder = root / self.settings["folder"]
            monkeypatch.setattr(Compiler, "default", classmethod(
                lambda cls, **_kw: Compiler.from_folders(folder, builtins=False)))

    def __call__(self, command: str) -> tuple[int, str, str]:
        import shlex
        argv = shlex.split(command, comments=True)[1:]
        if not self.reads_project and argv[0] == "snapshot":
            argv += ["--matrix", self.settings["matrix"], "--dir", self.settings["snapshots"]]
        code = main(argv)
        out, err = self.capsys.readouterr()
        return code, out, err


@pytest.mark.parametrize("root", [WORKFLOW, LIBRARY], ids=["workflow-node", "template-library"])
def test_the_example_needs_no_python_and_its_readme_commands_run(
        root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert [p.name for p in root.rglob("*") if p.suffix in (".py", ".sh")] == []
    cli = ExampleCli(root, monkeypatch, capsys)
    commands = sh_commands(root / "README.md")
    assert len(commands) >= 7
    for command in commands:
        code, out, err = cli(command)
        assert code == 0, (command, out, err)
        assert "software engineering" not in out  # no trace of the built-in coding pack
    code, out, _ = cli("promptc snapshot --check")
    assert code == 0 and "snapshot(s) match" in out


def test_the_workflow_node_notice_json_and_question(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from promptc._base.frozen import compact_json
    cli = ExampleCli(WORKFLOW, monkeypatch, capsys)
    run = json.loads((WORKFLOW / "contexts" / "run.json").read_text(encoding="utf-8"))
    notice = "You cannot see images."
    texts = {}
    for model in MODELS:
        provider, name = model.split("/")
        code, out, _ = cli(f"promptc render --provider {provider} --model {name} "
                           "--context contexts/run.json --format json")
        data = json.loads(out)
        assert code == 0 and data["variant"]["id"] == "node"
        texts[model] = data["text"]
    assert notice in texts["ollama/qwen3:8b"]  # Qwen 3 on Ollama reads no images
    assert notice not in texts["anthropic/claude-sonnet-4-5"]
    assert notice not in texts["openai/gpt-4.1"]
    for text in texts.values():
        assert compact_json(run["runtime"]["PREVIOUS"]) in text  # byte for byte, no escaping
        assert "- sync-to-erp (failed): Orders 1041 and 1047" in text
        assert text.endswith("# The user's question\n\n" + run["runtime"]["QUESTION"])
    code, out, _ = cli("promptc render --provider ollama --model qwen3:8b "
                       "--context contexts/no-files.json")
    assert code == 0 and notice not in out and "# Attached files" not in out


def test_the_workflow_node_refuses_a_run_that_breaks_its_inputs(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    cli = ExampleCli(WORKFLOW, monkeypatch, capsys)
    code, out, err = cli("promptc render --provider openai --model gpt-4.1 "
                         "--set-json 'UPSTREAM=[]'")
    assert (code, out) == (1, "") and "required input 'QUESTION' has no value" in err
    code, out, err = cli("promptc render --provider openai --model gpt-4.1 --set QUESTION=q "
                         """--set-json 'UPSTREAM=[{"step": "a", "status": "done", "summary": "x"}]'""")
    assert (code, out) == (1, "") and "'UPSTREAM[0].status' must be one of" in err
    code, out, _ = cli("promptc render --provider openai --model gpt-4.1 "
                       "--context contexts/forged.json")
    assert code == 0 and "\n# The user's question\n" in out
    assert out.count("\n# The user's question\n") == 1  # the forged one is quoted text


def test_the_template_library_catalogue_tokens_and_a_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import shutil
    import tomllib
    cli = ExampleCli(LIBRARY, monkeypatch, capsys)
    code, out, _ = cli("promptc variants --json")
    catalogue = {row["id"]: row for row in json.loads(out)}
    assert code == 0 and sorted(catalogue) == ["summary", "support-reply", "translation"]
    for vid, row in catalogue.items():
        declared = tomllib.loads((LIBRARY / "prompts" / "variants" / vid / "variant.toml")
                                 .read_text(encoding="utf-8"))["inputs"]
        assert [i["name"] for i in row["inputs"]] == list(declared)
        assert all(i["example"] is not None or i["default"] is not None for i in row["inputs"])
    code, out, _ = cli(f"promptc tokens --all-variants --models {' '.join(MODELS)} --json")
    rows = json.loads(out)
    assert code == 0 and [(r["variant"], r["model"]) for r in rows] == [
        (v, m) for v in sorted(catalogue) for m in MODELS]
    assert all(r["split"]["system"] > 0 and r["split"]["message"] > 0 for r in rows)
    code, out, err = cli("promptc render --variant summary --examples --provider anthropic "
                         "--model claude-sonnet-4-5 --set MAX_WORDS=900")
    assert code == 1 and "'MAX_WORDS' must be at most 500, got 900" in err
    # a copy, in a copy of the library
    copy = tmp_path / "library"
    shutil.copytree(LIBRARY, copy)
    cli = ExampleCli(copy, monkeypatch, capsys)
    code, out, err = cli("promptc new-variant summary-short --copy summary --dir prompts")
    assert code == 0, err
    assert "extends" not in (copy / "prompts/variants/summary-short/variant.toml").read_text()
    preview = "--examples --provider anthropic --model claude-sonnet-4-5"
    assert cli(f"promptc render --variant summary-short {preview}")[1] == \
        cli(f"promptc render --variant summary {preview}")[1]
# --- examples/support-assistant: a project with prompts of its own -----------------------------

SUPPORT = Path(__file__).resolve().parent.parent / "examples" / "support-assistant"
DANA = ["--set", "CUSTOMER_NAME=Dana", "--set", "RECENT_ORDER=NW-10482"]


def promptc_run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from promptc._cli import main
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def readme_commands(readme: Path, heading: str) -> list[str]:
    """The `promptc …` lines of the first sh block after `heading` in a README."""
    text = readme.read_text(encoding="utf-8").split(heading, 1)[1]
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.startswith("promptc ")]


def test_the_support_assistant_lints_strictly_and_matches_its_snapshots(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROMPTC_PROJECT", raising=False)
    monkeypatch.chdir(SUPPORT / "prompts" / "variants")  # from a subfolder: found upward
    code, out, err = promptc_run(capsys, "lint", "--strict")
    assert code == 0 and out.startswith("ok: 0 finding(s) in 2 variant(s)"), out + err
    code, out, err = promptc_run(capsys, "snapshot", "--check")
    assert code == 0 and "6 snapshot(s) match" in out and "matrix.toml" in out, out + err
    code, out, err = promptc_run(capsys, "variants", "--json")
    assert [(r["id"], r["source"]) for r in json.loads(out)] == [
        ("support-claude", "project"), ("support-gpt", "project")]


def test_the_support_assistant_readme_commands_run(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import shlex
    monkeypatch.delenv("PROMPTC_PROJECT", raising=False)
    monkeypatch.chdir(SUPPORT)
    commands = readme_commands(SUPPORT / "README.md", "Run these")
    assert len(commands) >= 6
    for command in commands:
        code, out, err = promptc_run(capsys, *shlex.split(command, comments=True)[1:])
        if "--model o3" in command:  # no variant is written for it: an error, not a prompt
            assert code == 2 and out == "" and "no variant matches" in err, err
            continue
        assert code == 0, (command, err)
        assert "software engineering" not in out  # no trace of the built-in coding pack


def test_the_support_assistant_gives_each_model_its_variant(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROMPTC_PROJECT", raising=False)
    monkeypatch.chdir(SUPPORT)
    code, out, _ = promptc_run(capsys, "render", "--provider", "openai", "--model", "gpt-4.1",
                               *DANA, "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["variant"]["id"] == "support-gpt"
    assert data["tools"]["names"] == ["lookup_order", "start_return"]
    assert "offer to try again" in data["text"]  # the GPT variant's section edit
    assert "Their most recent order is NW-10482" in data["text"]
    code, out, _ = promptc_run(capsys, "render", *DANA)  # the project's default model
    assert code == 0 and "Keep answers short" in out and "offer to try again" not in out


def test_the_support_assistant_from_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's Python snippet, run from the repository's root as it says."""
    monkeypatch.delenv("PROMPTC_PROJECT", raising=False)
    monkeypatch.chdir(SUPPORT.parent.parent)
    readme = (SUPPORT / "README.md").read_text(encoding="utf-8")
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict[str, Any] = {}
    exec(code, scope)  # noqa: S102 - the README's own snippet, run as a reader would
    payload = scope["prompt"].to_anthropic()
    assert [t["name"] for t in payload["tools"]] == ["lookup_order", "start_return"]
    assert "You are talking with Dana" in scope["prompt"].text


@pytest.mark.heavy  # a pytest run inside pytest: about a second of its own
def test_the_support_assistants_own_pytest_suite_passes() -> None:
    """`pytest` in the example's folder: promptc's fixtures read its promptc.toml (pytest's
    rootdir is the example's, by its pytest.ini). Only promptc's pytest plugin is loaded (the
    example uses no other; tests/test_init.py runs a new project's suite with auto-loading)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "PROMPTC")) and k != "PYTHONPATH"}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "promptc.testing"], cwd=SUPPORT, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 passed" in done.stdout
