"""Calls in a model's own format are never silence: each is read, or refused, saying how.

The corpus (tests/fixtures/replies/foreign.toml) holds replies in the five families promptc
recognizes — Hermes/Qwen2.5 JSON in `<tool_call>`, Qwen3-Coder's `<function=…>`, GLM-4.5's
`<arg_key>/<arg_value>`, a bare JSON call, Mistral's `[TOOL_CALLS]` — with the slips models make
in them. The policy is the same for all: a readable call is checked like a taught one and run,
with a `foreign-format` warning carrying the same call in the taught form; anything else is an
error whose message shows the taught form.
"""

from __future__ import annotations

import json
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


@pytest.mark.parametrize("number", ["1" * 5000, "Infinity", "-Infinity", "NaN", "1e999"])
def test_a_number_json_cannot_hold_is_refused_in_every_json_format(prompt: CompiledPrompt,
                                                                   number: str) -> None:
    """A bare JSON call is no different from one in <tool_call> or [TOOL_CALLS]: a number out
    of range makes it a call that cannot be read, never prose (the turn would end in silence),
    and the result stays writable as JSON."""
    call = '{"name": "list_files", "arguments": {"path": ".", "recursive": ' + number + '}}'
    for reply in (call, f"\n{call}\n", f"<tool_call>\n{call}\n</tool_call>",
                  f"[TOOL_CALLS][{call}]", f"```json\n{call}\n```"):
        parsed = prompt.tools.parse(reply)
        assert not parsed.calls, reply[:60]
        [error] = parsed.errors
        assert error.code == "foreign-format", error.message
        assert "could not be read (" in error.message and "holds" in error.message
        json.dumps(parsed.to_dict(), allow_nan=False)


def test_a_bare_call_broken_after_its_head_is_refused(prompt: CompiledPrompt) -> None:
    for reply in ('{"name": "read_file", "arguments": {"path": "a.py"}',
                  '[{"name": "read_file", "parameters": {"path": "a.py"}}'):
        [error] = prompt.tools.parse(reply).errors
        assert error.code == "foreign-format" and "is not valid JSON" in error.message


def test_json_with_an_unreadable_number_that_is_not_a_call_is_prose(prompt: CompiledPrompt
                                                                    ) -> None:
    for reply in ('{"name": "Ada", "age": NaN}', '{"name": "x", "size": 1e999}',
                  '{"name": "Ada", "age": 36', '[{"name": "a"}, NaN]'):
        parsed = prompt.tools.parse(reply)
        assert parsed.parts == (reply,) and not parsed.warnings, reply


def test_a_key_given_twice_in_a_json_call_is_a_repeated_parameter(prompt: CompiledPrompt
                                                                  ) -> None:
    """JSON parsers keep the last of two equal keys; the checker reports it instead, as it
    does for a parameter tag given twice."""
    for reply in ('<tool_call>\n{"name": "read_file", "arguments": {"path": "a", "path": "b"}}'
                  '\n</tool_call>',
                  '{"name": "read_file", "arguments": {"path": "a", "path": "b"}}',
                  '[TOOL_CALLS]read_file[ARGS]{"path": "a", "path": "b"}'):
        [error] = prompt.tools.parse(reply).errors
        assert [(p.code, p.parameter) for p in error.problems] == [("duplicate-parameter",
                                                                    "path")], reply


def test_a_marker_with_nothing_after_it_ends_where_the_text_does(prompt: CompiledPrompt
                                                                 ) -> None:
    """`[TOOL_CALLS]` at the end of a reasoning block: the error's span is its text, not one
    character past it (the JSON parser reports its failure after the end)."""
    reply = "Plan [TOOL_CALLS]</think>\nDone."
    [error] = prompt.tools.parse(reply).errors
    assert error.raw == "[TOOL_CALLS]" == reply[error.start:error.end]


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
                              make_context("full"), dynamic="system")
    good = native.tools.parse('<tool_call>\n{"name": "mcp__github__create_issue", "arguments": '
                              '{"repo": "a/b", "title": "Crash"}}\n</tool_call>')
    assert good.call is not None and (good.call.server, good.call.tool) == ("github",
                                                                            "create_issue")
    bad = native.tools.parse('<tool_call>\n{"name": "mcp__github__create_issue", "arguments": '
                             '{"repo": "a/b"}}\n</tool_call>')
    [error] = bad.errors
    assert isinstance(error, CallError) and error.code == "missing-parameter"
