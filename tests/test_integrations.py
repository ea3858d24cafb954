"""promptc.integrations through the real frameworks, against a local fake server.

Each snippet of docs/integrations.md (once the README's "Integrations") runs exactly as written,
with `compiler`, `provider`, `context`, `prompt` and `run_tool` defined, the framework's base URL
pointed at a FakeServer on 127.0.0.1 and every other address refused; the tests assert what went
over the wire and what reached `run_tool`.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# LiteLLM fetches its model cost map over the network when imported unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from promptc import CompiledPrompt, Compiler, PromptContext, ProviderInfo, ToolCall  # noqa: E402
from promptc.integrations import MissingExtraError  # noqa: E402
from promptc.integrations._common import require  # noqa: E402
from promptc.testing import make_context  # noqa: E402

from .fakeserver import FakeServer, Reply  # noqa: E402

PAGE = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"
GPT = ProviderInfo("openai", "gpt-4.1")
CLAUDE = ProviderInfo("anthropic", "claude-sonnet-4-5")
LIST_CALL = Reply("", (("list_files", {"path": ".", "recursive": None}),))


def snippets() -> dict[str, str]:
    """The page's integration snippets, by the module each imports."""
    out = {}
    for code in re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S):
        [module] = re.findall(r"promptc\.integrations\.(\w+)", code)
        out[module] = code
    return out


SNIPPETS = snippets()


def test_every_integration_has_a_short_snippet() -> None:
    assert set(SNIPPETS) == {"litellm", "openai_agents", "pydantic_ai", "langchain", "llm"}
    for code in SNIPPETS.values():
        assert len(code.strip().splitlines()) <= 5


@pytest.fixture
def local_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection or name lookup outside 127.0.0.1 fails loudly."""
    real_connect = socket.socket.connect
    real_lookup = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> Any:
        if isinstance(address, tuple) and address[0] not in ("127.0.0.1", "localhost", "::1"):
            raise AssertionError(f"a test tried to reach {address}")
        return real_connect(self, address)

    def lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in ("127.0.0.1", "localhost", "::1", None):
            raise AssertionError(f"a test tried to look up {host!r}")
        return real_lookup(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", lookup)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, local_only: None, tmp_path: Path
           ) -> Iterator[FakeServer]:
    with FakeServer() as fake:
        for key, value in {
            "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": fake.url + "/v1",
            "ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": fake.url,
            "ANTHROPIC_API_BASE": fake.url,  # LiteLLM's name for it
            "OPENAI_AGENTS_DISABLE_TRACING": "1", "LLM_USER_PATH": str(tmp_path),
        }.items():
            monkeypatch.setenv(key, value)
        yield fake


class Runner:
    """A `run_tool` that records each call."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []

    def __call__(self, call: ToolCall) -> str:
        self.calls.append(call)
        return "a.py b.py c.py"


def run_snippet(module: str, builtins: Compiler, provider: ProviderInfo
                ) -> tuple[CompiledPrompt, Runner, str, dict[str, Any]]:
    context = make_context("full")
    prompt = builtins.compile(provider, context)
    runner = Runner()
    scope: dict[str, Any] = {"compiler": builtins, "provider": provider, "context": context,
                             "prompt": prompt, "run_tool": runner}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(SNIPPETS[module], f"docs/integrations.md:{module}", "exec"), scope)
    return prompt, runner, out.getvalue(), scope


def marks(items: list[dict[str, Any]]) -> list[int]:
    return [i for i, item in enumerate(items) if "cache_control" in item]


# --- the page's snippets -----------------------------------------------------------------------

@pytest.mark.heavy  # imports LiteLLM
def test_litellm_snippet_keeps_anthropic_cache_markers(builtins: Compiler,
                                                       server: FakeServer) -> None:
    prompt, _runner, _out, scope = run_snippet("litellm", builtins, CLAUDE)
    assert scope["reply"].choices[0].message.content == "OK"
    [body] = server.bodies("anthropic")
    expected = prompt.to_anthropic()
    assert body["system"] == expected["system"]  # the blocks and their markers, byte for byte
    # the details open the conversation as blocks of their own (LiteLLM joins the user
    # messages that follow each other into one Anthropic message), the client's text after
    blocks = body["messages"][0]["content"]
    assert "".join(b["text"] for b in blocks[:-1]) == prompt.message
    assert blocks[-1]["text"] == "Hi" and marks(blocks) == marks(
        expected["messages"][0]["content"])
    assert [t["name"] for t in body["tools"]] == list(prompt.tools.names)
    assert marks(body["tools"]) == [prompt.tools.stable - 1] == marks(expected["tools"])
    # the schemas as given (Pydantic AI adapts them per model itself), not the open form
    # promptc's own Anthropic payload sends
    ours = {name: schema for name, _d, schema in prompt.tools.functions()}
    assert all(t["input_schema"] == ours[t["name"]] for t in body["tools"])


@pytest.mark.heavy  # imports LiteLLM
def test_litellm_on_an_openai_route_sends_strict_tools_and_a_cache_key(
        builtins: Compiler, server: FakeServer) -> None:
    import litellm

    from promptc.integrations.litellm import answer_calls, completion_kwargs
    prompt = builtins.compile(GPT, make_context("full"))
    server.script("chat", LIST_CALL)
    kwargs = completion_kwargs(prompt, [{"role": "user", "content": "Hi"}])
    assert kwargs["model"] == "openai/gpt-4.1"
    reply = litellm.completion(**kwargs)
    [body] = server.bodies("chat")
    assert body["tools"] == prompt.tools.openai()
    assert body["messages"][:3] == [{"role": "system", "content": prompt.system},
                                    {"role": "user", "content": prompt.message},
                                    {"role": "user", "content": "Hi"}]
    assert body["prompt_cache_key"] == prompt.to_openai()["prompt_cache_key"]
    runner = Runner()
    [answer] = answer_calls(prompt, reply.choices[0].message, runner)
    assert answer["role"] == "tool" and answer["content"] == "a.py b.py c.py"
    assert [(c.name, c.arguments) for c in runner.calls] == [("list_files", {"path": "."})]


def test_openai_agents_snippet(builtins: Compiler, server: FakeServer) -> None:
    server.script("responses", LIST_CALL, Reply("Three files."))
    prompt, runner, out, _scope = run_snippet("openai_agents", builtins, GPT)
    assert out.strip() == "Three files."
    assert [(c.name, c.arguments) for c in runner.calls] == [("list_files", {"path": "."})]
    first, second = server.bodies("responses")
    assert first["instructions"] == prompt.system
    assert first["input"][0] == {"role": "user", "content": prompt.message}  # the details
    assert second["input"][:len(first["input"])] == first["input"]  # sent again, unchanged
    assert first["tools"] == prompt.tools.openai("responses")  # strict as promptc made them
    # every tool strict but use_mcp_tool, whose arguments are whatever the server's schema takes
    assert {t["name"] for t in first["tools"] if not t["strict"]} == {"use_mcp_tool"}
    assert first["prompt_cache_key"] == prompt.to_openai("responses")["prompt_cache_key"]
    assert second["input"][-1] == {"call_id": "call_1_0", "output": "a.py b.py c.py",
                                   "type": "function_call_output"}


def test_openai_agents_keeps_a_non_strict_schema_non_strict(builtins: Compiler,
                                                            server: FakeServer) -> None:
    from agents import Runner as AgentsRunner

    from promptc.integrations.openai_agents import make_agent
    context = {"mcp_servers": [{"name": "sh", "tools": [{
        "name": "exec", "description": "Run with an environment.", "input_schema": {
            "type": "object", "properties": {"cmd": {"type": "string"},
                                             "env": {"type": "object",
                                                     "additionalProperties": {"type": "string"}}},
            "required": ["cmd"]}}]}]}
    server.script("responses", Reply("", (("use_mcp_tool", {
        "server_name": "sh", "tool_name": "exec", "arguments": {"cmd": "ls"}}),)),
        Reply("Done."))
    runner = Runner()
    agent = make_agent(builtins, GPT, context, runner, model="gpt-4.1")
    assert AgentsRunner.run_sync(agent, "Go.").final_output == "Done."
    [call] = runner.calls
    assert (call.server, call.tool, call.mcp_arguments) == ("sh", "exec", {"cmd": "ls"})
    # as functions of their own (the one-string placement) the schema keeps strict off
    from promptc.integrations.openai_agents import tools
    fixed = builtins.compile(GPT, context, dynamic="system")
    [sent] = [t for t in tools(fixed, runner) if t.name == "mcp__sh__exec"]
    assert sent.strict_json_schema is False and sent.params_json_schema["required"] == ["cmd"]


def test_pydantic_ai_snippet_places_cache_markers_once(builtins: Compiler,
                                                       server: FakeServer) -> None:
    server.script("anthropic", LIST_CALL, Reply("Three files."))
    prompt, runner, out, _scope = run_snippet("pydantic_ai", builtins, CLAUDE)
    assert out.strip() == "Three files."
    assert [(c.name, c.arguments) for c in runner.calls] == [("list_files", {"path": "."})]
    first, second = server.bodies("anthropic")
    # the system prompt is one block (the default placement), stripped of its ends as
    # Pydantic AI does, and marked: every session shares it
    assert [b["text"] for b in first["system"]] == [prompt.system.strip()]
    assert marks(first["system"]) == [0] and "2026" not in first["system"][0]["text"]
    # the details open the conversation; the history keeps them
    assert first["messages"][0]["content"][0]["text"] == prompt.message
    assert second["messages"][0] == first["messages"][0]
    # session tools (skill loaders, MCP) follow the built-in block, and Pydantic AI can mark
    # only the last tool: no tool marker (the static block's marker covers that prefix)
    assert prompt.tools.stable < len(first["tools"]) and marks(first["tools"]) == []
    # the schemas as given (Pydantic AI adapts them per model itself), not the open form
    # promptc's own Anthropic payload sends
    ours = {name: schema for name, _d, schema in prompt.tools.functions()}
    assert {t["name"] for t in first["tools"]} == set(ours)
    assert all(t["input_schema"] == ours[t["name"]] for t in first["tools"])


def test_pydantic_ai_marks_the_end_of_the_built_in_tool_block(builtins: Compiler,
                                                               server: FakeServer) -> None:
    """Without session tools the last tool ends the built-in block, the one place Pydantic AI
    can mark: its tool marker goes there, and its instruction marker on the static block."""
    from pydantic_ai import Agent

    from promptc.integrations.pydantic_ai import agent_kwargs
    prompt = builtins.compile(CLAUDE, PromptContext(cwd="/w", date="2026-01-02"))
    assert prompt.tools.stable == len(prompt.tools.names)
    Agent("anthropic:claude-sonnet-4-5", **agent_kwargs(prompt, Runner())).run_sync("Hi")
    [body] = server.bodies("anthropic")
    assert [t["name"] for t in body["tools"]] == list(prompt.tools.names)
    assert marks(body["tools"]) == [prompt.tools.stable - 1]
    assert marks(body["system"]) == [0]
    assert body["system"][0]["text"] == prompt.system.strip()
    assert prompt.system_blocks[0].cache == "static"


def test_langchain_snippet(builtins: Compiler, server: FakeServer) -> None:
    from promptc.integrations.langchain import answer_calls
    server.script("chat", LIST_CALL)
    prompt, _runner, _out, scope = run_snippet("langchain", builtins, GPT)
    [body] = server.bodies("chat")
    assert body["messages"] == [{"role": "system", "content": prompt.system},
                                {"role": "user", "content": prompt.message},
                                {"role": "user", "content": "List the files."}]
    assert body["tools"] == prompt.tools.openai()
    runner = Runner()
    [answer] = answer_calls(prompt, scope["reply"], runner)
    assert answer.content == "a.py b.py c.py" and answer.tool_call_id == "call_1_0"
    assert [(c.name, c.arguments) for c in runner.calls] == [("list_files", {"path": "."})]


def test_langchain_for_anthropic_sends_marked_blocks(builtins: Compiler) -> None:
    from promptc.integrations.langchain import bind_tools_kwargs, system_message
    prompt = builtins.compile(CLAUDE, make_context("full"))
    message = system_message(prompt)
    assert message.content == prompt.to_anthropic()["system"]
    tools = bind_tools_kwargs(prompt)["tools"]
    assert marks(tools) == [prompt.tools.stable - 1]


def test_llm_snippet(builtins: Compiler, server: FakeServer) -> None:
    server.script("chat", LIST_CALL, Reply("Three files."))
    prompt, runner, out, _scope = run_snippet("llm", builtins, GPT)
    assert out.strip() == "Three files."
    assert [(c.name, c.arguments) for c in runner.calls] == [("list_files", {"path": "."})]
    first = server.bodies("chat")[0]
    assert first["messages"][:3] == [{"role": "system", "content": prompt.system},
                                     {"role": "user", "content": prompt.message},
                                     {"role": "user", "content": "List the files."}]
    assert [t["function"]["name"] for t in first["tools"]] == list(prompt.tools.names)


# --- shared behaviour ------------------------------------------------------------------------

def test_a_bad_call_never_reaches_run_tool(builtins: Compiler, server: FakeServer) -> None:
    from agents import Runner as AgentsRunner

    from promptc.integrations.openai_agents import make_agent
    server.script("responses", Reply("", (("list_files", {"recursive": "yes"}),)),
                  Reply("Sorry."))
    runner = Runner()
    agent = make_agent(builtins, GPT, make_context("full"), runner, model="gpt-4.1")
    assert AgentsRunner.run_sync(agent, "Go.").final_output == "Sorry."
    assert runner.calls == []
    output = server.bodies("responses")[1]["input"][-1]["output"]
    assert output.startswith("error: ")
    assert "tool 'list_files' is missing its required parameter 'path'" in output


def test_a_call_the_mode_rules_out_never_reaches_run_tool(builtins: Compiler,
                                                          server: FakeServer) -> None:
    """Plan mode offers the same tools as act mode; the integration refuses the act-only call
    (as the prompt's mode section told the model) and the model reads why."""
    import attrs
    from agents import Runner as AgentsRunner

    from promptc.integrations.openai_agents import make_agent
    server.script("responses", Reply("", (("write_to_file", {"path": "a", "content": "x"}),)),
                  Reply("Understood."))
    runner = Runner()
    plan = attrs.evolve(make_context("full"), mode="plan")
    agent = make_agent(builtins, GPT, plan, runner, model="gpt-4.1")
    assert AgentsRunner.run_sync(agent, "Go.").final_output == "Understood."
    assert runner.calls == []
    output = server.bodies("responses")[1]["input"][-1]["output"]
    assert output.startswith("error: write_to_file is not allowed in plan mode; allowed now: ")


def test_text_mode_hands_over_the_prompt_alone(builtins: Compiler) -> None:
    from promptc.integrations.langchain import bind_tools_kwargs
    from promptc.integrations.litellm import completion_kwargs
    from promptc.integrations.pydantic_ai import agent_kwargs
    prompt = builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False),
                              make_context("full"))
    assert prompt.tools.mode == "text"
    assert "tools" not in completion_kwargs(prompt)
    assert bind_tools_kwargs(prompt) == {"tools": [], "prompt_cache_key": prompt.to_openai()[
        "prompt_cache_key"]}
    assert agent_kwargs(prompt, Runner())["instructions"] == prompt.text


def test_a_missing_framework_names_the_extra() -> None:
    with pytest.raises(MissingExtraError, match=r"promptc\[nothing\]") as info:
        require("promptc_no_such_framework", "nothing")
    assert isinstance(info.value, ImportError)


def test_frameworks_are_imported_only_when_used() -> None:
    code = ("import sys, promptc.integrations.litellm, promptc.integrations.openai_agents, "
            "promptc.integrations.pydantic_ai, promptc.integrations.langchain, "
            "promptc.integrations.llm\n"
            "loaded = {'litellm', 'agents', 'pydantic_ai', 'langchain_core', 'llm'} & "
            "set(sys.modules)\nassert not loaded, loaded")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# --- the call checker behind every integration -------------------------------------------------

def test_agents_check_calls_against_the_runs_mode(builtins: Compiler,
                                                  server: FakeServer) -> None:
    """An agent made in act mode, run with a plan-mode context: the run's mode decides."""
    import attrs
    from agents import Runner as AgentsRunner

    from promptc.integrations.openai_agents import make_agent
    server.script("responses", Reply("", (("write_to_file", {"path": "a", "content": "x"}),)),
                  Reply("Understood."))
    runner = Runner()
    act = make_context("full")
    agent = make_agent(builtins, GPT, act, runner, model="gpt-4.1")
    plan = attrs.evolve(act, mode="plan")
    assert AgentsRunner.run_sync(agent, "Go.", context=plan).final_output == "Understood."
    assert runner.calls == []
    first, second = server.bodies("responses")
    ran = builtins.compile(GPT, plan)  # the run's prompt
    assert first["instructions"] == ran.system == builtins.compile(GPT, act).system
    assert first["input"][0] == {"role": "user", "content": ran.message}
    assert second["input"][-1]["output"].startswith(
        "error: write_to_file is not allowed in plan mode")


def test_an_mcp_call_that_misses_its_schema_never_reaches_run_tool(builtins: Compiler,
                                                                   server: FakeServer) -> None:
    from agents import Runner as AgentsRunner

    from promptc.integrations.openai_agents import make_agent
    server.script("responses", Reply("", (("use_mcp_tool", {
        "server_name": "github", "tool_name": "create_issue", "arguments": {"repo": 5}}),)),
        Reply("Sorry."))
    runner = Runner()
    agent = make_agent(builtins, GPT, make_context("full"), runner, model="gpt-4.1")
    assert AgentsRunner.run_sync(agent, "Go.").final_output == "Sorry."
    assert runner.calls == []
    output = server.bodies("responses")[1]["input"][-1]["output"]
    assert "parameter 'repo' of github/create_issue must be a string, got 5" in output
    assert "missing its required parameter 'title'" in output


def test_langchain_answers_the_calls_it_could_not_parse(builtins: Compiler,
                                                        server: FakeServer) -> None:
    """A reply whose call has arguments that are not JSON: LangChain's ChatOpenAI puts it in
    `invalid_tool_calls`; it gets an answer (status error, the checker's words), so the next
    request answers every call id the model sent (OpenAI rejects one left unanswered)."""
    from langchain_openai import ChatOpenAI

    from promptc.integrations.langchain import answer_calls, bind_tools_kwargs, system_message
    prompt = builtins.compile(GPT, make_context("full"))
    server.script("chat", Reply("", (("list_files", {"path": "."}),
                                     ("read_file", '{"path": "a.py"'))))
    model = ChatOpenAI(model="gpt-4.1").bind_tools(**bind_tools_kwargs(prompt))
    history = [system_message(prompt), ("user", "Go.")]
    reply = model.invoke(history)
    assert [c["id"] for c in reply.invalid_tool_calls] == ["call_1_1"]
    runner = Runner()
    ok, bad = answer_calls(prompt, reply, runner)
    assert (ok.tool_call_id, ok.status, ok.content) == ("call_1_0", "success", "a.py b.py c.py")
    assert (bad.tool_call_id, bad.status) == ("call_1_1", "error")
    assert bad.content.startswith("error: the arguments text is not valid JSON")
    assert "missing" not in bad.content
    assert [c.name for c in runner.calls] == ["list_files"]
    model.invoke([*history, reply, ok, bad])
    sent = server.bodies("chat")[1]["messages"]
    [asked] = [m for m in sent if m.get("tool_calls")]
    answered = [m["tool_call_id"] for m in sent if m["role"] == "tool"]
    assert [c["id"] for c in asked["tool_calls"]] == answered == ["call_1_0", "call_1_1"]


class Failing(Runner):
    """A `run_tool` whose read_file raises (the file is gone) while the other tools answer."""

    def __call__(self, call: ToolCall) -> str:
        self.calls.append(call)
        if call.name == "read_file":
            raise FileNotFoundError("gone.py")
        return "a.py"


FAILED = "error: the tool read_file failed: FileNotFoundError: gone.py"
TWO_CALLS = Reply("", (("read_file", {"path": "gone.py"}), ("list_files", {"path": "."})))


def test_langchain_keeps_every_answer_when_a_tool_raises(builtins: Compiler,
                                                         server: FakeServer) -> None:
    from langchain_openai import ChatOpenAI

    from promptc.integrations.langchain import answer_calls, bind_tools_kwargs, system_message
    prompt = builtins.compile(GPT, make_context("full"))
    server.script("chat", TWO_CALLS)
    model = ChatOpenAI(model="gpt-4.1").bind_tools(**bind_tools_kwargs(prompt))
    reply = model.invoke([system_message(prompt), ("user", "Go.")])
    runner = Failing()
    first, second = answer_calls(prompt, reply, runner)
    assert [c.name for c in runner.calls] == ["read_file", "list_files"]
    assert (first.tool_call_id, first.status, first.content) == ("call_1_0", "error", FAILED)
    assert (second.tool_call_id, second.status, second.content) == ("call_1_1", "success",
                                                                    "a.py")


def test_openai_agents_keep_every_answer_when_a_tool_raises(builtins: Compiler,
                                                            server: FakeServer) -> None:
    from agents import Runner as AgentsRunner

    from promptc.integrations.openai_agents import make_agent
    server.script("responses", TWO_CALLS, Reply("One is gone."))
    runner = Failing()
    agent = make_agent(builtins, GPT, make_context("full"), runner, model="gpt-4.1")
    assert AgentsRunner.run_sync(agent, "Go.").final_output == "One is gone."
    assert sorted(c.name for c in runner.calls) == ["list_files", "read_file"]
    outputs = {i["call_id"]: i["output"] for i in server.bodies("responses")[1]["input"]
               if i.get("type") == "function_call_output"}
    assert outputs == {"call_1_0": FAILED, "call_1_1": "a.py"}


def test_pydantic_ai_keeps_every_answer_when_a_tool_raises(builtins: Compiler,
                                                           server: FakeServer) -> None:
    from pydantic_ai import Agent

    from promptc.integrations.pydantic_ai import agent_kwargs
    prompt = builtins.compile(CLAUDE, make_context("full"))
    server.script("anthropic", TWO_CALLS, Reply("One is gone."))
    runner = Failing()
    agent = Agent("anthropic:claude-sonnet-4-5", **agent_kwargs(prompt, runner))
    assert agent.run_sync("Go.").output == "One is gone."
    assert sorted(c.name for c in runner.calls) == ["list_files", "read_file"]
    results = {b["tool_use_id"]: b["content"] for m in server.bodies("anthropic")[1]["messages"]
               if isinstance(m["content"], list) for b in m["content"]
               if b.get("type") == "tool_result"}
    assert {k: _text_of(v) for k, v in results.items()} == {"toolu_1_0": FAILED,
                                                             "toolu_1_1": "a.py"}


def _text_of(content: Any) -> str:
    """A tool_result's content: a string, or its text blocks."""
    if isinstance(content, str):
        return content
    return "".join(b["text"] for b in content if b.get("type") == "text")


def test_llm_keeps_every_answer_when_a_tool_raises(builtins: Compiler,
                                                   server: FakeServer) -> None:
    import llm

    from promptc.integrations.llm import prompt_kwargs
    prompt = builtins.compile(GPT, make_context("full"))
    server.script("chat", TWO_CALLS, Reply("One is gone."))
    runner = Failing()
    chain = llm.get_model("gpt-4.1").chain("Go.", **prompt_kwargs(prompt, runner))
    assert chain.text() == "One is gone."
    assert [c.name for c in runner.calls] == ["read_file", "list_files"]
    answers = {m["tool_call_id"]: m["content"] for m in server.bodies("chat")[1]["messages"]
               if m["role"] == "tool"}
    assert answers == {"call_1_0": FAILED, "call_1_1": "a.py"}


@pytest.mark.heavy  # imports LiteLLM
def test_a_tool_that_raises_answers_its_own_call_and_the_others_run(
        builtins: Compiler, server: FakeServer) -> None:
    import litellm

    from promptc.integrations.litellm import answer_calls, completion_kwargs
    prompt = builtins.compile(GPT, make_context("full"))
    server.script("chat", Reply("", (("read_file", {"path": "gone.py"}),
                                     ("list_files", {"path": "."}))))
    reply = litellm.completion(**completion_kwargs(prompt, [{"role": "user", "content": "Go"}]))
    ran: list[str] = []

    def run_tool(call: ToolCall) -> str:
        ran.append(call.name)
        if call.name == "read_file":
            raise FileNotFoundError("gone.py")
        return "a.py"

    first, second = answer_calls(prompt, reply.choices[0].message, run_tool)
    assert ran == ["read_file", "list_files"]
    assert first["content"] == "error: the tool read_file failed: FileNotFoundError: gone.py"
    assert (second["tool_call_id"], second["content"]) == ("call_1_1", "a.py")


def test_every_integration_that_can_sends_the_prompt_cache_key(builtins: Compiler,
                                                               server: FakeServer) -> None:
    from langchain_openai import ChatOpenAI
    from pydantic_ai import Agent

    from promptc.integrations.langchain import bind_tools_kwargs, system_message
    from promptc.integrations.pydantic_ai import agent_kwargs
    prompt = builtins.compile(GPT, make_context("full"))
    key = prompt.to_openai()["prompt_cache_key"]
    model = ChatOpenAI(model="gpt-4.1").bind_tools(**bind_tools_kwargs(prompt))
    model.invoke([system_message(prompt), ("user", "Hi")])
    agent = Agent("openai:gpt-4.1", **agent_kwargs(prompt, Runner()))
    agent.run_sync("Hi")
    [langchain_body] = server.bodies("chat")
    assert langchain_body["prompt_cache_key"] == key
    [pydantic_body] = server.bodies("responses")  # Pydantic AI's OpenAI model: Responses API
    assert pydantic_body["prompt_cache_key"] == prompt.to_openai("responses")["prompt_cache_key"]


def test_one_name_per_job_and_the_old_names_still_work() -> None:
    import promptc
    from promptc.integrations import langchain, litellm, llm, openai_agents, pydantic_ai
    assert promptc.MissingExtraError is MissingExtraError
    assert all(callable(m.tools) for m in (llm, openai_agents, pydantic_ai))
    assert all(callable(m.answer_calls) for m in (litellm, langchain))
    assert litellm.run_tool_calls is litellm.answer_calls
    assert langchain.tool_messages is langchain.answer_calls
    assert openai_agents.function_tools is openai_agents.tools
    assert pydantic_ai.toolset is pydantic_ai.tools

