"""A request as the simulator sees it is what the adapters send: pieces that rebuild the system
text and the first message exactly, markers where the payload has `cache_control`, the cache
key of `to_openai`."""

from __future__ import annotations

import pytest

from promptc import Compiler, PromptContext, ProviderInfo
from promptc._session.wire import prompt_wire


@pytest.mark.parametrize("breakpoints", [1, 2, 3])
def test_anthropic_pieces_follow_the_payload(builtins: Compiler, full_context: PromptContext,
                                             breakpoints: int) -> None:
    prompt = builtins.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"), full_context, dynamic="system")
    payload = prompt.to_anthropic(breakpoints=breakpoints)
    wire = prompt_wire(prompt, "anthropic", breakpoints)
    system = [p for p in wire.head if p.kind == "system"]
    assert "".join(p.text for p in system) == prompt.text
    assert [p.where for p in system] == [s.id for s in prompt.sections]
    sent = sum("cache_control" in x for x in [*payload.get("tools", []), *payload["system"]])
    assert sum(p.marker for p in wire.head) == sent
    assert all(p.block_end for p in wire.head if p.marker)
    ends = [p.where for p in system if p.block_end]
    assert ends == [b.sections[-1] for b in prompt.blocks]
    tools = [p for p in wire.head if p.kind == "tools"]
    assert [(p.where, p.cache) for p in tools] == [("tools", "static"),
                                                   ("session tools", "session")]
    assert all(p.tokens > 0 for p in wire.head)


def test_openai_and_gemini_carry_the_key_and_no_markers(builtins: Compiler,
                                                        full_context: PromptContext) -> None:
    gpt = builtins.compile(ProviderInfo("openai", "gpt-5"), full_context)
    wire = prompt_wire(gpt, "openai")
    assert wire.cache_key == gpt.to_openai()["prompt_cache_key"] and wire.variant == "gpt-5"
    assert not any(p.marker for p in wire.head)
    gemini = prompt_wire(builtins.compile(ProviderInfo("gemini", "gemini-2.5-pro"),
                                          full_context), "gemini")
    assert gemini.cache_key is None and gemini.head[0].kind == "tools"


def test_dynamic_placement_pieces(builtins: Compiler, full_context: PromptContext) -> None:
    prompt = builtins.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"), full_context,
                              dynamic="message")
    wire = prompt_wire(prompt, "anthropic", 3)
    assert "".join(p.text for p in wire.message) == prompt.message
    assert [p.where for p in wire.message] == [s.id for s in prompt.message_sections]
    assert {p.cache for p in wire.head} == {"static", "session"}  # session tools only
    # the tool catalogue (MCP servers, skills) ends a block of its own, marked by the third
    # of promptc's markers
    assert [(p.where, p.block_end, p.marker) for p in wire.message[:3]] == \
        [("mcp_servers", False, False), ("skills", True, True), ("system_info", False, False)]
    assert not any(p.marker for p in prompt_wire(prompt, "anthropic", 2).message)
    text_mode = builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False),
                                 full_context)
    assert not [p for p in prompt_wire(text_mode, "openai").head if p.kind == "tools"]
