"""Tool specs: conditions, parameter dependencies, enums from the request, MCP naming, JSON."""

from __future__ import annotations

from collections.abc import Callable

import jsonschema
import pytest

from promptc import Compiler, McpServer, McpTool, PromptContext, ProviderInfo
from promptc._model.tools import mcp_bindings, sanitize_tool_name

from .conftest import load_context

TEXT = ProviderInfo("x", "y", native_tools=False)
NATIVE = ProviderInfo("anthropic", "claude-sonnet-4-5")

TOOLS = {
    "components/tools/run.toml": 'name = "run"\ndescription = "Run."\n'
                                 '[[parameters]]\nname = "cmd"\nrequired = true\n'
                                 'instruction = "Command."\n',
    "components/tools/finish.toml": (
        'name = "finish"\ndescription = "Finish."\n'
        '[[parameters]]\nname = "result"\nrequired = true\ninstruction = "Result."\n'
        '[[parameters]]\nname = "demo"\ninstruction = "A demo command."\n'
        'depends_on = ["run"]\n'),
    "components/tools/look.toml": 'name = "look"\ndescription = "Look."\n[when]\n'
                                  'has = "attachments"\n',
    "components/tools/skill.toml": (
        'name = "skill"\ndescription = "Load a skill."\n[when]\nhas = "skills"\n'
        '[[parameters]]\nname = "name"\nrequired = true\ninstruction = "Which."\n'
        'enum_from = "skills"\n'),
    "components/tools.md": "# Tools\n{{#tools}}\n## {{name}}\n{{description}}\n{{#parameters}}\n- {{name}}\n"
                           "{{/parameters}}\n{{/tools}}\n",
    "variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", "tools"]\n'
                                  'tools = ["run", "finish", "look", "skill"]\n',
    "variants/base/template.md": "{{intro}}\n{{tools}}\n",
    "variants/nat/variant.toml": 'extends = "base"\ntool_mode = "native"\n'
                                 'tools = ["finish", "look"]\n',
}


@pytest.fixture
def tc(mini: Callable[..., Compiler]) -> Compiler:
    return mini(TOOLS)


def test_conditions_are_evaluated_per_request_not_cached_across_them(tc: Compiler) -> None:
    plain = tc.compile(TEXT, PromptContext())
    with_image = tc.compile(TEXT, PromptContext(attachments=[{"name": "a.png",
                                                              "type": "image/png"}]))
    again = tc.compile(TEXT, PromptContext())
    assert "look" not in plain.tools.names and "## look" not in plain.text
    assert "look" in with_image.tools.names and "## look" in with_image.text
    assert again.tools.names == plain.tools.names


def test_parameter_dependencies_hold_in_text_and_native(tc: Compiler) -> None:
    text = tc.compile(TEXT, PromptContext())
    assert "- demo" in text.text
    [finish] = [f for f in text.tools.openai() if f["function"]["name"] == "finish"]
    assert "demo" in finish["function"]["parameters"]["properties"]
    native = tc.compile(TEXT, PromptContext(), variant="nat")  # `run` is not offered there
    [finish] = [f for f in native.tools.anthropic() if f["name"] == "finish"]
    assert list(finish["input_schema"]["properties"]) == ["result"]
    assert native.tools.mode == "native" and native.section("tools") is None


def test_enum_from_the_request(tc: Compiler) -> None:
    ctx = PromptContext(skills=[{"name": "release"}, {"name": "deploy"}])
    out = tc.compile(TEXT, ctx)
    [skill] = [f for f in out.tools.anthropic() if f["name"] == "skill"]
    assert skill["input_schema"]["properties"]["name"]["enum"] == ["release", "deploy"]


def test_returned_json_is_a_copy(tc: Compiler) -> None:
    out = tc.compile(TEXT, PromptContext())
    out.tools.openai().clear()
    assert out.tools.openai()


def test_sanitize_names() -> None:
    assert sanitize_tool_name("create issue!") == "create_issue"
    assert sanitize_tool_name("ünïcode") == "n_code"
    long = sanitize_tool_name("x" * 200)
    assert len(long) == 64 and long.startswith("x" * 55 + "_")
    assert sanitize_tool_name("x" * 200) != sanitize_tool_name("x" * 201)
    assert sanitize_tool_name("///") == "tool"


def test_mcp_collisions_are_renamed_deterministically_and_reported() -> None:
    servers = [McpServer("a", tools=[McpTool("read_file"), McpTool("query")]),
               McpServer("b", tools=[McpTool("query"), McpTool("b__query")])]
    notes: list[tuple[str, str]] = []
    bindings = mcp_bindings(servers, {"read_file"}, lambda s, m: notes.append((s, m)))
    names = [b.native_name for b in bindings]
    assert names[:3] == ["a__read_file", "query", "b__query"]
    assert names[3] != "b__query" and len(set(names)) == 4
    assert all(len(n) <= 64 for n in names)
    assert [s for s, _ in notes] == ["a/read_file", "b/query", "b/b__query"]
    assert "reserved by a built-in tool" in notes[0][1]
    assert mcp_bindings(servers, {"read_file"}) == bindings  # same input, same names


def test_builtin_native_schemas_are_valid_json_schema(builtins: Compiler) -> None:
    ctx = load_context("full")
    for vid in builtins.registry.variants:
        for provider in (TEXT, NATIVE):
            tools = builtins.compile(provider, ctx, variant=vid).tools
            for fn in tools.openai():
                jsonschema.Draft202012Validator.check_schema(fn["function"]["parameters"])
            for fn in tools.anthropic():
                jsonschema.Draft202012Validator.check_schema(fn["input_schema"])
            for decl in tools.gemini()[0]["function_declarations"]:
                jsonschema.Draft202012Validator.check_schema(decl["parameters"])
                assert "additionalProperties" not in str(decl["parameters"])


def test_native_mcp_tools_with_a_reserved_name_are_renamed(builtins: Compiler) -> None:
    ctx = PromptContext(mcp_servers=[{"name": "files", "tools": [
        {"name": "read_file", "description": "Shadow the built-in.",
         "input_schema": {"type": "object"}}]}])
    out = builtins.compile(NATIVE, ctx, variant="native-next-gen")
    assert out.tools.mode == "native"
    assert "files__read_file" in out.tools.names
    assert out.tools.mcp_target("files__read_file") == ("files", "read_file")
    [d] = [d for d in out.diagnostics if d.code == "mcp-renamed"]
    assert d.source == "files/read_file" and "reserved" in d.message


@pytest.mark.parametrize("context", ["full", "no_browser", "no_mcp", "no_rules_skills", "plan"])
def test_text_variants_list_exactly_the_enabled_tools(builtins: Compiler, context: str) -> None:
    import re
    ctx = load_context(context)
    for vid in builtins.registry.variants:
        for provider in (TEXT, NATIVE):
            out = builtins.compile(provider, ctx, variant=vid)
            section = out.section("tools")
            if out.tools.mode == "native":
                assert section is None and "<execute_command>" not in out.text
                continue
            listed = re.findall(r"^## (\S+)$", section.text, re.M)
            assert listed == [s.name for s in out.tools.specs], (vid, context)
