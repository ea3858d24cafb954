"""Calls in a model's own format are never silence: each is read, or refused, saying how.

The corpus (tests/fixtures/replies/foreign.toml) holds replies in the five families promptc
recognizes — Hermes/Qwen2.5 JSON in `<tool_call>`, Qwen3-Coder's `<function=…>`, GLM-4.5's
`<arg_key>/<arg_value>`, a bare JSON call, Mistral's `[TOOL_CALLS]` — with the slips models make
in them. The policy is the same for all: a readable call is checked like a taught one and run,
with a `foreign-format` warning carrying the same call in the taught form; anything else is an
error whose message shows the taught form.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from promptc import CallError, CompiledPrompt, Compiler, ProviderInfo, ToolCall
from promptc.testing import make_context


CORPUS = tomllib.loads((Path(__file__).parent / "fixtures" / "replies" / "foreign.toml")
                       .read_text(encoding="utf-8"))["case"]
TEXT = ProviderInfo("openai", "gpt-4.1", native_tools=False)


@pytest.fixture(scope="module")
def prompt(builtins: Compiler) -> CompiledPrompt:
    return builtins.compile(TEXT, make_context("full"))


def test_the_corpus_covers_every_family_with_several_cases() -> None:
    families: dict[str, int] = {}
    for case in CORPUS:
        families[case["format"]] = families.get(case["format"], 0) + 1
    assert set(families) == {"hermes", "qwen3-coder", "glm", "json", "mistral"}
    assert min(families.values()) >= 4


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_a_foreign_call_is_read_or_refused(prompt: CompiledPrompt, case: dict[str, Any]
                                           ) -> None:
    parsed = prompt.tools.parse(case["reply"])
    if "error" in case:
        assert not parsed.calls, case["id"]
        [error] = parsed.errors
        assert error.code == case["error"], error.message
        assert error.raw and error.raw in case["reply"]
        if case["error"] == "foreign-format":  # says how calls are written instead
            assert "the tool's name as the outer tag" in error.message
        return
    assert not parsed.errors, [e.message for e in parsed.errors]
    call = parsed.call
    assert isinstance(call, ToolCall)
    assert (call.name, call.arguments) == (case["name"], case["arguments"])
    notes = [w for w in parsed.warnings if w.code == "foreign-format"]
    assert len(notes) == 1 and notes[0].name == case["name"]
    # the suggestion is the same call in the taught form, and reads back as the same call
    assert notes[0].suggestion == prompt.tools.format_call(call.name, call.arguments)
    again = prompt.tools.parse(notes[0].suggestion)
    assert again.call is not None and again.call.arguments == call.arguments
    assert not again.warnings


def test_several_foreign_calls_are_one_call_then_errors(prompt: CompiledPrompt) -> None:
    reply = ('<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>\n'
             '<tool_call>\n{"name": "read_file", "arguments": {"path": "b"}}\n</tool_call>')
    parsed = prompt.tools.parse(reply)
    assert [c.arguments for c in parsed.calls] == [{"path": "a"}]
    [second] = parsed.errors
    assert second.code == "second-call" and second.arguments == {"path": "b"}
    mistral = prompt.tools.parse('[TOOL_CALLS][{"name": "read_file", "arguments": {"path": '
                                 '"a"}}, {"name": "list_files", "arguments": {"path": "."}}]')
    assert [c.name for c in mistral.calls] == ["read_file"]
    assert [(e.name, e.code) for e in mistral.errors] == [("list_files", "second-call")]


def test_json_that_is_not_a_call_is_prose(prompt: CompiledPrompt) -> None:
    for reply in ('{"name": "Ada", "age": 36}', '{"status": "ok"}', "[1, 2, 3]",
                  'The payload is {"name": "read_file", "arguments": {"path": "a"}} here.'):
        parsed = prompt.tools.parse(reply)
        assert parsed.parts == (reply,) and not parsed.warnings, reply


def test_a_bare_mcp_tool_name_points_at_use_mcp_tool(prompt: CompiledPrompt) -> None:
    parsed = prompt.tools.parse('<tool_call>\n{"name": "create_issue", "arguments": '
                                '{"repo": "a/b", "title": "t"}}\n</tool_call>')
    [error] = parsed.errors
    assert error.code == "unknown-tool"
    assert "tool of the MCP server 'github': call it through use_mcp_tool" in error.message


def test_a_foreign_call_to_an_mcp_tool_is_checked_against_its_schema(
        builtins: Compiler) -> None:
    """Native mode, but the server put the model's raw markup in the text (a host without a
    tool-call parser): the call is still read, checked against the MCP schema, and warned."""
    native = builtins.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"),
                              make_context("full"))
    good = native.tools.parse('<tool_call>\n{"name": "mcp__github__create_issue", "arguments": '
                              '{"repo": "a/b", "title": "Crash"}}\n</tool_call>')
    assert good.call is not None and (good.call.server, good.call.tool) == ("github",
                                                                            "create_issue")
    bad = native.tools.parse('<tool_call>\n{"name": "mcp__github__create_issue", "arguments": '
                             '{"repo": "a/b"}}\n</tool_call>')
    [error] = bad.errors
    assert isinstance(error, CallError) and error.code == "missing-parameter"
