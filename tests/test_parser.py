"""The text tool-call parser: `prompt.tools.parse(text)` reads the calls a text variant teaches.

Unit cases for the format and its errors (always data, never exceptions), streamed prefixes, and
three properties: every usage example a rendered prompt shows parses to the call it describes;
arguments → `format_call` → `parse` is the identity; and any prefix of a reply parses without an
error, the call appearing once its closing tag has arrived.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import attrs
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from promptc import (CallError, CompiledPrompt, Compiler, ParsedMessage, PromptContext,
                     ProviderInfo, ToolCall)
from promptc._model.tools import parameters_for, usage_value

from .conftest import load_context

TEXT = ProviderInfo("openai", "gpt-4.1", native_tools=False)  # generic, text tools
TEXT_VARIANTS = ("generic", "next-gen", "glm", "compact", "gpt-5", "gpt-5-codex", "gemini-3")


@pytest.fixture(scope="module")
def prompt(builtins: Compiler) -> CompiledPrompt:
    out = builtins.compile(TEXT, load_context("full"))
    assert out.tools.mode == "text"
    return out


def only_call(parsed: ParsedMessage) -> ToolCall:
    assert not parsed.errors, [e.message for e in parsed.errors]
    [call] = parsed.calls
    return call


def only_error(parsed: ParsedMessage) -> CallError:
    assert not parsed.calls
    [error] = parsed.errors
    return error


# --- the format --------------------------------------------------------------------------------

def test_a_call_with_prose_around_it(prompt: CompiledPrompt) -> None:
    reply = ("Let me look at the config first.\n\n"
             "<read_file>\n<path>src/config.py</path>\n</read_file>\n")
    parsed = prompt.tools.parse(reply)
    call = only_call(parsed)
    assert (call.name, call.arguments) == ("read_file", {"path": "src/config.py"})
    assert call.raw == reply[call.start:call.end] and call.raw.endswith("</read_file>")
    assert parsed.text == "Let me look at the config first.\n\n\n"
    assert parsed.parts == ("Let me look at the config first.\n\n", call, "\n")
    assert parsed.complete and parsed.open is None


def test_values_are_converted_to_their_types(prompt: CompiledPrompt) -> None:
    call = only_call(prompt.tools.parse(
        "<execute_command>\n<command>make test</command>\n"
        "<requires_approval> FALSE </requires_approval>\n<timeout_seconds>\n300\n"
        "</timeout_seconds>\n</execute_command>"))
    assert call.arguments == {"command": "make test", "requires_approval": False,
                              "timeout_seconds": 300}
    call = only_call(prompt.tools.parse(
        '<ask_followup_question>\n<question>Which?</question>\n'
        '<options>["a", "b"]</options>\n</ask_followup_question>'))
    assert call.arguments["options"] == ["a", "b"]


def test_multiline_values_keep_every_byte_but_the_layout_newline(prompt: CompiledPrompt) -> None:
    content = "def f():\n    return '</content>'  # not the end\n\n"
    reply = f"<write_to_file>\n<path>a.py</path>\n<content>\n{content}</content>\n</write_to_file>"
    assert only_call(prompt.tools.parse(reply)).arguments["content"] == content
    inline = "<write_to_file>\n<path>a.py</path>\n<content>x = 1\n</content>\n</write_to_file>"
    assert only_call(prompt.tools.parse(inline)).arguments["content"] == "x = 1\n"


def test_several_calls_in_order(prompt: CompiledPrompt) -> None:
    reply = ("<read_file>\n<path>a</path>\n</read_file>\nthen\n"
             "<list_files>\n<path>.</path>\n<recursive>true</recursive>\n</list_files>")
    parsed = prompt.tools.parse(reply)
    assert [(c.name, c.arguments) for c in parsed.calls] == [
        ("read_file", {"path": "a"}), ("list_files", {"path": ".", "recursive": True})]
    assert parsed.text == "\nthen\n"


@pytest.mark.parametrize(("reply", "code", "parameter"), [
    ("<read_file>\n<file>a.py</file>\n</read_file>", "unknown-parameter", "file"),
    ("<read_file>\n</read_file>", "missing-parameter", "path"),
    ("<read_file>\n<path>a</path>\n<path>b</path>\n</read_file>", "duplicate-parameter", "path"),
    ("<list_files>\n<path>.</path>\n<recursive>maybe</recursive>\n</list_files>", "bad-value",
     "recursive"),
    ("<execute_command>\n<command>ls</command>\n<requires_approval>false</requires_approval>\n"
     "<timeout_seconds>1.5</timeout_seconds>\n</execute_command>", "bad-value",
     "timeout_seconds"),
    ("<ask_followup_question>\n<question>q</question>\n<options>a, b</options>\n"
     "</ask_followup_question>", "bad-value", "options"),
    ("<browser_action>\n<action>dance</action>\n</browser_action>", "not-an-option", "action"),
    ("<read_file>\n<path>a</path>\n", "unclosed-call", None),
    ("<read_file>\n<path>a", "unclosed-parameter", "path"),
    ("<read_file>\nplease read it\n<path>a</path>\n</read_file>", "stray-text", None),
])
def test_malformed_calls_are_errors_in_data(prompt: CompiledPrompt, reply: str, code: str,
                                            parameter: str | None) -> None:
    error = only_error(prompt.tools.parse(reply))
    assert error.code == code and error.problems[0].parameter == parameter
    assert error.message and error.raw == reply[error.start:error.end]
    assert json.dumps(error.to_dict())  # plain data, ready to send back to the model


def test_an_unknown_tool_shaped_like_a_call_is_an_error(prompt: CompiledPrompt) -> None:
    parsed = prompt.tools.parse("Deleting.\n<delete_everything>\n<path>/</path>\n"
                                "</delete_everything>\nDone.")
    error = only_error(parsed)
    assert error.code == "unknown-tool" and error.name == "delete_everything"
    assert "read_file" in error.message  # names what is offered
    assert parsed.text == "Deleting.\n\nDone."


def test_tools_not_offered_in_this_request_are_unknown(builtins: Compiler) -> None:
    no_browser = builtins.compile(TEXT, load_context("no_browser"))
    assert "browser_action" not in no_browser.tools.names
    error = only_error(no_browser.tools.parse("<browser_action>\n<action>close</action>\n"
                                              "</browser_action>"))
    assert error.code == "unknown-tool"


def test_plan_mode_offers_every_tool_and_names_those_it_allows(builtins: Compiler) -> None:
    """The tool list is the same in both modes (a mode switch keeps the cached prefix); an
    act-only call parses in plan mode, and `allowed_in` tells the client to refuse it."""
    plan = builtins.compile(TEXT, load_context("plan"))
    act = builtins.compile(TEXT, load_context("full"))
    assert plan.tools.names == act.tools.names
    call = only_call(plan.tools.parse("<write_to_file>\n<path>a</path>\n<content>x</content>"
                                      "\n</write_to_file>"))
    assert call.name == "write_to_file"
    assert "write_to_file" not in plan.tools.allowed_in("plan")
    assert "write_to_file" in plan.tools.allowed_in("act")
    assert "plan_mode_respond" not in act.tools.allowed_in("act")


@pytest.mark.parametrize("reply", [
    "<thinking>\nI should read the file.\n</thinking>",
    "Use <read_file> to read a file.",
    "An HTML page:\n<div>\n<p>hi</p>\n</div>",
    "```xml\n<some_tool>\n<x>1</x>\n</some_tool>\n```",
    "a < b and c > d; <br> <read_file> alone",
])
def test_prose_and_markup_are_not_calls(prompt: CompiledPrompt, reply: str) -> None:
    parsed = prompt.tools.parse(reply)
    assert parsed.parts == (reply,) and parsed.complete


def test_a_call_inside_a_fence_is_still_a_call(prompt: CompiledPrompt) -> None:
    call = only_call(prompt.tools.parse("```xml\n<read_file>\n<path>a</path>\n</read_file>\n```"))
    assert call.arguments == {"path": "a"}


# --- streamed prefixes ---------------------------------------------------------------------------

def test_a_streamed_call_is_open_until_it_closes(prompt: CompiledPrompt) -> None:
    tools = prompt.tools
    parsed = tools.parse("Reading.\n<read_file>\n<path>src/co", partial=True)
    assert not parsed.calls and not parsed.errors and not parsed.complete
    assert parsed.open is not None and parsed.open.name == "read_file"
    assert (parsed.open.parameter, parsed.open.value) == ("path", "src/co")
    assert parsed.text == "Reading.\n"
    between = tools.parse("<read_file>\n<path>src/config.py</path>\n</read_", partial=True)
    assert between.open is not None and between.open.parameter is None
    assert between.open.arguments == {"path": "src/config.py"}
    held = tools.parse("Reading.\n<rea", partial=True)
    assert held.pending == "<rea" and held.text == "Reading.\n" and held.open is None
    done = tools.parse("<read_file>\n<path>a</path>\n</read_file>", partial=True)
    assert done.complete and only_call(done).arguments == {"path": "a"}
    plain = tools.parse("Just prose with a < sign", partial=True)
    assert plain.complete and plain.text == "Just prose with a < sign"


# --- size ----------------------------------------------------------------------------------------

def test_parsing_is_linear(prompt: CompiledPrompt) -> None:
    def cost(n: int) -> float:
        reply = ("<read_file>\n<path>" + "</path>x" * n + "</path>\n</read_file>\n" +
                 "<read_file> " * n + "<a_b>\n<c>\n" * n)
        start = time.perf_counter()
        parsed = prompt.tools.parse(reply)
        assert parsed.calls[0].arguments["path"] == "</path>x" * n
        return time.perf_counter() - start
    cost(500)
    small, large = cost(2_000), cost(32_000)
    assert large < small * 16 * 4


# --- properties ----------------------------------------------------------------------------------

def described_calls(prompt: CompiledPrompt) -> dict[str, dict[str, Any]]:
    """Tool → the arguments its generated usage example shows (typed), for every tool without
    a hand-written example."""
    tools = prompt.tools
    specs = tools.specs
    enabled = frozenset(s.name for s in specs)
    from promptc._model.tools import enum_sources
    sources = enum_sources(specs, tools.skills)
    out: dict[str, dict[str, Any]] = {}
    for spec in specs:
        if spec.example:
            continue
        args: dict[str, Any] = {}
        for param, options in parameters_for(spec, enabled, sources):
            value = usage_value(param, options)
            if param.type == "integer":
                args[param.name] = int(value)
            elif param.type == "boolean":
                args[param.name] = value == "true"
            elif param.type in ("array", "object", "number"):
                args[param.name] = json.loads(value)
            else:  # a line break right after the opening tag is layout (the format's rule)
                args[param.name] = value[1:] if value.startswith("\n") else value
        out[spec.name] = args
    return out


contexts = st.builds(
    dict,
    base=st.sampled_from(["full", "no_browser", "no_mcp", "no_rules_skills", "plan"]),
    features=st.fixed_dictionaries({}, optional={
        "browser": st.booleans(), "web_fetch": st.booleans(), "task_progress": st.booleans(),
        "autonomous": st.booleans()}),
    skills=st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True), max_size=3,
                    unique=True),
    mode=st.sampled_from(["act", "plan"]),
)


@settings(deadline=None)
@given(variant=st.sampled_from(TEXT_VARIANTS), spec=contexts)
def test_every_usage_example_parses_to_the_call_it_describes(
        builtins: Compiler, variant: str, spec: dict[str, Any]) -> None:
    ctx = load_context(spec["base"])
    skills = [{"name": n, "description": "d", "references": [f"docs/{n}.md"]}
              for n in spec["skills"]]
    ctx = attrs.evolve(ctx, features={**ctx.features, **spec["features"]}, mode=spec["mode"],
                       skills=skills or ctx.skills)
    prompt = builtins.compile(TEXT, ctx, variant=variant)
    assert prompt.tools.mode == "text"
    # Every example anywhere in the prompt is a well-formed call. (One may still name a tool
    # this request does not offer, such as an act-only tool in plan mode: making the prose
    # agree with the tool list is issue 14's consistency lint, so that case is let through.)
    whole = prompt.tools.parse(prompt.text)
    variant_tools = {s.name for s in prompt.variant.tool_specs}
    assert all(e.code == "unknown-tool" and e.name in variant_tools for e in whole.errors), (
        variant, [e.message for e in whole.errors])
    # the static catalogue, then the tools this session's MCP servers and skills bring
    catalogue = "\n".join(s.text for s in prompt.sections if s.id in ("tools", "session_tools"))
    assert catalogue
    found: dict[str, list[dict[str, Any]]] = {}
    for call in prompt.tools.parse(catalogue).calls:
        found.setdefault(call.name, []).append(call.arguments)
    listed = re.findall(r"^## (\S+)$", catalogue, re.M)
    assert listed == [s.name for s in prompt.tools.specs]
    assert set(found) == set(listed)  # every tool listed shows a usage example that parses
    for name, args in described_calls(prompt).items():
        assert found[name] == [args], (variant, name)


def values(kind: str, items: str | None, options: tuple[str, ...]) -> st.SearchStrategy[Any]:
    text = st.text(st.sampled_from("ab <>/\n\t\"{}é_xyz"), max_size=30) | st.sampled_from(
        ["", "\n", " x ", "</path>", "</content> later", "<path>", "a</path>b",
         "line\n</content>\nmore", "{\"a\": 1}", "[1, 2]", "true"])
    if options:
        return st.sampled_from(options)
    return {
        "string": text,
        "integer": st.integers(-10**12, 10**12),
        "number": st.integers(-1000, 1000) | st.floats(allow_nan=False, allow_infinity=False),
        "boolean": st.booleans(),
        "array": st.lists(st.text(max_size=8) if items in (None, "string") else st.integers(),
                          max_size=4),
        "object": st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5),
                                  max_size=3),
    }[kind]


@st.composite
def calls(draw: st.DrawFn, prompt: CompiledPrompt) -> tuple[str, dict[str, Any]]:
    tools = prompt.tools
    enabled = frozenset(s.name for s in tools.specs)
    from promptc._model.tools import enum_sources
    sources = enum_sources(tools.specs, tools.skills)
    spec = draw(st.sampled_from(tools.specs))
    args: dict[str, Any] = {}
    for param, options in parameters_for(spec, enabled, sources):
        if param.required or draw(st.booleans()):
            items = param.items.get("type") if param.items else None
            args[param.name] = draw(values(param.type, items, tuple(options)))
    return spec.name, args


def ambiguous(name: str, args: dict[str, Any], prompt: CompiledPrompt) -> bool:
    """A string value holding its own closing tag followed by a parameter's opening tag or the
    tool's closing tag: the one thing the format cannot carry (documented)."""
    spec = next(s for s in prompt.tools.specs if s.name == name)
    after = "|".join([re.escape(f"</{name}>")] +
                     [re.escape(f"<{p.name}>") for p in spec.parameters])
    return any(isinstance(v, str) and re.search(re.escape(f"</{k}>") + r"\s*(?:" + after + ")", v)
               for k, v in args.items())


@settings(deadline=None)
@given(st.data())
def test_arguments_to_rendered_call_to_parse_is_the_identity(prompt: CompiledPrompt,
                                                             data: st.DataObject) -> None:
    name, args = data.draw(calls(prompt))
    assume(not ambiguous(name, args, prompt))
    text = prompt.tools.format_call(name, args)
    call = only_call(prompt.tools.parse(text))
    assert call.name == name
    assert call.arguments == args
    assert [type(v) for v in call.arguments.values()] == [type(v) for v in args.values()]


@settings(deadline=None)
@given(st.data(), st.text(st.sampled_from("ab <\n"), max_size=12),
       st.text(st.sampled_from("ab <\n"), max_size=12))
def test_every_prefix_of_a_reply_parses_without_error(prompt: CompiledPrompt,
                                                      data: st.DataObject, before: str,
                                                      after: str) -> None:
    name, args = data.draw(calls(prompt))
    assume(not ambiguous(name, args, prompt))
    call_text = prompt.tools.format_call(name, args)
    assume(prompt.tools.parse(before + "\n" + call_text).calls)  # `before` opens nothing
    reply = before + "\n" + call_text + "\n" + after
    full = prompt.tools.parse(reply)
    assume(len(full.calls) == 1 and not full.errors)
    closed_at = len(before) + 1 + len(call_text)
    for cut in sorted({*range(0, len(reply), max(1, len(reply) // 40)), closed_at,
                       len(reply)}):
        parsed = prompt.tools.parse(reply[:cut], partial=True)
        assert not parsed.errors, (reply[:cut], [e.message for e in parsed.errors])
        if cut >= closed_at:
            assert [c.arguments for c in parsed.calls] == [args]
        else:
            assert not parsed.calls
        shown = "".join(p for p in parsed.parts if isinstance(p, str))
        assert reply[:cut].startswith(shown[:len(before)])


# --- native calls come back through decode ----------------------------------------------------

def test_decode_checks_native_calls_and_drops_strict_nulls(builtins: Compiler) -> None:
    prompt = builtins.compile(ProviderInfo("openai", "gpt-4.1"), load_context("full"))
    tools = prompt.tools
    assert tools.mode == "native"
    call = tools.decode("list_files", '{"path": ".", "recursive": null}')
    assert isinstance(call, ToolCall) and call.arguments == {"path": "."}
    error = tools.decode("list_files", {"path": 3})
    assert isinstance(error, CallError) and error.code == "bad-value"
    assert isinstance(tools.decode("list_files", "{not json"), CallError)
    assert tools.decode("nope", {}).code == "unknown-tool"  # type: ignore[union-attr]
    mcp = tools.decode("mcp__github__create_issue", {"repo": "a/b", "title": "t", "body": None})
    assert isinstance(mcp, ToolCall) and (mcp.server, mcp.tool) == ("github", "create_issue")
    schema = next(f for f in tools.openai() if f["function"]["name"] ==
                  "mcp__github__create_issue")["function"]["parameters"]
    assert "body" in schema["properties"]
    assert "body" not in mcp.arguments  # optional in the server's schema: the null goes


def test_allowed_in_names_the_tools_each_mode_allows(builtins: Compiler) -> None:
    act = builtins.compile(TEXT, load_context("full"))
    assert "write_to_file" in act.tools.allowed_in("act")
    assert "write_to_file" not in act.tools.allowed_in("plan")
    assert "read_file" in act.tools.allowed_in("plan")
    assert act.tools.allowed_in("act") <= set(act.tools.names)
    plan = builtins.compile(TEXT, load_context("plan"))
    assert "plan_mode_respond" in plan.tools.allowed_in("plan")
    assert "plan_mode_respond" not in plan.tools.allowed_in("act")
    native = builtins.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"),
                              load_context("full"))
    assert {n for n in native.tools.names if n.startswith("mcp__")} <= \
        native.tools.allowed_in("plan")
    with pytest.raises(ValueError):
        act.tools.allowed_in("build")  # type: ignore[arg-type]


def test_parse_on_an_empty_context_prompt(builtins: Compiler) -> None:
    prompt = builtins.compile(TEXT, PromptContext())
    assert only_call(prompt.tools.parse("<read_file><path>x</path></read_file>")).arguments == \
        {"path": "x"}
