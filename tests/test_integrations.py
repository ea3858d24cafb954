"""promptc.integrations through the real frameworks, against a local fake server.

Each README snippet (section "Integrations") runs exactly as written, with `compiler`,
`provider`, `context`, `prompt` and `run_tool` defined, the framework's base URL pointed at a
FakeServer on 127.0.0.1 and every other address refused; the tests assert what went over the
wire and what reached `run_tool`.
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

from promptc import CompiledPrompt, Compiler, ProviderInfo, ToolCall  # noqa: E402
from promptc.integrations._common import MissingExtraError, require  # noqa: E402

from .conftest import load_context  # noqa: E402
from .fakeserver import FakeServer, Reply  # noqa: E402

README = Path(__file__).resolve().parent.parent / "README.md"
GPT = ProviderInfo("openai", "gpt-4.1")
CLAUDE = ProviderInfo("anthropic", "claude-sonnet-4-5")
LIST_CALL = Reply("", (("list_files", {"path": ".", "recursive": None}),))


def snippets() -> dict[str, str]:
    """The README's integration snippets, by the module each imports."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Integrations"):]
    section = section[:section.index("\n## ", 5)]
    out = {}
    for code in re.findall(r"```python\n(.*?)```", section, re.S):
        [module] = re.findall(r"promptc\.integrations\.(\w+)", code)
        out[module] = code
    return out


SNIPPETS = snippets()


def test_every_integration_has_a_short_snippet() -> None:
    assert set(SNIPPETS) == {"litellm", "openai_agents", "pydantic_ai", "langchain", "llm"}
    for code in SNIPPETS.values():
        assert len(code.strip().splitlines()) <= 5


@pytest.fixture(scope="module", autouse=True)
def forget_litellm() -> Iterator[None]:
    """Leave no `litellm` in sys.modules behind: other tests check that promptc reads an
    installed LiteLLM's data without importing it."""
    yield
    for name in [n for n in sys.modules if n == "litellm" or n.startswith("litellm.")]:
        del sys.modules[name]


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
    context = load_context("full")
    prompt = builtins.compile(provider, context)
    runner = Runner()
    scope: dict[str, Any] = {"compiler": builtins, "provider": provider, "context": context,
                             "prompt": prompt, "run_tool": runner}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(SNIPPETS[module], f"README.md:{module}", "exec"), scope)
    return prompt, runner, out.getvalue(), scope


def marks(items: list[dict[str, Any]]) -> list[int]:
    return [i for i, item in enumerate(items) if "cache_control" in item]


# --- the README snippets -------------------------------------------------------------------------

def test_litellm_snippet_keeps_anthropic_cache_markers(builtins: Compiler,
                                                       server: FakeServer) -> None:
    prompt, _runner, _out, scope = run_snippet("litellm", builtins, CLAUDE)
    assert scope["reply"].choices[0].message.content == "OK"
    [body] = server.bodies("anthropic")
    expected = prompt.to_anthropic()
    assert body["system"] == expected["system"]  # the blocks and their markers, byte for byte
    assert [t["name"] for t in body["tools"]] == list(prompt.tools.names)
    assert marks(body["tools"]) == [prompt.tools.stable - 1] == marks(expected["tools"])
    ours = {t["name"]: t["input_schema"] for t in prompt.tools.anthropic()}
    assert all(t["input_schema"] == ours[t["name"]] for t in body["tools"])


def test_litellm_on_an_openai_route_sends_strict_tools_and_a_cache_key(
        builtins: Compiler, server: FakeServer) -> None:
    import litellm

    from promptc.integrations.litellm import completion_kwargs, run_tool_calls
    prompt = builtins.compile(GPT, load_context("full"))
    server.script("chat", LIST_CALL)
    kwargs = completion_kwargs(prompt, [{"role": "user", "content": "Hi"}])
    assert kwargs["model"] == "openai/gpt-4.1"
    reply = litellm.completion(**kwargs)
    [body] = server.bodies("chat")
    assert body["tools"] == prompt.tools.openai()
    assert body["messages"][0] == {"role": "system", "content": prompt.text}
    assert body["prompt_cache_key"] == prompt.to_openai()["prompt_cache_key"]
    runner = Runner()
    [answer] = run_tool_calls(prompt, reply.choices[0].message, runner)
    assert answer["role"] == "tool" and answer["content"] == "a.py b.py c.py"
    assert [(c.name, c.arguments) for c in runner.calls] == [("list_files", {"path": "."})]


def test_openai_agents_snippet(builtins: Compiler, server: FakeServer) -> None:
    server.script("responses", LIST_CALL, Reply("Three files."))
    prompt, runner, out, _scope = run_snippet("openai_agents", builtins, GPT)
    assert out.strip() == "Three files."
    assert [(c.name, c.arguments) for c in runner.calls] == [("list_files", {"path": "."})]
    first, second = server.bodies("responses")
    assert first["instructions"] == prompt.text
    assert first["tools"] == prompt.tools.openai("responses")  # strict as promptc made them
    assert all(t["strict"] for t in first["tools"])
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
    server.script("responses", Reply("", (("mcp__sh__exec", {"cmd": "ls"}),)), Reply("Done."))
    runner = Runner()
    agent = make_agent(builtins, GPT, context, runner, model="gpt-4.1")
    assert AgentsRunner.run_sync(agent, "Go.").final_output == "Done."
    [sent] = [t for t in server.bodies("responses")[0]["tools"] if t["name"] == "mcp__sh__exec"]
    assert sent["strict"] is False and sent["parameters"]["required"] == ["cmd"]
    [call] = runner.calls
    assert (call.server, call.tool, call.arguments) == ("sh", "exec", {"cmd": "ls"})


def test_pydantic_ai_snippet_places_cache_markers_once(builtins: Compiler,
                                                       server: FakeServer) -> None:
    server.script("anthropic", LIST_CALL, Reply("Three files."))
    prompt, runner, out, _scope = run_snippet("pydantic_ai", builtins, CLAUDE)
    assert out.strip() == "Three files."
    assert [(c.name, c.arguments) for c in runner.calls] == [("list_files", {"path": "."})]
    first = server.bodies("anthropic")[0]
    assert "".join(b["text"] for b in first["system"]) == prompt.text
    assert len(marks(first["system"])) == 1 and len(marks(first["tools"])) == 1
    ours = {t["name"]: t["input_schema"] for t in prompt.tools.anthropic()}
    assert {t["name"] for t in first["tools"]} == set(ours)
    assert all(t["input_schema"] == ours[t["name"]] for t in first["tools"])


def test_langchain_snippet(builtins: Compiler, server: FakeServer) -> None:
    from promptc.integrations.langchain import tool_messages
    server.script("chat", LIST_CALL)
    prompt, _runner, _out, scope = run_snippet("langchain", builtins, GPT)
    [body] = server.bodies("chat")
    assert body["messages"][0] == {"role": "system", "content": prompt.text}
    assert body["tools"] == prompt.tools.openai()
    runner = Runner()
    [answer] = tool_messages(prompt, scope["reply"], runner)
    assert answer.content == "a.py b.py c.py" and answer.tool_call_id == "call_1_0"
    assert [(c.name, c.arguments) for c in runner.calls] == [("list_files", {"path": "."})]


def test_langchain_for_anthropic_sends_marked_blocks(builtins: Compiler) -> None:
    from promptc.integrations.langchain import bind_tools_kwargs, system_message
    prompt = builtins.compile(CLAUDE, load_context("full"))
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
    assert first["messages"][0] == {"role": "system", "content": prompt.text}
    assert [t["function"]["name"] for t in first["tools"]] == list(prompt.tools.names)


# --- shared behaviour ------------------------------------------------------------------------

def test_a_bad_call_never_reaches_run_tool(builtins: Compiler, server: FakeServer) -> None:
    from agents import Runner as AgentsRunner

    from promptc.integrations.openai_agents import make_agent
    server.script("responses", Reply("", (("list_files", {"recursive": "yes"}),)),
                  Reply("Sorry."))
    runner = Runner()
    agent = make_agent(builtins, GPT, load_context("full"), runner, model="gpt-4.1")
    assert AgentsRunner.run_sync(agent, "Go.").final_output == "Sorry."
    assert runner.calls == []
    output = server.bodies("responses")[1]["input"][-1]["output"]
    assert output.startswith("error: ") and "'path' is missing" in output


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
    plan = attrs.evolve(load_context("full"), mode="plan")
    agent = make_agent(builtins, GPT, plan, runner, model="gpt-4.1")
    assert AgentsRunner.run_sync(agent, "Go.").final_output == "Understood."
    assert runner.calls == []
    output = server.bodies("responses")[1]["input"][-1]["output"]
    assert output == "error: write_to_file is not available in plan mode"


def test_text_mode_hands_over_the_prompt_alone(builtins: Compiler) -> None:
    from promptc.integrations.langchain import bind_tools_kwargs
    from promptc.integrations.litellm import completion_kwargs
    from promptc.integrations.pydantic_ai import agent_kwargs
    prompt = builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False),
                              load_context("full"))
    assert prompt.tools.mode == "text"
    assert "tools" not in completion_kwargs(prompt)
    assert bind_tools_kwargs(prompt) == {"tools": []}
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
