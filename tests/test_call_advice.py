"""The advice a model gets back steers it to the right tool and the right form (issue 33, item
4, "advice by intent").

A tool nobody offers is matched to the offered tool that does the job, by the `aliases` tool
specs declare, before any spelling match (`edit_file` and `create_file` were sent to read_file);
a bare JSON call of any common shape is read or corrected, never silent; what the prompts forbid
in a call's values (an empty optional tag, merge-conflict markers in a diff, a patch without its
end) is an error, XML entities a warning.
"""

from __future__ import annotations

from typing import Any

import pytest

from promptc import CompiledPrompt, Compiler, ProviderInfo, ToolSpecError
from promptc._model.tools import parse_tool
from promptc.testing import make_context

NATIVE = ProviderInfo("openai", "gpt-4.1")
TEXT = ProviderInfo("openai", "gpt-4.1", native_tools=False)


@pytest.fixture(scope="module")
def native(builtins: Compiler) -> CompiledPrompt:
    return builtins.compile(NATIVE, make_context("full"), dynamic="system")


@pytest.fixture(scope="module")
def text(builtins: Compiler) -> CompiledPrompt:
    return builtins.compile(TEXT, make_context("full"))


def advice(prompt: CompiledPrompt, name: str) -> str:
    error = prompt.tools.decode(name, {})
    message: str = error.message  # type: ignore[union-attr]
    return message.split(";")[0]


@pytest.mark.parametrize(("name", "tool"), [
    ("edit_file", "replace_in_file"), ("create_file", "write_to_file"),
    ("EditFile", "replace_in_file"), ("str_replace_editor", "replace_in_file"),
    ("write_files", "write_to_file"), ("run_shell", "execute_command"),
    ("runTerminalCmd", "execute_command"), ("Bash", "execute_command"),
    ("exec", "execute_command"), ("cat", "read_file"), ("view_file", "read_file"),
    ("grep_search", "search_files"), ("ripgrep", "search_files"), ("ls", "list_files"),
    ("list_dir", "list_files"), ("TodoWrite", "update_task_progress"),
    ("fetch_url", "web_fetch"), ("ask_user", "ask_followup_question"),
])
def test_a_tool_nobody_offers_is_matched_by_what_it_does(native: CompiledPrompt, name: str,
                                                         tool: str) -> None:
    assert advice(native, name) == f"tool {name!r} is not offered (the tool for that here is " \
                                   f"{tool!r})"


@pytest.mark.parametrize(("name", "meant"), [
    ("read_files", "read_file"), ("ReadFile", "read_file"), ("web-fetch", "web_fetch"),
    ("mcp__github__create_isue", "mcp__github__create_issue"),
])
def test_a_misspelled_offered_name_is_a_spelling(native: CompiledPrompt, name: str,
                                                 meant: str) -> None:
    assert f"(did you mean {meant!r}?)" in advice(native, name)


def test_a_bare_mcp_tool_name_points_at_its_server(native: CompiledPrompt) -> None:
    """`create_issue` has the word `create`, but it is an MCP tool's own name: no alias
    advice (write_to_file) contradicts where it lives."""
    said = native.tools.decode("create_issue", {}).message  # type: ignore[union-attr]
    assert "write_to_file" not in said.split(";")[0]
    assert "call it as mcp__github__create_issue" in said


def test_every_builtin_tool_declares_aliases_and_variants_keep_them(builtins: Compiler
                                                                   ) -> None:
    for spec in builtins.registry.tools.values():
        assert spec.aliases, spec.name
    for variant in builtins.registry.variants.values():
        for spec in variant.tool_specs:
            shared = builtins.registry.tools.get(spec.name)
            if shared is not None and spec is not shared:
                assert spec.aliases == shared.aliases, (variant.id, spec.name)


def _tool(**changes: Any) -> dict[str, Any]:
    return {"name": "deploy", "description": "Deploy the app.", **changes}


@pytest.mark.parametrize(("aliases", "says"), [
    ("ship", "aliases must be a list of names, got a string"),
    ([3], "alias 3 must be 1-64 characters"),
    (["ship it"], "alias 'ship it' must be 1-64 characters"),
    (["ship", "SHIP"], "alias 'SHIP' repeats alias 'ship'"),
    (["Deploy"], "alias 'Deploy' repeats the tool's own name"),
])
def test_bad_aliases_are_one_clear_error(aliases: Any, says: str) -> None:
    with pytest.raises(ToolSpecError) as caught:
        parse_tool(_tool(aliases=aliases), origin="tools/deploy.toml")
    assert says in str(caught.value) and "tools/deploy.toml" in str(caught.value)
    assert "aliases" in str(caught.value)


def test_a_packs_own_aliases_steer_the_advice(mini: Any) -> None:
    compiler = mini({"components/tools/echo.toml": 'name = "echo"\ndescription = "Echo."\n'
                                                   'aliases = ["say", "repeat_back"]\n'})
    tools = compiler.compile(NATIVE, make_context(None)).tools
    for name in ("say_it", "RepeatBack", "say"):
        said = tools.decode(name, {}).message  # type: ignore[union-attr]
        assert "(the tool for that here is 'echo')" in said, said


# --- bare JSON calls -------------------------------------------------------------------------

@pytest.mark.parametrize("reply", [
    '{"tool": "read_file", "path": "a.py"}',
    '{"name": "read_file", "arguments": {"path": "a.py"}}',
    '{"function": "read_file", "parameters": {"path": "a.py"}}',
    '{"tool_name": "read_file", "input": {"path": "a.py"}}',
    '{"tool": "read_file", "args": {"path": "a.py"}}',
    '{"type": "function", "function": {"name": "read_file", "arguments": "{\\"path\\": '
    '\\"a.py\\"}"}}',
    '[{"tool": "read_file", "path": "a.py"}]',
    '```json\n{"tool": "read_file", "params": {"path": "a.py"}}\n```',
])
def test_a_bare_json_call_of_any_common_shape_is_read(text: CompiledPrompt, reply: str) -> None:
    parsed = text.tools.parse(reply)
    assert parsed.call is not None and parsed.call.arguments == {"path": "a.py"}
    note = next(w for w in parsed.warnings if w.code == "foreign-format")
    assert note.suggestion == "<read_file>\n<path>a.py</path>\n</read_file>"


@pytest.mark.parametrize("reply", ['{"tool": "hammer", "input": {"x": 1}}',
                                   '{"tool": "read_file", "path": "a.py"',
                                   '{"tool_name": "read_file", "input": {"path": NaN}}'])
def test_a_bare_json_call_that_cannot_run_is_an_error(text: CompiledPrompt, reply: str) -> None:
    parsed = text.tools.parse(reply)
    assert parsed.call is None and len(parsed.errors) == 1


@pytest.mark.parametrize("reply", ['{"name": "Alice", "age": 3}', '{"tool": "hammer"}',
                                   '{"name": "Alice"}x'])
def test_json_that_is_no_call_stays_prose(text: CompiledPrompt, reply: str) -> None:
    parsed = text.tools.parse(reply)
    assert parsed.call is None and not parsed.errors and parsed.text == reply


# --- what the prompts forbid in values -------------------------------------------------------

def test_an_empty_optional_tag_is_an_error(text: CompiledPrompt) -> None:
    parsed = text.tools.parse("<search_files>\n<path>src</path>\n<regex>x</regex>\n"
                              "<file_pattern></file_pattern>\n</search_files>")
    [error] = parsed.errors
    assert (error.code, error.problems[0].parameter) == ("bad-value", "file_pattern")
    assert "empty tag" in error.message
    empty_file = text.tools.parse("<write_to_file>\n<path>a</path>\n<content></content>\n"
                                  "</write_to_file>")
    assert empty_file.call is not None  # a required value may be empty: an empty file


def test_merge_conflict_markers_in_a_diff_are_an_error(text: CompiledPrompt,
                                                       native: CompiledPrompt) -> None:
    diff = "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE"
    parsed = text.tools.parse(f"<replace_in_file>\n<path>a.py</path>\n<diff>\n{diff}\n</diff>\n"
                              "</replace_in_file>")
    [error] = parsed.errors
    assert "merge-conflict markers" in error.message and "------- SEARCH" in error.message
    decoded = native.tools.decode("replace_in_file", {"path": "a.py", "diff": diff})
    assert decoded.code == "bad-value"  # type: ignore[union-attr]
    resolving = "------- SEARCH\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> main\n=======\na\n" \
                "+++++++ REPLACE"
    # a file's own conflict markers, in SEARCH, are content: the edit that resolves them runs
    resolved = native.tools.decode("replace_in_file", {"path": "a.py", "diff": resolving})
    assert type(resolved).__name__ == "ToolCall"


def test_a_patch_without_its_end_is_an_error(builtins: Compiler) -> None:
    codex = builtins.compile(ProviderInfo("openai", "gpt-5-codex"), make_context("full"))
    assert "apply_patch" in codex.tools.names
    whole = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
    assert type(codex.tools.decode("apply_patch", {"input": whole})).__name__ == "ToolCall"
    for cut, says in ((whole.replace("*** End Patch\n", ""), "no closing *** End Patch"),
                      (whole.replace("*** Begin Patch\n", ""), "must start with")):
        error = codex.tools.decode("apply_patch", {"input": cut})
        assert error.code == "bad-value" and says in error.message  # type: ignore[union-attr]


def test_xml_entities_are_a_warning_not_an_error(text: CompiledPrompt) -> None:
    parsed = text.tools.parse("<write_to_file>\n<path>a.html</path>\n<content>&lt;div&gt;"
                              "</content>\n</write_to_file>")
    assert parsed.call is not None and parsed.call.arguments["content"] == "&lt;div&gt;"
    [warning] = parsed.call.warnings
    assert warning.code == "xml-entities" and "&lt;" in warning.message
    plain = text.tools.parse("<write_to_file>\n<path>a.html</path>\n<content><div>&</content>\n"
                             "</write_to_file>")
    assert plain.call is not None and plain.call.warnings == ()
