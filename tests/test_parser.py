"""The taught text format: `prompt.tools.parse(text)` reads a reply the way the prompt taught.

Unit cases for the format and its errors (always data, never exceptions), the message rules (one
call per message, text after it, reasoning, fences, quotations, unknown tools in any layout),
streamed prefixes, and three properties: every usage example a rendered prompt shows parses to
the call it describes; arguments → `format_call` → `parse` is the identity, whatever the values
hold; and any prefix of a reply parses without an error, the call appearing once it closed.
The parser's cost is counted, not timed (tests/test_parser_scaling.py; timings in benchmarks/).
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from promptc import (CallError, CompiledPrompt, Compiler, ParsedMessage, PromptContext,
                     ProviderInfo, ToolCall)
from promptc._model.tools import parameters_for, usage_value
from promptc.testing import make_context

from .conftest import text_variants


TEXT = ProviderInfo("openai", "gpt-4.1", native_tools=False)  # generic, text tools
TEXT_VARIANTS = text_variants()


@pytest.fixture(scope="module")
def prompt(builtins: Compiler) -> CompiledPrompt:
    out = builtins.compile(TEXT, make_context("full"))
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


def every_call(prompt: CompiledPrompt, text: str) -> list[ToolCall | CallError]:
    """Each call in `text` as if it were the only one (a message runs only its first), each
    read in a mode that allows it (examples teach tools of both modes)."""
    found: list[ToolCall | CallError] = []
    while True:
        parsed = prompt.tools.parse(text)
        first = next((p for p in parsed.parts if not isinstance(p, str)), None)
        if first is None:
            return found
        end = first.end
        if isinstance(first, CallError) and first.code == "not-allowed-in-mode":
            other = "plan" if prompt.tools.context.mode == "act" else "act"  # type: ignore
            first = prompt.tools.parse(first.raw, mode=other).parts[0]  # type: ignore
        found.append(first)  # type: ignore[arg-type]
        text = text[end:]


FENCED = re.compile(r"^```[^\n]*\n(.*?)^```$", re.M | re.S)


def examples(prompt: CompiledPrompt, text: str) -> list[ToolCall | CallError]:
    """Every example call in a prompt's text: inside each code fence, and written bare."""
    inside = [c for block in FENCED.findall(text) for c in every_call(prompt, block)]
    return inside + every_call(prompt, FENCED.sub("", text))


def test_one_call_per_message_the_second_is_sent_back(prompt: CompiledPrompt) -> None:
    reply = ("<read_file>\n<path>a</path>\n</read_file>\nthen\n"
             "<list_files>\n<path>.</path>\n<recursive>true</recursive>\n</list_files>")
    parsed = prompt.tools.parse(reply)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("read_file", {"path": "a"})]
    [second] = parsed.errors
    assert (second.name, second.code) == ("list_files", "second-call")
    assert "was not run; send it in your next message" in second.message
    assert second.raw == reply[second.start:second.end] and second.raw.endswith("</list_files>")
    assert parsed.text == "\nthen\n"
    assert [w.code for w in parsed.warnings] == ["text-after-call"]


def test_text_after_the_call_is_a_warning(prompt: CompiledPrompt) -> None:
    parsed = prompt.tools.parse("<read_file>\n<path>a</path>\n</read_file>\nThen I'll fix it.")
    assert only_call(parsed).arguments == {"path": "a"}
    [note] = parsed.warnings
    assert note.code == "text-after-call" and note.name == "read_file"
    assert "should end the message" in note.message
    clean = prompt.tools.parse("Reading.\n<read_file>\n<path>a</path>\n</read_file>\n\n")
    assert clean.warnings == ()


@pytest.mark.parametrize(("reply", "code", "parameter"), [
    ("<read_file>\n<file>a.py</file>\n</read_file>", "unknown-parameter", "file"),
    ("<execute_command>\n<command>make</command>\n<requires_approval>false</requires_approval>"
     "\n<timeout_seconds>99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999</timeout_seconds>\n</execute_command>", "bad-value",
     "timeout_seconds"),
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
    no_browser = builtins.compile(TEXT, make_context("no_browser"))
    assert "browser_action" not in no_browser.tools.names
    error = only_error(no_browser.tools.parse("<browser_action>\n<action>close</action>\n"
                                              "</browser_action>"))
    assert error.code == "unknown-tool"


@pytest.fixture(scope="module")
def no_checklist(builtins: Compiler) -> CompiledPrompt:
    """The full context without the progress checklist (task_progress off)."""
    ctx = make_context("full")
    return builtins.compile(TEXT, attrs.evolve(ctx, features={**ctx.features,
                                                              "task_progress": False}))


def test_task_progress_rides_on_every_call_only_when_the_checklist_is_on(
        prompt: CompiledPrompt, no_checklist: CompiledPrompt) -> None:
    """Issue 33: with text tools the checklist is a parameter any call may carry (an update
    of its own would cost a turn), so update_task_progress is not offered; where the feature
    is off the parameter does not exist."""
    assert prompt.tools.context is not None and prompt.tools.context.features["task_progress"]
    assert "update_task_progress" not in prompt.tools.names
    described = described_calls(prompt)
    for spec in prompt.tools.specs:  # every offered tool, in either mode it allows
        mode = "act" if "act" in spec.modes else "plan"
        args = {**described[spec.name], "task_progress": "- [x] a\n- [ ] b"} \
            if spec.name in described else None
        if args is None:  # a hand-written example: its first call, plus the checklist
            args = {**examples(prompt, spec.example)[0].arguments, "task_progress": "- [ ] b"}
        if spec.name == "use_mcp_tool":  # the example's server is a placeholder
            args.update(server_name="postgres", tool_name="query", arguments={"sql": "1"})
        reply = prompt.tools.format_call(spec.name, args)
        call = only_call(prompt.tools.parse(reply, mode=mode))  # type: ignore[arg-type]
        assert call.arguments["task_progress"] == args["task_progress"], spec.name
    for reply in ("<read_file><path>a.py</path><task_progress>- [x] read</task_progress>"
                  "</read_file>",
                  "<read_file>\n<task_progress>\n- [ ] a\n</task_progress>\n<path>a.py</path>\n"
                  "</read_file>"):
        assert only_call(prompt.tools.parse(reply)).arguments["path"] == "a.py"
        error = only_error(no_checklist.tools.parse(reply))
        assert (error.code, error.problems[0].parameter) == ("unknown-parameter",
                                                             "task_progress")
    # the catalogue does not repeat it under every tool: its own section says it once
    catalogue = next(s.text for s in prompt.sections if s.id == "tools")
    progress = next(s.text for s in prompt.sections if s.id == "task_progress")
    assert "task_progress" not in catalogue and "`task_progress`" in progress
    assert not [s for s in no_checklist.sections if s.id == "task_progress"]


def test_an_unknown_parameter_is_named_whatever_its_position(
        no_checklist: CompiledPrompt) -> None:
    """The slip of models trained on other agents: the message names the real problem, not
    an unclosed tag, so the model does not resend the same call."""
    prompt = no_checklist
    for reply in ("<read_file><path>a.py</path><task_progress>x</task_progress></read_file>",
                  "<read_file>\n<task_progress>x</task_progress>\n<path>a.py</path>\n</read_file>",
                  "<read_file>\n<path>a.py</path>\n<reason>to see it</reason>\n</read_file>"):
        error = only_error(prompt.tools.parse(reply))
        [problem] = error.problems
        assert problem.code == "unknown-parameter"
        assert problem.message.startswith(f"tool 'read_file' has no parameter "
                                          f"{problem.parameter!r}")
        assert "(its parameters: path)" in problem.message


def test_an_unknown_tool_is_an_error_whatever_the_layout(prompt: CompiledPrompt) -> None:
    for reply in ("<read_files>\n<path>a</path>\n</read_files>",
                  "Now: <read_files><path>a</path></read_files>",
                  "<ReadFile>\n<path>a</path>\n</ReadFile>",
                  "<readfile><path>a</path></readfile>"):
        error = only_error(prompt.tools.parse(reply))
        assert error.code == "unknown-tool", reply
        assert "(did you mean 'read_file'?)" in error.message


def test_plan_mode_offers_every_tool_and_refuses_what_it_rules_out(builtins: Compiler) -> None:
    """The tool list is the same in both modes (a mode switch keeps the cached prefix); a call
    the mode rules out is refused as the prompt's mode section says, naming what is allowed."""
    plan = builtins.compile(TEXT, make_context("plan"))
    act = builtins.compile(TEXT, make_context("full"))
    assert plan.tools.names == act.tools.names
    write = "<write_to_file>\n<path>a</path>\n<content>x</content>\n</write_to_file>"
    error = only_error(plan.tools.parse(write))
    assert error.code == "not-allowed-in-mode"
    assert error.message.startswith("write_to_file is not allowed in plan mode; allowed now: ")
    assert "plan_mode_respond" in error.message
    assert only_call(act.tools.parse(write)).name == "write_to_file"
    assert only_call(plan.tools.parse(write, mode="act")).name == "write_to_file"
    assert "write_to_file" not in plan.tools.allowed_in("plan")
    assert "plan_mode_respond" not in act.tools.allowed_in("act")
    for act_only in ("browser_action", "new_task", "attempt_completion"):
        assert act_only in act.tools.names and act_only not in act.tools.allowed_in("plan")
    with pytest.raises(ValueError):
        act.tools.parse(write, mode="build")  # type: ignore[arg-type]


@pytest.mark.parametrize(("reply", "hint"), [
    ("<bash>\n<command>ls</command>\n</bash>", " (the tool for that here is 'execute_command')"),
    ("<Grep><pattern>foo</pattern></Grep>", " (the tool for that here is 'search_files')"),
    ("<edit><path>a.py</path><diff>x</diff></edit>", " (the tool for that here is "
                                                    "'replace_in_file')"),
    ("<frobnicate><path>a.py</path></frobnicate>", ""),
    ("<Bash>ls -la</Bash>", " (the tool for that here is 'execute_command')"),
    ("Reading it: <Read><file_path>a.py</file_path></Read>", " (the tool for that here is "
                                                             "'read_file')"),
    ("I'll search.\n<search>\n<query>todo</query>\n<limit>5</limit>\n</search>\n",
     " (the tool for that here is 'search_files')"),  # by what it does (its aliases)
    ("<MultiEdit>\n<file_path>a.py</file_path>\n<edits>[]</edits>\n</MultiEdit>",
     " (the tool for that here is 'replace_in_file')"),
    ("<webfetch>\n<url>https://example.com</url>\n</webfetch>", " (did you mean 'web_fetch'?)"),
])
def test_other_agents_tools_and_call_shaped_blocks_are_unknown_tools(
        prompt: CompiledPrompt, reply: str, hint: str) -> None:
    """Models trained on other agents write their tools; a tag of any name whose body is
    nothing but parameter tags, on lines of its own, is a call too: never silence."""
    error = only_error(prompt.tools.parse(reply))
    assert error.code == "unknown-tool", reply
    assert error.raw == reply[error.start:error.end] and error.raw.startswith(f"<{error.name}>")
    assert f"tool {error.name!r} is not offered{hint}; the tools offered: " in error.message


def test_an_unknown_tool_after_the_call_is_not_sent_back_as_it_is(prompt: CompiledPrompt
                                                                  ) -> None:
    parsed = prompt.tools.parse("<read_file><path>a</path></read_file>\n<Bash>ls</Bash>")
    assert parsed.call is not None and parsed.call.name == "read_file"
    [second] = parsed.errors
    assert [p.code for p in second.problems] == ["second-call", "unknown-tool"]
    assert "send it in your next message" not in second.message
    assert "could not run as written" in second.message and "is not offered" in second.message


def test_a_wrapper_around_a_call_is_not_itself_an_unknown_tool(prompt: CompiledPrompt) -> None:
    parsed = prompt.tools.parse("<actions>\n<read_file><path>a</path></read_file>\n</actions>")
    assert only_call(parsed).arguments == {"path": "a"}


@pytest.mark.parametrize("reply", [
    "<thinking>\nI should read the file.\n</thinking>",
    "Use <read_file> to read a file.",
    "An HTML page:\n<div>\n<p>hi</p>\n</div>",
    "```html\n<section>\n<p>1</p>\n</section>\n```",
    "a < b and c > d; <br> <read_file> alone",
    "Config looks like <config><name>x</name></config> in XML.",
    "<ul>\n<li>one</li>\n<li>two</li>\n</ul>",
    "<table>\n<tr><td>1</td></tr>\n</table>",
    "<details>\n<summary>More</summary>\n</details>",
    "Generics: `List<T>`, <T> and Map<K, V>; <T>x</T> is a type parameter.",
    "Use `<edit><path>a.py</path></edit>` in that agent.",
    'The other agent wrote "<frobnicate><path>a</path></frobnicate>" there.',
    "Add the dependency:\n```xml\n<dependency>\n<groupId>org.x</groupId>\n"
    "<artifactId>y</artifactId>\n</dependency>\n```",
    "```xml\n<note>\n<to>Tove</to>\n</note>\n```\nThat is the shape.",
    "<thinking>\nThe pom has\n<dependency>\n<groupId>x</groupId>\n</dependency>\n"
    "</thinking>\nIt is fine.",
])
def test_prose_and_markup_are_not_calls(prompt: CompiledPrompt, reply: str) -> None:
    parsed = prompt.tools.parse(reply)
    assert parsed.parts == (reply,) and parsed.complete and not parsed.warnings


DANGER = ("<execute_command>\n<command>rm -rf build</command>\n"
          "<requires_approval>false</requires_approval>\n</execute_command>")


def test_a_fence_holding_only_a_call_is_read_with_a_warning(prompt: CompiledPrompt) -> None:
    parsed = prompt.tools.parse("```xml\n<read_file>\n<path>a</path>\n</read_file>\n```")
    assert only_call(parsed).arguments == {"path": "a"}
    assert [w.code for w in parsed.warnings] == ["fenced-call"]
    unknown = prompt.tools.parse("```\n<some_tool>\n<x>1</x>\n</some_tool>\n```")
    assert only_error(unknown).code == "unknown-tool"  # an unknown tool, fenced or not


@pytest.mark.parametrize("reply", [
    f"To clean up you could run:\n```\n{DANGER}\n```\nbut I have not.",
    f"Example:\n~~~\n# the call\n{DANGER}\n~~~",
    "Run `<execute_command><command>rm -rf build</command><requires_approval>false"
    "</requires_approval></execute_command>` yourself.",
    f'The agent wrote "{DANGER}" in its log.',
])
def test_a_quoted_call_is_text(prompt: CompiledPrompt, reply: str) -> None:
    parsed = prompt.tools.parse(reply)
    assert not parsed.calls and not parsed.errors
    assert parsed.text == reply
    [note] = parsed.warnings
    assert note.code == "quoted-call" and note.name == "execute_command"


@pytest.mark.parametrize("tag", ["think", "thinking", "reasoning", "thought"])
def test_a_call_in_reasoning_is_never_run(prompt: CompiledPrompt, tag: str) -> None:
    reply = f"<{tag}>\nI will clean: {DANGER}\n</{tag}>\nDone."
    alone = prompt.tools.parse(reply)
    assert not alone.calls
    [error] = alone.errors
    assert error.code == "call-in-reasoning" and f"inside the <{tag}> reasoning" in error.message
    assert error.raw == DANGER and alone.text == reply.replace(DANGER, "")
    both = prompt.tools.parse(f"<{tag}>{DANGER}</{tag}>\n<read_file>\n<path>a</path>\n"
                              "</read_file>")
    assert only_call(both).name == "read_file"
    assert [w.code for w in both.warnings] == ["call-in-reasoning"]


def test_reasoning_whose_opening_tag_the_template_wrote(prompt: CompiledPrompt) -> None:
    """Reasoning models' templates open `<think>` in the prompt: the reply starts inside it."""
    parsed = prompt.tools.parse(f"Let me clean up.\n{DANGER}\n</think>\nNothing to do.")
    assert not parsed.calls and only_error(parsed).code == "call-in-reasoning"
    after = prompt.tools.parse("Plan: read it.\n</think>\n<read_file><path>a</path></read_file>")
    assert only_call(after).arguments == {"path": "a"}


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
    assert done.partial and done.call is None  # shown as read so far; nothing runs yet
    plain = tools.parse("Just prose with a < sign", partial=True)
    assert plain.complete and plain.text == "Just prose with a < sign"


def test_a_streamed_prefix_runs_nothing_since_a_later_think_can_make_it_reasoning(
        prompt: CompiledPrompt) -> None:
    """The contract of `partial=True`: calls are shown as read so far, and only the complete
    reply has a call to run. Here the text after the prefix makes the call reasoning."""
    reply = f"I should run:\n{DANGER}\n</think>\nNothing to do."
    prefix = reply[:reply.index("</think>")]
    streamed = prompt.tools.parse(prefix, partial=True)
    assert streamed.partial and streamed.call is None
    assert [c.name for c in streamed.calls] == ["execute_command"]
    assert streamed.to_dict()["partial"] is True
    whole = prompt.tools.parse(reply)
    assert whole.call is None and only_error(whole).code == "call-in-reasoning"
    ended = prompt.tools.parse(prefix)  # the stream ended there: no </think> came
    assert not ended.partial and ended.call is not None and ended.call.name == "execute_command"
    assert "partial" not in ended.to_dict()


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
            if param.shared:  # the checklist every call may carry: shown in its own section
                continue
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
    ctx = make_context(spec["base"])
    skills = [{"name": n, "description": "d", "references": [f"docs/{n}.md"]}
              for n in spec["skills"]]
    ctx = attrs.evolve(ctx, features={**ctx.features, **spec["features"]}, mode=spec["mode"],
                       skills=skills or ctx.skills)
    prompt = builtins.compile(TEXT, ctx, variant=variant)
    assert prompt.tools.mode == "text"
    # Every example anywhere in the prompt is a well-formed call. (One may still name a tool
    # this request does not offer, such as an act-only tool in plan mode: making the prose
    # agree with the tool list is issue 14's consistency lint, so that case is let through.)
    variant_tools = {s.name for s in prompt.variant.tool_specs}
    # An example's values are placeholders: an MCP server named there is not this session's.
    errors = [c for c in examples(prompt, prompt.text) if isinstance(c, CallError)]
    assert all((e.code == "unknown-tool" and e.name in variant_tools) or
               (e.code == "unknown-server" and e.name == "use_mcp_tool")
               for e in errors), (variant, [e.message for e in errors])
    # the static catalogue, then the tools this session's MCP servers and skills bring
    catalogue = "\n".join(s.text for s in prompt.sections if s.id in ("tools", "session_tools"))
    assert catalogue
    found: dict[str, list[dict[str, Any]]] = {}
    for call in examples(prompt, catalogue):
        found.setdefault(call.name, []).append(call.arguments)
    listed = re.findall(r"^## (\S+)$", catalogue, re.M)
    assert listed == [s.name for s in prompt.tools.specs]
    # every offered tool shows a usage example that parses, the ones a session brings too
    # (issue 33: the catalogue promises one for each tool)
    assert set(found) == set(listed)
    for name, args in described_calls(prompt).items():
        if name in found:
            assert found[name] == [args], (variant, name)


def fragments(tool: str, params: list[str]) -> list[str]:
    """Pieces a value is made of: every tag the format uses for this tool (its own closing
    tag, each parameter's tags), the escape's markers, and what the reader treats specially
    elsewhere (fences, reasoning tags, other models' call markers)."""
    return [f"<{tool}>", f"</{tool}>", *(f"<{p}>" for p in params),
            *(f"</{p}>" for p in params), "<![CDATA[", "]]>", "]]", "```", "~~~", "<think>",
            "</think>", "<tool_call>", "</tool_call>", "[TOOL_CALLS]", "<function=x>", "\n",
            " ", "\t", "a", "é", "<", ">", "`", '"', "{}", "<read_file>"]


def values(kind: str, items: str | None, options: tuple[str, ...], pieces: list[str]
           ) -> st.SearchStrategy[Any]:
    text = st.lists(st.sampled_from(pieces) | st.text(max_size=3), max_size=12).map("".join)
    if options:
        return st.sampled_from(options)
    return {
        "string": text,
        "integer": st.integers(-10**12, 10**12),
        "number": st.integers(-1000, 1000) | st.floats(allow_nan=False, allow_infinity=False),
        "boolean": st.booleans(),
        "array": st.lists(text if items in (None, "string") else st.integers(), max_size=4),
        "object": st.dictionaries(text, st.integers() | text, max_size=3),
    }[kind]


@st.composite
def calls(draw: st.DrawFn, prompt: CompiledPrompt) -> tuple[str, dict[str, Any]]:
    tools = prompt.tools
    enabled = frozenset(s.name for s in tools.specs)
    from promptc._model.tools import enum_sources
    sources = enum_sources(tools.specs, tools.skills)
    # use_mcp_tool routes to a real server's schema: its round trip is tests/test_call_checker.py's
    allowed = prompt.tools.allowed_in("act")
    spec = draw(st.sampled_from([s for s in tools.specs if s.name in allowed
                                 and s.name != "use_mcp_tool"]))
    params = parameters_for(spec, enabled, sources)
    pieces = fragments(spec.name, [p.name for p, _options in params])
    args: dict[str, Any] = {}
    for param, options in params:
        if param.required or draw(st.booleans()):
            items = param.items.get("type") if param.items else None
            drawn = values(param.type, items, tuple(options), pieces)
            if not param.required and param.type == "string":  # never an empty tag
                drawn = drawn.filter(lambda v: v.strip() != "")
            args[param.name] = draw(drawn)
    return spec.name, args


@settings(deadline=None)
@given(st.data())
def test_arguments_to_rendered_call_to_parse_is_the_identity(prompt: CompiledPrompt,
                                                             data: st.DataObject) -> None:
    name, args = data.draw(calls(prompt))
    text = prompt.tools.format_call(name, args)
    call = only_call(prompt.tools.parse(text))
    assert call.name == name
    assert call.arguments == args
    assert [type(v) for v in call.arguments.values()] == [type(v) for v in args.values()]


@pytest.mark.parametrize("options", [["</options></ask_followup_question>"],
                                     ["</options>", "<![CDATA[", "]]>"], ["a\nb"]])
def test_an_array_holding_its_own_closing_tag_reads_back_as_itself(prompt: CompiledPrompt,
                                                                   options: list[str]) -> None:
    text = prompt.tools.format_call("ask_followup_question",
                                    {"question": "Which?", "options": options})
    assert only_call(prompt.tools.parse(text)).arguments["options"] == options


@pytest.mark.parametrize("value", ["</coordinate></browser_action>", "</coordinate>",
                                   "a]]>b", "<![CDATA[x]]>"])
def test_a_streamed_escaped_value_is_no_call_until_its_tool_closes(prompt: CompiledPrompt,
                                                                  value: str) -> None:
    """A value written as CDATA: a prefix that ends part way into its closing tag (`]]></coor`)
    is still the open value, not a call whose value is the escape's first characters."""
    text = prompt.tools.format_call("browser_action", {"action": "launch", "coordinate": value})
    for cut in range(len(text)):
        parsed = prompt.tools.parse(text[:cut], partial=True)
        assert not parsed.errors and not parsed.calls, text[:cut]
    assert only_call(prompt.tools.parse(text)).arguments["coordinate"] == value


@settings(deadline=None)
@given(st.data(), st.text(st.sampled_from("ab <\n"), max_size=12),
       st.text(st.sampled_from("ab <\n"), max_size=12))
def test_every_prefix_of_a_reply_parses_without_error(prompt: CompiledPrompt,
                                                      data: st.DataObject, before: str,
                                                      after: str) -> None:
    name, args = data.draw(calls(prompt))
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
        assert parsed.call is None  # a prefix has nothing to run yet
        if cut >= closed_at:
            assert [c.arguments for c in parsed.calls] == [args]
        else:
            assert not parsed.calls
        shown = "".join(p for p in parsed.parts if isinstance(p, str))
        assert reply[:cut].startswith(shown[:len(before)])


PIECES = ("<Bash>", "</Bash>", "<x>", "</x>", "<p>", "</p>", "<read_file>", "</read_file>",
          "<path>", "</path>", "\n", " ", "```", "```xml\n", "`", '"', "<think>", "</think>",
          "<tool_call>", "</tool_call>", '{"name": "read_file", "arguments": {"path": ', "NaN",
          "1e999", "}", "[TOOL_CALLS]", "a", "<div>", "</div>", "<Read>", "</Read>",
          "<![CDATA[", "]]>", '"a"', ", ", "<function=read_file>", "<parameter=path>",
          "</parameter>", "</function>")


@settings(deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30), st.booleans())
def test_any_mix_of_the_formats_tags_reads_as_data(prompt: CompiledPrompt, pieces: list[str],
                                                  partial: bool) -> None:
    """Whatever a reply mixes (calls, other agents' tags, foreign formats, fences, reasoning,
    broken JSON), reading it raises nothing, gives JSON-writable data, every call or error's
    `raw` is the text at its span, and a streamed prefix has no call to run."""
    reply = "".join(pieces)
    parsed = prompt.tools.parse(reply, partial=partial)
    json.dumps(parsed.to_dict(), allow_nan=False)
    for part in parsed.parts:
        if not isinstance(part, str):
            assert part.raw == reply[part.start:part.end], part
    if partial:
        assert parsed.call is None


def test_parse_on_an_empty_context_prompt(builtins: Compiler) -> None:
    prompt = builtins.compile(TEXT, PromptContext())
    assert only_call(prompt.tools.parse("<read_file><path>x</path></read_file>")).arguments == \
        {"path": "x"}
