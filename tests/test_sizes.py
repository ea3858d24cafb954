"""Adversarial sizes: huge or deeply nested inputs compile without recursion errors.

How the cost grows with size is measured in benchmarks/bench.py (the scaling table); these tests
only check that each input is handled correctly and completely.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc import Compiler, ContextError, PromptContext, ProviderInfo
from promptc._base.frozen import dumps_json, freeze

GPT = ProviderInfo("openai", "gpt-4.1", native_tools=False)  # generic with text tools
SONNET = ProviderInfo("anthropic", "claude-sonnet-4-5")


def nested_schema(depth: int, tag: str = "") -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "description": tag}
    node = schema
    for _ in range(depth):
        node["properties"] = {"x": {"type": "object"}}
        node = node["properties"]["x"]
    return schema


def test_schema_nested_500_deep_renders_in_text_and_native(builtins: Compiler) -> None:
    ctx = PromptContext.from_dict({"mcp_servers": [{"name": "deep", "tools": [
        {"name": "t", "description": "deep", "input_schema": nested_schema(500)}]}]})
    again = PromptContext.from_dict({"mcp_servers": [{"name": "deep", "tools": [
        {"name": "t", "description": "deep", "input_schema": nested_schema(500)}]}]})
    text = builtins.compile(GPT, ctx, strict=True, dynamic="system")
    # one line per parameter: `x` on its line, its own properties as minified JSON after it
    assert '- x (object; properties {"x":{"type":"object","properties":{' in text.text
    assert text.text.count('"properties":{') == 498  # with the two levels above: 500
    assert len(text.text) < 200_000  # written on one line: linear in depth, not quadratic
    assert builtins.compile(GPT, again, strict=True, dynamic="system").text == text.text  # equal, deep compare
    native = builtins.compile(SONNET, ctx, strict=True, dynamic="system")
    [fn] = [f for f in native.tools.anthropic() if f["name"] == "mcp__deep__t"]
    depth, node = 0, fn["input_schema"]
    while "properties" in node:
        node, depth = node["properties"]["x"], depth + 1
    assert depth == 500
    assert native.to_anthropic()["system"]


@settings(deadline=None)
@given(st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5),
                              st.floats(allow_nan=False, allow_infinity=False)),
                    lambda inner: st.lists(inner, max_size=3) |
                    st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=20))
def test_iterative_json_matches_the_standard_encoder(value: Any) -> None:
    from promptc._base.frozen import _dumps_iterative
    assert _dumps_iterative(value, 2) == json.dumps(value, indent=2, ensure_ascii=False)
    assert _dumps_iterative(value, None) == json.dumps(value, ensure_ascii=False)
    assert _dumps_iterative(value, None, (",", ":")) == json.dumps(
        value, ensure_ascii=False, separators=(",", ":"))  # minified, as MCP schemas are shown
    assert freeze(value) == freeze(value) or value != value  # (NaN is never equal)


@pytest.mark.scale
def test_equality_tells_deep_structures_apart(scale: int) -> None:
    depth = 1500 * scale  # past the recursion limit (1000)
    a, b = freeze(nested_schema(depth, "a")), freeze(nested_schema(depth, "b"))
    assert a != b and a == freeze(nested_schema(depth, "a"))
    assert hash(a) == hash(freeze(nested_schema(depth, "a")))
    assert dumps_json(nested_schema(depth), indent=None).count("properties") == depth


@pytest.mark.scale
def test_large_inputs_are_complete(builtins: Compiler, scale: int) -> None:
    n = 1000 * scale
    big_rules = "Keep functions short.\n" * (5 * n)  # ~100 kB, ~1 MB with --full-scale
    eq_line = "=" * (10 * n)
    blanks = "start" + "\n" * (10 * n) + "end"
    ctx = PromptContext(rules=[{"name": "big", "text": big_rules},
                               {"name": "eq", "text": eq_line},
                               {"name": "blank", "text": blanks}],
                        mcp_servers=[{"name": "many", "tools": [
                            {"name": f"tool_{i}", "description": f"Tool {i}."}
                            for i in range(n)]}],
                        skills=[{"name": f"skill-{i}", "description": "A skill."}
                                for i in range(n)])
    out = builtins.compile(GPT, ctx, strict=True, dynamic="system")
    for text in (big_rules.rstrip("\n"), eq_line, blanks):
        assert text in out.text
    assert out.text.count("tool_") >= n and f"skill-{n - 1}" in out.text
    native = builtins.compile(SONNET, ctx, strict=True, dynamic="system")
    assert len(native.tools.names) >= n
    assert len(set(native.tools.names)) == len(native.tools.names)


@pytest.mark.scale
def test_values_nested_thousands_deep_are_handled(builtins: Compiler, scale: int) -> None:
    """Runtime values of any depth load, key, compile and write back; a runtime value that is
    no text is reported, never a RecursionError (a feature is true or false: a deep one is a
    ContextError, never a RecursionError either)."""
    deep: list[Any] = []
    node = deep
    for _ in range(2000 * scale):  # past the recursion limit (1000); 20,000 with --full-scale
        node.append([])
        node = node[0]
    with pytest.raises(ContextError):
        PromptContext.from_dict({"features": {"browser": deep}})
    data = {"runtime": {"objective": deep}, "date": "2026-01-01"}
    ctx = PromptContext.from_dict(data)
    assert PromptContext.from_dict(ctx.to_dict()) == ctx and hash(ctx)
    out = builtins.compile(GPT, data)
    assert [d.code for d in out.diagnostics] == ["input-invalid"]
    assert builtins.compile(GPT, ctx).text == out.text
