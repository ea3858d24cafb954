"""Dynamic placement's payloads through the real anthropic, openai and google-genai SDKs, sent
to a local fake server: what goes over the wire is the shared system prompt first, then the
environment details as the first user message, then the client's own text."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from promptc import Compiler, PromptContext, ProviderInfo

from .fakeserver import FakeServer


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    with FakeServer() as s:
        yield s


def test_anthropic(builtins: Compiler, full_context: PromptContext,
                   server: FakeServer) -> None:
    anthropic = pytest.importorskip("anthropic")
    prompt = builtins.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"), full_context,
                              dynamic="message")
    payload = prompt.to_anthropic()
    [first] = payload["messages"]
    first["content"].append({"type": "text", "text": "Add a health check endpoint.",
                             "cache_control": {"type": "ephemeral"}})  # the client's marker
    client = anthropic.Anthropic(api_key="sk-ant-test", base_url=server.url, max_retries=0)
    before = len(server.requests)
    client.messages.create(model="claude-sonnet-4-5", max_tokens=64, system=payload["system"],
                           tools=payload["tools"], messages=payload["messages"])
    body = server.requests[before].body
    assert body["system"] == payload["system"] and body["system"][0]["text"] == prompt.text
    [sent] = body["messages"]
    details, ask = sent["content"][:-1], sent["content"][-1]
    assert sent["role"] == "user" and "".join(b["text"] for b in details) == prompt.message
    assert ask["text"] == "Add a health check endpoint."
    markers = sum("cache_control" in x for x in
                  [*body["tools"], *body["system"], *sent["content"]])
    assert markers <= 4


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_openai(builtins: Compiler, full_context: PromptContext, server: FakeServer,
                api: str) -> None:
    openai = pytest.importorskip("openai")
    prompt = builtins.compile(ProviderInfo("openai", "gpt-5"), full_context, dynamic="message")
    payload = prompt.to_openai(api)  # type: ignore[arg-type]
    client = openai.OpenAI(api_key="sk-test", base_url=server.url + "/v1", max_retries=0)
    before = len(server.requests)
    ask = {"role": "user", "content": "Add a health check endpoint."}
    if api == "chat":
        client.chat.completions.create(model="gpt-5", messages=[*payload["messages"], ask],
                                       tools=payload["tools"],
                                       prompt_cache_key=payload["prompt_cache_key"])
        messages = server.requests[before].body["messages"]
        assert messages[0] == {"role": "system", "content": prompt.text}
    else:
        client.responses.create(model="gpt-5", instructions=payload["instructions"],
                                input=[*payload["input"], ask], tools=payload["tools"],
                                prompt_cache_key=payload["prompt_cache_key"])
        body = server.requests[before].body
        assert body["instructions"] == prompt.text
        messages = body["input"]
    assert messages[-2] == {"role": "user", "content": prompt.message} and messages[-1] == ask


def test_google_genai(builtins: Compiler, full_context: PromptContext,
                      server: FakeServer) -> None:
    genai = pytest.importorskip("google.genai")
    from google.genai import types
    prompt = builtins.compile(ProviderInfo("gemini", "gemini-2.5-pro"), full_context,
                              dynamic="message")
    payload = prompt.to_gemini()
    client = genai.Client(api_key="test", http_options=types.HttpOptions(base_url=server.url))
    contents = [*payload["contents"], {"role": "user", "parts": [
        {"text": "Add a health check endpoint."}]}]
    before = len(server.requests)
    client.models.generate_content(
        model="gemini-2.5-pro", contents=contents, config=types.GenerateContentConfig(
            system_instruction=payload["system_instruction"]["parts"][0]["text"],
            tools=payload["tools"]))
    body = server.requests[before].body
    assert body["systemInstruction"]["parts"][0]["text"] == prompt.text
    assert body["contents"][0] == {"role": "user", "parts": [{"text": prompt.message}]}
    assert body["contents"][1]["parts"][0]["text"] == "Add a health check endpoint."
