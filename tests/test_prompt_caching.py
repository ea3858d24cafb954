"""Prompt caching at the providers: cache classes, blocks, fingerprints, and the provider
adapters' cache markers and keys. (That the compiler's own memos never show is another concern:
test_cache_equivalence.py.)"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest

from promptc import Compiler, ProviderInfo, count_tokens
from promptc._cli import main
from promptc.testing import make_context

from .conftest import CONTEXTS

SONNET = ProviderInfo("anthropic", "claude-sonnet-4-5")
TEXT_VARIANTS = [("generic", ProviderInfo("openai", "gpt-4.1")),
                 ("next-gen", ProviderInfo("anthropic", "claude-sonnet-4-5",
                                           native_tools=False)),
                 ("glm", ProviderInfo("zai", "glm-4.6")),
                 ("compact", ProviderInfo("ollama", "qwen2.5-coder:7b"))]


def test_blocks_rebuild_the_text_in_cache_order(builtins: Compiler) -> None:
    for vid in builtins.registry.variants:
        out = builtins.compile(SONNET, make_context("full"), variant=vid)
        assert "".join(b.text for b in out.blocks) == out.text
        order = [b.cache for b in out.blocks]
        assert order == sorted(order, key=["static", "session", "request"].index)
        assert order[0] == "static" and order[-1] == "request"


@pytest.mark.parametrize(("vid", "provider"), TEXT_VARIANTS, ids=[v for v, _ in TEXT_VARIANTS])
def test_text_variants_share_a_long_static_prefix_across_sessions(
        builtins: Compiler, vid: str, provider: ProviderInfo) -> None:
    a = builtins.compile(provider, make_context("full"), variant=vid)
    b = builtins.compile(provider, attrs.evolve(make_context("full"), cwd="/other/place",
                                                date="2030-06-30"), variant=vid)
    assert a.text != b.text
    assert a.static_prefix == b.static_prefix
    assert a.fingerprints["static"] == b.fingerprints["static"]
    assert a.fingerprints["full"] != b.fingerprints["full"]
    assert count_tokens(a.static_prefix) >= 1024


def marks(payload: dict[str, Any]) -> list[str]:
    """Where the cache markers are, in Anthropic's cache order (tools, then system)."""
    out = [f"tool:{t['name']}" for t in payload.get("tools", []) if "cache_control" in t]
    out += [f"system:{i}" for i, b in enumerate(payload["system"]) if "cache_control" in b]
    return out


def test_anthropic_payload_breakpoints(builtins: Compiler) -> None:
    out = builtins.compile(SONNET, make_context("full"), dynamic="system")
    payload = out.to_anthropic()
    assert "".join(b["text"] for b in payload["system"]) == out.text
    tools = out.tools.anthropic()
    stable = out.tools.stable
    assert 0 < stable < len(tools)  # skills and MCP tools follow the built-in block
    # default 2: the end of the built-in tools, the end of the static block
    assert marks(payload) == [f"tool:{tools[stable - 1]['name']}", "system:0"]
    for tool, sent in zip(tools, payload["tools"]):
        sent.pop("cache_control", None)
        assert sent == tool
    # 1-4 place exactly that many (each prefix is above Sonnet's 1,024-token minimum)
    assert [b.cache for b in out.blocks] == ["static", "session", "request"]
    expected = [f"tool:{tools[stable - 1]['name']}", "system:0", "system:1", "system:2"]
    for n in range(0, 5):
        assert marks(out.to_anthropic(breakpoints=n)) == expected[:n]
    assert marks(out.to_anthropic(breakpoints=4, include_request=False)) == expected[:3]
    with pytest.raises(ValueError):
        out.to_anthropic(breakpoints=5)
    # no per-session tools: the static marker covers the tools, so it is the first place
    bare = builtins.compile(SONNET, make_context("minimal"), dynamic="system")
    assert bare.tools.stable == len(bare.tools.names)
    places = [f"system:{i}" for i in range(len(bare.blocks))]
    assert marks(bare.to_anthropic(breakpoints=4)) == places


def test_a_fifth_cache_marker_is_refused_never_sent(builtins: Compiler) -> None:
    """The client's markers on the conversation count against Anthropic's 4: given as a
    number or as the messages themselves (counted), a request over the limit is an error."""
    from promptc import CacheMarkerError
    out = builtins.compile(SONNET, make_context("full"), dynamic="system")
    marked = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
    conversation = [{"role": "user", "content": [marked]},
                    {"role": "assistant", "content": "plain"},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t",
                                                  "content": [marked]}]}]
    assert len(marks(out.to_anthropic(breakpoints=2, conversation_markers=conversation))) == 2
    assert len(marks(out.to_anthropic(breakpoints=3, conversation_markers=1))) == 3
    with pytest.raises(CacheMarkerError, match=r"5 cache markers \(3 of promptc's and 2 on "
                                               r"the conversation\).*breakpoints=2 or fewer"):
        out.to_anthropic(breakpoints=3, conversation_markers=conversation)
    with pytest.raises(ValueError):  # it is a ValueError too
        out.to_anthropic(breakpoints=4, conversation_markers=1)
    # markers promptc does not place (a prefix below the minimum) do not count
    assert marks(out.to_anthropic(breakpoints=4, cache_min_tokens=10**6,
                                  conversation_markers=4)) == []


def test_sessions_share_the_request_bytes_up_to_the_static_breakpoint(
        builtins: Compiler) -> None:
    """Two sessions with a different cwd, rules and skills: Anthropic's cache prefix (tools,
    then system) is byte-identical up to the first marker; the static block and the built-in
    tools are identical; OpenAI gets the same built-in tools, static prefix and cache key."""
    one = make_context("full")
    two = attrs.evolve(one, cwd="/elsewhere/repo", rules=[{"name": "mine", "text": "Tabs."}],
                       skills=[{"name": "deploy", "description": "Ship it",
                                "references": ["ops/deploy.md"]}])
    a, b = (builtins.compile(SONNET, ctx, dynamic="system").to_anthropic() for ctx in (one, two))
    assert a != b

    def cache_prefix(payload: dict[str, Any]) -> bytes:
        items = [*payload.get("tools", []), *payload["system"]]
        upto = next(i for i, item in enumerate(items) if "cache_control" in item)
        return json.dumps(items[:upto + 1], sort_keys=True).encode()

    assert cache_prefix(a) == cache_prefix(b)
    assert a["system"][0] == b["system"][0] and "cache_control" in a["system"][0]
    text = ProviderInfo("anthropic", "claude-sonnet-4-5", native_tools=False)  # next-gen
    c, d = (builtins.compile(text, ctx, dynamic="system").to_anthropic() for ctx in (one, two))
    assert "tools" not in c and marks(c)[0] == "system:0"
    assert cache_prefix(c) == cache_prefix(d)  # the static block, marked
    gpt = ProviderInfo("openai", "gpt-5")
    x, y = (builtins.compile(gpt, ctx, dynamic="system") for ctx in (one, two))
    ox, oy = x.to_openai(), y.to_openai()
    assert ox["tools"][:x.tools.stable] == oy["tools"][:y.tools.stable]
    assert ox["tools"] != oy["tools"]  # the skill enum differs, after the built-in block
    assert x.static_prefix == y.static_prefix
    assert ox["messages"][0]["content"].startswith(x.static_prefix)
    assert ox["prompt_cache_key"] == oy["prompt_cache_key"]
    assert x.to_openai("responses")["prompt_cache_key"] == \
        y.to_openai("responses")["prompt_cache_key"] != ox["prompt_cache_key"]


def test_no_breakpoint_below_the_models_minimum(builtins: Compiler) -> None:
    out = builtins.compile(SONNET, make_context("minimal"), variant="compact")
    small = out.to_anthropic(cache_min_tokens=10**6)
    assert not any("cache_control" in b for b in small["system"])
    opus = builtins.compile(ProviderInfo("anthropic", "claude-opus-4-5"), make_context("full"))
    tools_tokens = count_tokens(json.dumps(opus.tools.anthropic(), ensure_ascii=False))
    prefix = tools_tokens
    for block in opus.to_anthropic(breakpoints=4)["system"]:
        prefix += count_tokens(block["text"])
        if "cache_control" in block:
            assert prefix >= 4096  # Opus 4.5's minimum cacheable prefix


def test_openai_and_gemini_payloads(builtins: Compiler) -> None:
    gpt = builtins.compile(ProviderInfo("openai", "gpt-5"), make_context("full"), dynamic="system")
    chat = gpt.to_openai()
    assert chat["messages"] == [{"role": "system", "content": gpt.text}]
    assert chat["tools"] == gpt.tools.openai()
    assert chat["prompt_cache_key"].startswith("promptc-") and len(chat["prompt_cache_key"]) == 40
    resp = gpt.to_openai(api="responses")
    assert resp["instructions"] == gpt.text and resp["tools"][0]["type"] == "function"
    assert "function" not in resp["tools"][0]
    gem = builtins.compile(ProviderInfo("google", "gemini-3-pro-preview"), make_context("full"), dynamic="system")
    g = gem.to_gemini()
    assert g["system_instruction"]["parts"][0]["text"] == gem.text
    assert g["tools"][0]["function_declarations"]
    text = builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False),
                            make_context("full"), dynamic="system").to_openai()
    assert "tools" not in text  # text variants carry their tools in the prompt
    native = builtins.compile(ProviderInfo("openai", "gpt-4.1"), make_context("full"), dynamic="system")
    assert native.variant.id == "generic" and native.to_openai()["tools"]


@pytest.mark.parametrize(("provider", "model", "shape"), [
    ("openai", "gpt-5.1-codex", "instructions"),     # the table: LiteLLM's "mode": "responses"
    ("azure", "gpt-5.1-codex-max", "instructions"),
    ("openai", "gpt-5.9-codex", "instructions"),     # not in the table: the family says so
    ("openai", "gpt-5", "messages"), ("openai", "gpt-4.1", "messages"),
])
def test_openai_payloads_default_to_the_api_the_model_speaks(
        builtins: Compiler, capsys: pytest.CaptureFixture[str], provider: str, model: str,
        shape: str) -> None:
    """Issue 23: a Responses-only model (model data, not a name list) gets the Responses shape
    unless the caller names the API; `render --format openai` follows the same default."""
    prompt = builtins.compile(ProviderInfo(provider, model), make_context("full"))
    assert shape in prompt.to_openai()
    assert "messages" in prompt.to_openai("chat") and "instructions" in \
        prompt.to_openai("responses")
    code = main(["render", "--builtins-only", "--provider", provider, "--model", model,
                 "--date", "2026-01-01", "--format", "openai"])
    assert code == 0 and shape in json.loads(capsys.readouterr().out)
    code = main(["render", "--builtins-only", "--provider", provider, "--model", model,
                 "--date", "2026-01-01", "--format", "openai", "--openai-api", "chat"])
    assert code == 0 and "messages" in json.loads(capsys.readouterr().out)
    # the tools alone follow the same default: Responses' flat shape has no "function" member
    responses = shape == "instructions"
    assert all(("function" not in t) == responses for t in prompt.tools.openai())
    code = main(["tools", "--builtins-only", "--provider", provider, "--model", model,
                 "--format", "openai"])
    assert code == 0
    assert all(("function" not in t) == responses for t in json.loads(capsys.readouterr().out))


def test_render_formats(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["render", "--builtins-only", "--context", str(CONTEXTS / "full.json")]
    assert main([*base, "--provider", "anthropic", "--model", "claude-sonnet-4-5",
                 "--format", "anthropic", "--breakpoints", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(marks(data)) == 1
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
    assert set(data["tokens"]) >= {"total", "encoding", "estimated", "tools", "with_tools"}
    assert set(data["fingerprints"]) == {"static", "full"}


def test_the_request_block_can_travel_with_the_user_message(builtins: Compiler) -> None:
    out = builtins.compile(SONNET, make_context("full"), dynamic="system")
    tail = out.request_text
    assert "2026-01-15" in tail and out.text.endswith(tail)
    a = out.to_anthropic(include_request=False)
    assert "".join(b["text"] for b in a["system"]) + tail == out.text
    later = builtins.compile(SONNET, attrs.evolve(make_context("full"), date="2026-01-16"), dynamic="system")
    assert later.to_anthropic(include_request=False) == a  # the date no longer breaks the cache
    o = out.to_openai(include_request=False)
    assert o["messages"][0]["content"] == out.text[: -len(tail)].rstrip("\n")
    assert out.to_gemini(include_request=False)["system_instruction"]["parts"][0]["text"] == \
        o["messages"][0]["content"]


def test_cache_key_follows_static_prefix_and_tools(builtins: Compiler) -> None:
    gpt = ProviderInfo("openai", "gpt-5")
    a = builtins.compile(gpt, make_context("full")).to_openai()["prompt_cache_key"]
    b = builtins.compile(gpt, attrs.evolve(make_context("full"), cwd="/x",
                                           date="2027-01-01")).to_openai()["prompt_cache_key"]
    c = builtins.compile(gpt, make_context("no_browser")).to_openai()["prompt_cache_key"]
    d = builtins.compile(gpt, make_context("no_rules_skills")).to_openai()["prompt_cache_key"]
    assert a == b  # same static prefix, same tools
    assert a != c  # the built-in tool block differs (no browser_action)
    assert a == d  # only per-session tools differ: they come after what the key covers
    loose = builtins.compile(gpt, make_context("full")).to_openai(strict=False)
    assert loose["prompt_cache_key"] != a  # other bytes sent first
