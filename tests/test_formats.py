"""The format table (promptc/_model/formats.py) is the one home of a provider's wire format:
every stage's per-format table covers every format in it, and a table that lacks one is named.
Each format's own declarations work end to end: its tool entries, its payload, its first
message, its cache markers, a call in its shape read and answered in kind."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from promptc import CallError, CompiledPrompt, Compiler, PromptContext, ProviderInfo, ToolCall
from promptc._model.formats import (DOORS, FORMAT_IDS, FORMATS, TOOL_FORMS, WIRES, door_format,
                                    format_named, provider_format)

ROOT = Path(__file__).resolve().parent.parent
ARGS = {"path": ".", "recursive": True}

# One call of list_files in each format, as its SDK (or its JSON) hands it out, and the
# answer promptc gives for the output "a.py".
CALLS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "anthropic": ({"type": "tool_use", "id": "t1", "name": "list_files", "input": ARGS},
                  {"type": "tool_result", "tool_use_id": "t1", "content": "a.py"}),
    "openai": ({"id": "t1", "type": "function",
                "function": {"name": "list_files", "arguments": json.dumps(ARGS)}},
               {"role": "tool", "tool_call_id": "t1", "content": "a.py"}),
    "openai-responses": ({"type": "function_call", "call_id": "t1", "name": "list_files",
                          "arguments": json.dumps(ARGS)},
                         {"type": "function_call_output", "call_id": "t1", "output": "a.py"}),
    "gemini": ({"functionCall": {"name": "list_files", "args": ARGS, "id": "t1"}},
               {"functionResponse": {"name": "list_files", "response": {"output": "a.py"},
                                     "id": "t1"}}),
    "bedrock": ({"toolUse": {"toolUseId": "t1", "name": "list_files", "input": ARGS}},
                {"toolResult": {"toolUseId": "t1", "content": [{"text": "a.py"}]}}),
}


def _payload_builders() -> Iterable[str]:
    from promptc._emit.payloads import PAYLOADS
    return PAYLOADS


def _prompt_methods() -> Iterable[str]:
    return [f.id for f in FORMATS if callable(getattr(CompiledPrompt, f"to_{f.door}", None))]


def _cli_choices(command: str) -> Iterable[str]:
    from promptc._cli.main import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices and command in a.choices)
    formats = next(a for a in sub.choices[command]._actions if a.dest == "format")
    return [f.id for f in FORMATS if f.door in formats.choices]


def _serve_choices(method: str) -> Iterable[str]:
    from promptc._cli import serve_methods
    choices = getattr(serve_methods, method)["format"].choices
    return [f.id for f in FORMATS if f.door in choices]


def _snapshot_formats() -> Iterable[str]:
    from promptc._review.snapshot import TOOL_FORMATS
    return [f.id for f in FORMATS if f.door in TOOL_FORMATS]


def _details_messages() -> Iterable[str]:
    from promptc._emit.details import FORMATS as MESSAGES
    return MESSAGES


def _tool_formats() -> Iterable[str]:
    from promptc._emit.entries import FORMATS as FORMS
    return [f.id for f in FORMATS if all(t.id in FORMS for t in f.forms)]


def _api_docs() -> Iterable[str]:
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    return [f.id for f in FORMATS if f"to_{f.door}(" in text]


# Every table a stage keeps per format, by where it lives.
TABLES: dict[str, Callable[[], Iterable[str]]] = {
    "promptc._emit.payloads.PAYLOADS": _payload_builders,
    "promptc._emit.details.FORMATS": _details_messages,
    "promptc._emit.entries.FORMATS": _tool_formats,
    "CompiledPrompt.to_<format>": _prompt_methods,
    "promptc render --format": lambda: _cli_choices("render"),
    "promptc tools --format": lambda: _cli_choices("tools"),
    "serve compile's format": lambda: _serve_choices("COMPILE"),
    "serve tools' format": lambda: _serve_choices("TOOLS"),
    "a snapshot matrix's tools": _snapshot_formats,
    "docs/api.md": _api_docs,
    "tests/test_formats.py CALLS": lambda: CALLS,
}


@pytest.mark.parametrize("table", sorted(TABLES))
def test_every_table_has_every_format(table: str) -> None:
    missing = [f for f in FORMAT_IDS if f not in set(TABLES[table]())]
    assert not missing, f"{table} lacks the format(s) {missing}"


def test_ids_spellings_and_doors_are_each_one_of_a_kind() -> None:
    assert len(set(FORMAT_IDS)) == len(FORMAT_IDS)
    assert len(set(WIRES)) == len(WIRES) and len(TOOL_FORMS) == sum(len(f.forms) for f in FORMATS)
    assert set(DOORS) == {f.door for f in FORMATS}
    for door in DOORS:  # a door with two formats chooses by api, and names both
        found = [f for f in FORMATS if f.door == door]
        assert len(found) == 1 or len({f.api for f in found}) == len(found) > 1
    with pytest.raises(ValueError, match="unknown format 'nope'; known: anthropic"):
        format_named("nope")


@pytest.fixture(scope="module")
def prompts(builtins: Compiler, full_context: PromptContext) -> dict[str, Any]:
    """A native prompt for a model of each format's own provider (OpenAI's for the two
    OpenAI formats)."""
    models = {"anthropic": ProviderInfo("anthropic", "claude-sonnet-4-5"),
              "openai": ProviderInfo("openai", "gpt-5"),
              "openai-responses": ProviderInfo("openai", "gpt-5", responses_only=True),
              "gemini": ProviderInfo("gemini", "gemini-2.5-pro"),
              "bedrock": ProviderInfo("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")}
    assert set(models) == set(FORMAT_IDS), "a format without a model here"
    return {fid: builtins.compile(info, full_context) for fid, info in models.items()}


@pytest.mark.parametrize("fid", FORMAT_IDS)
def test_each_format_end_to_end(prompts: dict[str, Any], fid: str) -> None:
    """The format's payload holds its tools where it says, its first message opens the
    conversation, its markers stay within its limit; a call in its shape is read and
    answered in kind (a refused one too)."""
    from promptc._emit.payloads import PAYLOADS, PayloadOptions, payload
    from promptc._session.wire import prompt_wire
    fmt, prompt = format_named(fid), prompts[fid]
    assert door_format(fmt.door, prompt.provider) is fmt
    if fmt.providers:
        assert provider_format(prompt.provider) is fmt
    sent = PAYLOADS[fid](prompt, PayloadOptions(breakpoints=fmt.max_markers), None)
    assert sent == payload(prompt, fmt.door, PayloadOptions(breakpoints=fmt.max_markers,
                                                            openai_api=fmt.api or None))
    tools: Any = sent
    for key in fmt.tools_at:
        tools = tools[key]
    assert tools == prompt.tools.definitions(fmt.forms[0].id) or fmt.marker
    assert fmt.system in sent
    assert sent[fmt.conversation][-1] == fmt.message(prompt.message, prompt.message_cut) or \
        fmt.marker  # a marked format marks its first message
    if fmt.marker is not None:
        assert 0 < fmt.marker.count(sent[fmt.conversation]) + \
            sum(m for _b, m in fmt.marker.read(sent[fmt.system])) <= fmt.max_markers
    wire = prompt_wire(prompt, fid)
    assert any(p.kind == "tools" for p in wire.head) and wire.message
    assert any(p.marker for p in wire.head) == (fmt.marker is not None)
    call, answer = CALLS[fid]
    checked = prompt.tools.check(call)
    assert isinstance(checked, ToolCall), getattr(checked, "message", checked)
    assert (checked.name, checked.arguments) == ("list_files", ARGS)
    assert checked.tool_result("a.py") == answer
    refused = prompt.tools.check(json.loads(json.dumps(call).replace("list_files", "nope")))
    assert isinstance(refused, CallError) and refused.code == "unknown-tool"
    assert refused.wire == checked.wire and refused.message in json.dumps(refused.tool_result())
    for form in fmt.forms:  # every form's entries, each naming its tool
        entries = json.dumps(prompt.tools.definitions(form.id))
        assert all(f'"{name}"' in entries for name in prompt.tools.names)


def test_an_unknown_shape_names_every_format() -> None:
    from promptc._calls.call_objects import _EXPECTED
    for fmt in FORMATS:
        assert fmt.calls_as in _EXPECTED
    assert re.search(r"as JSON$", _EXPECTED)


def test_where_roles_must_alternate_promptcs_messages_join_the_users() -> None:
    """A format whose roles alternate (`Format.alternates`) gets promptc's message inside the
    user message beside it: the first details message opens it, an update closes it; a
    message of another role, or a plain string, is never joined."""
    from promptc._emit.details import compose
    mine = {"role": "user", "content": [{"text": "details"}]}
    theirs = [{"role": "user", "content": [{"text": "ask"}]}]
    assert compose(mine, None, theirs, False, join=True) == [
        {"role": "user", "content": [{"text": "details"}, {"text": "ask"}]}]
    assert compose(None, mine, theirs, True, join=True) == [
        {"role": "user", "content": [{"text": "ask"}, {"text": "details"}]}]
    assert compose(mine, None, theirs, False) == [mine, *theirs]  # the others keep it apart
    reply = [*theirs, {"role": "assistant", "content": [{"text": "ok"}]}]
    assert compose(None, mine, reply, True, join=True) == [*reply, mine]
    plain = [{"role": "user", "content": "ask"}]
    assert compose(mine, None, plain, False, join=True) == [mine, *plain]
    assert theirs == [{"role": "user", "content": [{"text": "ask"}]}]  # theirs unchanged
