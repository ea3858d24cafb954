"""Cache classes, blocks, fingerprints and the provider adapters."""

from __future__ import annotations

import json

import attrs
import pytest

from promptc import Compiler, ProviderInfo, count_tokens
from promptc._cli import main

from .conftest import CONTEXTS, load_context

SONNET = ProviderInfo("anthropic", "claude-sonnet-4-5")
TEXT_VARIANTS = [("generic", ProviderInfo("openai", "gpt-4.1")),
                 ("next-gen", ProviderInfo("anthropic", "claude-sonnet-4-5",
                                           native_tools=False)),
                 ("glm", ProviderInfo("zai", "glm-4.6")),
                 ("compact", ProviderInfo("ollama", "qwen2.5-coder:7b"))]


def test_blocks_rebuild_the_text_in_cache_order(builtins: Compiler) -> None:
    for vid in builtins.registry.variants:
        out = builtins.compile(SONNET, load_context("full"), variant=vid)
        assert "".join(b.text for b in out.blocks) == out.text
        order = [b.cache for b in out.blocks]
        assert order == sorted(order, key=["static", "session", "request"].index)
        assert order[0] == "static" and order[-1] == "request"


@pytest.mark.parametrize(("vid", "provider"), TEXT_VARIANTS, ids=[v for v, _ in TEXT_VARIANTS])
def test_text_variants_share_a_long_static_prefix_across_sessions(
        builtins: Compiler, vid: str, provider: ProviderInfo) -> None:
    a = builtins.compile(provider, load_context("full"), variant=vid)
    b = builtins.compile(provider, attrs.evolve(load_context("full"), cwd="/other/place",
                                                date="2030-06-30"), variant=vid)
    assert a.text != b.text
    assert a.static_prefix == b.static_prefix
    assert a.fingerprints["static"] == b.fingerprints["static"]
    assert a.fingerprints["full"] != b.fingerprints["full"]
    assert count_tokens(a.static_prefix) >= 1024


def test_anthropic_payload_breakpoints(builtins: Compiler) -> None:
    out = builtins.compile(SONNET, load_context("full"))
    payload = out.to_anthropic()
    marks = [b for b in payload["system"] if "cache_control" in b]
    assert 1 <= len(marks) <= 2
    assert "".join(b["text"] for b in payload["system"]) == out.text
    assert payload["tools"] == out.tools.anthropic()
    for n in range(0, 5):
        p = out.to_anthropic(breakpoints=n)
        assert sum("cache_control" in b for b in p["system"]) <= min(n, 4)
    with pytest.raises(ValueError):
        out.to_anthropic(breakpoints=5)


def test_no_breakpoint_below_the_models_minimum(builtins: Compiler) -> None:
    out = builtins.compile(SONNET, load_context("minimal"), variant="compact")
    small = out.to_anthropic(cache_min_tokens=10**6)
    assert not any("cache_control" in b for b in small["system"])
    opus = builtins.compile(ProviderInfo("anthropic", "claude-opus-4-5"), load_context("full"))
    tools_tokens = count_tokens(json.dumps(opus.tools.anthropic(), ensure_ascii=False))
    prefix = tools_tokens
    for block in opus.to_anthropic(breakpoints=4)["system"]:
        prefix += count_tokens(block["text"])
        if "cache_control" in block:
            assert prefix >= 4096  # Opus 4.5's minimum cacheable prefix


def test_openai_and_gemini_payloads(builtins: Compiler) -> None:
    gpt = builtins.compile(ProviderInfo("openai", "gpt-5"), load_context("full"))
    chat = gpt.to_openai()
    assert chat["messages"] == [{"role": "system", "content": gpt.text}]
    assert chat["tools"] == gpt.tools.openai()
    assert chat["prompt_cache_key"].startswith("promptc-") and len(chat["prompt_cache_key"]) == 40
    resp = gpt.to_openai(api="responses")
    assert resp["instructions"] == gpt.text and resp["tools"][0]["type"] == "function"
    assert "function" not in resp["tools"][0]
    gem = builtins.compile(ProviderInfo("google", "gemini-3-pro-preview"), load_context("full"))
    g = gem.to_gemini()
    assert g["system_instruction"]["parts"][0]["text"] == gem.text
    assert g["tools"][0]["function_declarations"]
    text = builtins.compile(ProviderInfo("openai", "gpt-4.1"), load_context("full")).to_openai()
    assert "tools" not in text  # text variants carry their tools in the prompt


def test_render_formats(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["render", "--builtins-only", "--context", str(CONTEXTS / "full.json")]
    assert main([*base, "--provider", "anthropic", "--model", "claude-sonnet-4-5",
                 "--format", "anthropic", "--breakpoints", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sum("cache_control" in b for b in data["system"]) == 1
    assert main([*base, "--provider", "openai", "--model", "gpt-5", "--format", "openai"]) == 0
    assert json.loads(capsys.readouterr().out)["prompt_cache_key"].startswith("promptc-")
    assert main([*base, "--provider", "google", "--model", "gemini-2.5-pro",
                 "--format", "gemini"]) == 0
    assert "system_instruction" in json.loads(capsys.readouterr().out)
    assert main([*base, "--provider", "anthropic", "--model", "claude-sonnet-4-5",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("variant", "text", "sections", "tokens", "dropped", "fingerprints",
                "diagnostics"):
        assert key in data
    assert set(data["variant"]) >= {"id", "family", "source"}
    assert set(data["sections"][0]) >= {"id", "chars", "tokens", "cache"}
    assert set(data["tokens"]) == {"total", "encoding", "estimated"}
    assert set(data["fingerprints"]) == {"static", "full"}


def test_the_request_block_can_travel_with_the_user_message(builtins: Compiler) -> None:
    out = builtins.compile(SONNET, load_context("full"))
    tail = out.request_text
    assert "2026-01-15" in tail and out.text.endswith(tail)
    a = out.to_anthropic(include_request=False)
    assert "".join(b["text"] for b in a["system"]) + tail == out.text
    later = builtins.compile(SONNET, attrs.evolve(load_context("full"), date="2026-01-16"))
    assert later.to_anthropic(include_request=False) == a  # the date no longer breaks the cache
    o = out.to_openai(include_request=False)
    assert o["messages"][0]["content"] == out.text[: -len(tail)].rstrip("\n")
    assert out.to_gemini(include_request=False)["system_instruction"]["parts"][0]["text"] == \
        o["messages"][0]["content"]


def test_cache_key_follows_static_prefix_and_tools(builtins: Compiler) -> None:
    gpt = ProviderInfo("openai", "gpt-5")
    a = builtins.compile(gpt, load_context("full")).to_openai()["prompt_cache_key"]
    b = builtins.compile(gpt, attrs.evolve(load_context("full"), cwd="/x",
                                           date="2027-01-01")).to_openai()["prompt_cache_key"]
    c = builtins.compile(gpt, load_context("no_browser")).to_openai()["prompt_cache_key"]
    assert a == b  # same static prefix, same tools
    assert a != c  # the tool list differs
