"""The default placement's payloads through the real anthropic, openai and google-genai SDKs,
sent to a local fake server, for a session that switches mode and then day: every request
sends the same system prompt and tools (byte for byte, as the SDK serialized them), the
conversation the client kept comes back unchanged, and each change reaches the model as an
update of its own after it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import attrs
import pytest

from promptc import Compiler, PromptContext, ProviderInfo

from .fakeserver import FakeServer

ASK = "Add a health check endpoint."


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    with FakeServer() as s:
        yield s


def session(builtins: Compiler, full_context: PromptContext, provider: ProviderInfo
            ) -> list[Any]:
    """The session's prompts: act on day one, then plan mode, then the next day."""
    plan = attrs.evolve(full_context, mode="plan")
    return [builtins.compile(provider, ctx) for ctx in
            (attrs.evolve(full_context, mode="act"), plan, attrs.evolve(plan, date="2026-01-16"))]


def same_bytes(bodies: list[dict[str, Any]], *keys: str) -> None:
    for key in keys:
        sent = {json.dumps(body[key], ensure_ascii=False) for body in bodies}
        assert len(sent) == 1, key


def check_updates(prompts: list[Any], updates: list[str]) -> None:
    """The second request's update is the mode section alone, the third's the date alone."""
    mode = next(s.text for s in prompts[1].message_sections if s.id == "act_vs_plan_mode")
    assert updates[0] == f"<environment_details>\n{mode}\n</environment_details>"
    assert "2026-01-16" in updates[1] and "# Current mode" not in updates[1]


def test_anthropic(builtins: Compiler, full_context: PromptContext,
                   server: FakeServer) -> None:
    anthropic = pytest.importorskip("anthropic")
    prompts = session(builtins, full_context, ProviderInfo("anthropic", "claude-sonnet-4-5"))
    client = anthropic.Anthropic(api_key="sk-ant-test", base_url=server.url, max_retries=0)
    before = len(server.requests)
    history: list[dict[str, Any]] = [{"role": "user", "content": ASK}]
    previous = None
    for prompt in prompts:
        payload = prompt.to_anthropic(breakpoints=3, previous=previous, messages=history)
        client.messages.create(model="claude-sonnet-4-5", max_tokens=64, **payload)
        history = [*payload["messages"], {"role": "assistant", "content": "OK"},
                   {"role": "user", "content": "Go on."}]
        previous = prompt
    bodies = [r.body for r in server.requests[before:]]
    same_bytes(bodies, "system", "tools")
    assert bodies[0]["system"][0]["text"] == prompts[0].system
    first = bodies[0]["messages"]
    assert "".join(b["text"] for b in first[0]["content"]) == prompts[0].message
    assert first[1] == {"role": "user", "content": ASK}
    for earlier, later in zip(bodies, bodies[1:]):  # what was sent is sent again, unchanged
        assert later["messages"][:len(earlier["messages"])] == earlier["messages"]
    updates = [b["messages"][-1]["content"][0]["text"] for b in bodies[1:]]
    check_updates(prompts, updates)
    markers = sum("cache_control" in x for x in
                  [*bodies[0]["tools"], *bodies[0]["system"], *first[0]["content"]])
    assert markers == 3


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_openai(builtins: Compiler, full_context: PromptContext, server: FakeServer,
                api: str) -> None:
    openai = pytest.importorskip("openai")
    prompts = session(builtins, full_context, ProviderInfo("openai", "gpt-5"))
    client = openai.OpenAI(api_key="sk-test", base_url=server.url + "/v1", max_retries=0)
    before = len(server.requests)
    history: list[dict[str, Any]] = [{"role": "user", "content": ASK}]
    previous = None
    for prompt in prompts:
        payload = prompt.to_openai(api, previous=previous, messages=history)  # type: ignore
        if api == "chat":
            client.chat.completions.create(model="gpt-5", **payload)
            sent = payload["messages"][1:]
        else:
            client.responses.create(model="gpt-5", **payload)
            sent = payload["input"]
        history = [*sent, {"role": "assistant", "content": "OK"},
                   {"role": "user", "content": "Go on."}]
        previous = prompt
    bodies = [r.body for r in server.requests[before:]]
    key = "messages" if api == "chat" else "input"
    same_bytes(bodies, "tools", "prompt_cache_key", *(["instructions"] if api != "chat" else []))
    if api == "chat":
        assert len({json.dumps(b["messages"][0]) for b in bodies}) == 1
        assert bodies[0]["messages"][0] == {"role": "system", "content": prompts[0].system}
    else:
        assert bodies[0]["instructions"] == prompts[0].system
    opening = bodies[0][key][1 if api == "chat" else 0]
    assert opening == {"role": "user", "content": prompts[0].message}
    for earlier, later in zip(bodies, bodies[1:]):
        assert later[key][:len(earlier[key])] == earlier[key]
    check_updates(prompts, [b[key][-1]["content"] for b in bodies[1:]])


def test_google_genai(builtins: Compiler, full_context: PromptContext,
                      server: FakeServer) -> None:
    genai = pytest.importorskip("google.genai")
    from google.genai import types
    prompts = session(builtins, full_context, ProviderInfo("gemini", "gemini-2.5-pro"))
    client = genai.Client(api_key="test", http_options=types.HttpOptions(base_url=server.url))
    before = len(server.requests)
    history: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": ASK}]}]
    previous = None
    for prompt in prompts:
        payload = prompt.to_gemini(previous=previous, messages=history)
        client.models.generate_content(
            model="gemini-2.5-pro", contents=payload["contents"],
            config=types.GenerateContentConfig(
                system_instruction=payload["system_instruction"]["parts"][0]["text"],
                tools=payload["tools"]))
        history = [*payload["contents"], {"role": "model", "parts": [{"text": "OK"}]},
                   {"role": "user", "parts": [{"text": "Go on."}]}]
        previous = prompt
    bodies = [r.body for r in server.requests[before:]]
    same_bytes(bodies, "systemInstruction", "tools")
    assert bodies[0]["systemInstruction"]["parts"][0]["text"] == prompts[0].system
    assert bodies[0]["contents"][0] == {"role": "user", "parts": [{"text": prompts[0].message}]}
    assert bodies[0]["contents"][1]["parts"][0]["text"] == ASK
    for earlier, later in zip(bodies, bodies[1:]):
        assert later["contents"][:len(earlier["contents"])] == earlier["contents"]
    check_updates(prompts, [b["contents"][-1]["parts"][0]["text"] for b in bodies[1:]])
