"""AWS Bedrock's Converse API, through the format table: `prompt.to_bedrock()` gives arguments
botocore's own request validator accepts (offline), boto3 sends them to a local fake server for
a session that switches mode and then day, a `toolUse` block is checked and answered with a
`toolResult`, and the session simulator bills Bedrock by the model data (Claude and Nova differ;
Llama is not cached at all, and Bedrock would refuse a checkpoint for it)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from promptc import CacheMarkerError, CallError, Compiler, PromptContext, ProviderInfo, ToolCall
from promptc.session import SessionScript, replay

from .fakeserver import FakeServer, Reply

botocore = pytest.importorskip("botocore")

SONNET = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
HAIKU = "global.anthropic.claude-haiku-4-5-20251001-v1:0"
NOVA = "us.amazon.nova-pro-v1:0"
LLAMA = "meta.llama3-1-70b-instruct-v1:0"
ASK = "Add a health check endpoint."


def converse_errors(model: str, payload: dict[str, Any]) -> str:
    """botocore's own report on a Converse request ("" when it is valid)."""
    from botocore.session import Session
    from botocore.validate import ParamValidator
    shape = Session().get_service_model("bedrock-runtime").operation_model("Converse").input_shape
    report = ParamValidator().validate({"modelId": model, **payload}, shape)
    return report.generate_report() if report.has_errors() else ""


def cache_points(blocks: list[dict[str, Any]]) -> list[int]:
    """The index of each block a cachePoint follows."""
    out, seen = [], 0
    for block in blocks:
        if "cachePoint" in block:
            out.append(seen - 1)
        else:
            seen += 1
    return out


def all_points(payload: dict[str, Any]) -> int:
    blocks = [*payload["system"], *payload.get("toolConfig", {}).get("tools", []),
              *(b for m in payload.get("messages", []) for b in m["content"])]
    return sum("cachePoint" in b for b in blocks)


@pytest.mark.parametrize("model", [SONNET, HAIKU, NOVA, LLAMA])
@pytest.mark.parametrize("dynamic", ["message", "system"])
def test_botocore_accepts_the_converse_arguments(builtins: Compiler, full_context: PromptContext,
                                                 model: str, dynamic: str) -> None:
    info = ProviderInfo("bedrock", model)
    first = builtins.compile(info, full_context, dynamic=dynamic)  # type: ignore[arg-type]
    later = builtins.compile(info, attrs.evolve(full_context, mode="plan"),
                             dynamic=dynamic)  # type: ignore[arg-type]
    history = [{"role": "user", "content": [{"text": ASK}]}]
    for payload in (first.to_bedrock(breakpoints=4), first.to_bedrock(messages=history),
                    later.to_bedrock(previous=first, messages=history)):
        roles = [m["role"] for m in payload.get("messages", [])]
        assert all(a != b for a, b in zip(roles, roles[1:])), roles
        assert converse_errors(model, payload) == ""
        assert all_points(payload) <= 4
        assert payload["system"][0] == {"text": first.system[:len(payload["system"][0]["text"])]}
    assert "toolConfig" in first.to_bedrock() and first.tools.mode == "native"


def test_render_and_tools_print_converse(capsys: pytest.CaptureFixture[str]) -> None:
    from promptc._cli import main
    target = ["--provider", "bedrock", "--model", NOVA, "--builtins-only"]
    assert main(["render", *target, "--format", "bedrock", "--breakpoints", "4"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert converse_errors(NOVA, payload) == "" and all_points(payload) >= 1
    assert main(["tools", *target, "--format", "bedrock"]) == 0
    tools = json.loads(capsys.readouterr().out)
    assert tools == [t for t in payload["toolConfig"]["tools"] if "toolSpec" in t]


def test_cache_points_go_where_anthropics_markers_go(builtins: Compiler,
                                                     full_context: PromptContext) -> None:
    """Claude on Converse: a cachePoint after each block Anthropic's payload marks, the
    built-in tool block and the first message's tool catalogue included."""
    prompt = builtins.compile(ProviderInfo("bedrock", SONNET), full_context)
    converse, anthropic = prompt.to_bedrock(breakpoints=4), prompt.to_anthropic(breakpoints=4)

    def marked(blocks: list[dict[str, Any]]) -> list[int]:
        return [i for i, b in enumerate(blocks) if "cache_control" in b]

    tools = converse["toolConfig"]["tools"]
    assert cache_points(tools) == marked(anthropic["tools"]) == [prompt.tools.stable - 1]
    assert cache_points(converse["system"]) == marked(anthropic["system"])
    opening = converse["messages"][0]["content"]
    assert cache_points(opening) == marked(anthropic["messages"][0]["content"]) == [0]
    assert "".join(b.get("text", "") for b in opening) == prompt.message
    assert all_points(converse) == 3 and [t["toolSpec"]["name"] for t in tools
                                          if "toolSpec" in t] == list(prompt.tools.names)
    spec = tools[0]["toolSpec"]
    assert spec["inputSchema"]["json"] == prompt.tools.anthropic()[0]["input_schema"]


def test_the_model_data_decides_where_a_model_is_cached(builtins: Compiler,
                                                        full_context: PromptContext) -> None:
    nova = builtins.compile(ProviderInfo("bedrock", NOVA), full_context)
    assert (nova.provider.cache_min_tokens, nova.provider.cache_tools) == (1000, False)
    payload = nova.to_bedrock(breakpoints=4)
    assert cache_points(payload["toolConfig"]["tools"]) == []  # Nova caches no tools
    assert cache_points(payload["system"]) and all_points(payload) >= 2
    llama = builtins.compile(ProviderInfo("bedrock", LLAMA), full_context)
    assert llama.provider.prompt_caching is False
    assert all_points(llama.to_bedrock(breakpoints=4)) == 0  # Bedrock refuses one for Llama
    haiku = builtins.compile(ProviderInfo("bedrock", HAIKU), full_context)
    assert haiku.provider.cache_min_tokens == 4096


def test_a_fifth_cache_point_is_refused_before_it_is_sent(builtins: Compiler,
                                                          full_context: PromptContext) -> None:
    prompt = builtins.compile(ProviderInfo("bedrock", SONNET), full_context)
    point = {"cachePoint": {"type": "default"}}
    history = [{"role": "user", "content": [{"text": ASK}, point]},
               {"role": "assistant", "content": [{"text": "OK"}]},
               {"role": "user", "content": [{"text": "Go on."}, point]}]
    assert all_points(prompt.to_bedrock(breakpoints=2, messages=history)) == 2 + 2
    with pytest.raises(CacheMarkerError, match="Bedrock Converse refuses more than 4"):
        prompt.to_bedrock(breakpoints=3, messages=history)
    assert all_points(prompt.to_bedrock(ttl="1h")) == 2
    assert prompt.to_bedrock(ttl="1h")["system"][1] == {"cachePoint": {"type": "default",
                                                                        "ttl": "1h"}}


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    with FakeServer() as s:
        yield s


def client(server: FakeServer) -> Any:
    boto3 = pytest.importorskip("boto3")
    from botocore.config import Config
    return boto3.client("bedrock-runtime", endpoint_url=server.url, region_name="us-east-1",
                        aws_access_key_id="test", aws_secret_access_key="test",
                        config=Config(retries={"max_attempts": 1}))


def test_a_session_through_boto3(builtins: Compiler, full_context: PromptContext,
                                 server: FakeServer) -> None:
    """Every request sends the same system blocks and tools, byte for byte as boto3 wrote
    them; the conversation the client kept comes back unchanged, each change an update of its
    own after it."""
    bedrock = client(server)
    info = ProviderInfo("bedrock", SONNET)
    plan = attrs.evolve(full_context, mode="plan")
    prompts = [builtins.compile(info, c) for c in
               (full_context, plan, attrs.evolve(plan, date="2026-01-16"))]
    before = len(server.requests)
    history: list[dict[str, Any]] = [{"role": "user", "content": [{"text": ASK}]}]
    previous = None
    for prompt in prompts:
        payload = prompt.to_bedrock(breakpoints=3, previous=previous, messages=history)
        answer = bedrock.converse(modelId=SONNET, **payload)
        history = [*payload["messages"], answer["output"]["message"],
                   {"role": "user", "content": [{"text": "Go on."}]}]
        previous = prompt
    bodies = [r.body for r in server.requests[before:]]
    assert all(r.path.endswith("/converse") for r in server.requests[before:])
    for key in ("system", "toolConfig"):
        assert len({json.dumps(b[key]) for b in bodies}) == 1, key
    assert bodies[0]["system"][0]["text"] == prompts[0].system
    # Converse takes no two user messages in a row: the details open the user's first one
    first = bodies[0]["messages"]
    assert len(first) == 1 and first[0]["content"][-1] == {"text": ASK}
    assert "".join(b.get("text", "") for b in first[0]["content"][:-1]) == prompts[0].message
    for earlier, later in zip(bodies, bodies[1:]):  # what was sent is sent again, unchanged
        assert later["messages"][:len(earlier["messages"])] == earlier["messages"]
    mode = next(s.text for s in prompts[1].message_sections if s.id == "act_vs_plan_mode")
    # each update closes the user's latest message
    assert all(b["messages"][-1]["content"][0] == {"text": "Go on."} for b in bodies[1:])
    updates = [b["messages"][-1]["content"][-1]["text"] for b in bodies[1:]]
    assert updates[0] == f"<environment_details>\n{mode}\n</environment_details>"
    assert "2026-01-16" in updates[1] and "# Current mode" not in updates[1]
    assert all_points(bodies[0]) == 3
    apart = [{"role": "user", "content": [{"text": "a"}]}] * 2  # what joining avoids
    with pytest.raises(botocore.exceptions.ClientError, match="alternate"):
        bedrock.converse(modelId=SONNET, messages=apart)


def test_the_loop_on_the_api_page(builtins: Compiler, full_context: PromptContext,
                                  server: FakeServer) -> None:
    """docs/api.md's Converse loop runs as written: the calls of a reply are checked, the
    refused one answered with its error, every answer sent in the next user message."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text("utf-8")
    [code] = [b for b in re.findall(r"```python\n(.*?)```", page, re.S)
              if "def converse_session" in b]
    scope: dict[str, Any] = {}
    exec(compile(code, "docs/api.md", "exec"), scope)  # noqa: S102
    plan = attrs.evolve(full_context, mode="plan")
    server.script("bedrock", Reply("", (("list_files", {"path": "."}),
                                        ("write_to_file", {"path": "a", "content": "x"}))))
    before = len(server.requests)
    ran: list[str] = []
    history = scope["converse_session"](
        client(server), builtins, ProviderInfo("bedrock", SONNET),
        [(plan, "Look around."), (plan, "Go on.")], lambda call: ran.append(call.name) or "a.py")
    assert ran == ["list_files"]  # plan mode refused the write before it ran
    bodies = [r.body for r in server.requests[before:]]
    assert len(bodies) == 2 and history[:len(bodies[1]["messages"])] == bodies[1]["messages"]
    answers = bodies[1]["messages"][-1]["content"]
    assert [a["toolResult"].get("status") for a in answers[:2]] == [None, "error"]
    assert answers[0]["toolResult"]["content"] == [{"text": "a.py"}]
    assert answers[2] == {"text": "Go on."}


def test_a_tool_use_is_checked_and_answered_with_a_tool_result(builtins: Compiler,
                                                              full_context: PromptContext,
                                                              server: FakeServer) -> None:
    bedrock = client(server)
    info = ProviderInfo("bedrock", SONNET)
    prompt = builtins.compile(info, attrs.evolve(full_context, mode="plan"))
    server.script("bedrock", Reply("Looking.", (("list_files", {"path": ".", "recursive": True}),
                                                ("write_to_file", {"path": "a", "content": "x"}),
                                                ("list_files", {"path": 3}))))
    payload = prompt.to_bedrock(messages=[{"role": "user", "content": [{"text": ASK}]}])
    reply = bedrock.converse(modelId=SONNET, **payload)["output"]["message"]
    uses = [b for b in reply["content"] if "toolUse" in b]
    listed, written, wrong = (prompt.tools.check(b) for b in uses)
    assert isinstance(listed, ToolCall), getattr(listed, "message", listed)
    assert (listed.name, listed.arguments) == ("list_files", {"path": ".", "recursive": True})
    assert listed.wire == "bedrock"
    assert listed.tool_result("a.py") == {"toolResult": {
        "toolUseId": uses[0]["toolUse"]["toolUseId"], "content": [{"text": "a.py"}]}}
    assert isinstance(written, CallError) and written.code == "not-allowed-in-mode"
    assert isinstance(wrong, CallError) and wrong.code == "bad-value"
    for refused in (written, wrong):
        assert refused.tool_result() == {"toolResult": {
            "toolUseId": refused.call_id, "content": [{"text": refused.message}],
            "status": "error"}}
    inner = prompt.tools.check(uses[0]["toolUse"])  # the ToolUseBlock alone reads the same
    assert isinstance(inner, ToolCall) and inner.tool_result("a.py") == listed.tool_result("a.py")
    results = {"role": "user", "content": [listed.tool_result("a.py"), written.tool_result(),
                                           wrong.tool_result()]}
    again = prompt.to_bedrock(messages=[*payload["messages"], reply, results])
    assert converse_errors(SONNET, again) == ""
    bedrock.converse(modelId=SONNET, **again)
    assert server.requests[-1].body["messages"][-1] == results


def script(model: str, **extra: Any) -> SessionScript:
    return SessionScript.from_dict({
        "provider": "bedrock", "model": model, "turn_tokens": 200, **extra,
        "request": [{}, {"repeat": 2}, {"mode": "plan"}]}, source="bedrock.toml")


def test_the_simulator_bills_bedrock_by_its_rules_and_the_model_data(
        builtins: Compiler, full_context: PromptContext) -> None:
    context = full_context.to_dict()
    claude = replay(script(SONNET, context=context), compiler=builtins)
    assert claude.rules and all(r.startswith("Bedrock: explicit cachePoint") for r in claude.rules)
    first, *rest = claude.requests
    assert first.cache_write > 0 and first.cache_read == 0 and first.markers == 4
    assert all(r.cache_read >= first.cache_write for r in rest)  # read back, as Anthropic's
    nova = replay(script(NOVA, context=context), compiler=builtins)
    assert nova.requests[1].cache_read > 0
    llama = replay(script(LLAMA, context=context), compiler=builtins)
    assert [(r.cache_read, r.cache_write, r.markers) for r in llama.requests][:3] == \
        [(0, 0, 0)] * 3  # no marker anywhere: Bedrock would refuse one for Llama
