"""Values are data: any string in any value slot comes out as it went in (outside text that a
built-in data function fences comes out in its documented fenced form).

Each property renders a prompt twice: once with a neutral marker in the slot, once with an arbitrary
string. The second output must be the first with the marker replaced: the value is neither
expanded as mustache, nor HTML-escaped, nor touched by post-processing, and it does not change how
anything around it is cleaned, even when it imitates headers, separators, diff markers or blank runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptc import Compiler, PromptContext, ProviderInfo
from promptc._text.fence import attribute, body, one_line

from .conftest import write_tree

MARK = "QQ9MARKQQ"
P = ProviderInfo("x", "y")

TREE = {
    "variants/v/variant.toml": (
        'fallback = true\ntool_mode = "text"\n'
        'components = ["intro", "user_instructions", "mcp_servers", "skills", "system_info"]\n'
        '[inputs.TEAM]\ntype = "string"\nmultiline = true\n'),
    "variants/v/template.md": (
        "{{intro}}\n\n====\n\n{{user_instructions}}\n\n====\n\n{{mcp_servers}}\n\n====\n\n"
        "{{skills}}\n\n====\n\n{{system_info}}\n\n====\n\n## Team\nTeam: {{TEAM}}\n\n## End\n"),
    "components/intro.md": "# Intro\nHello.\n\n## Empty part\n",
    "components/user_instructions.md": "# Rules\n{{#rules}}\n\n## {{name}}\n{{text}}\n{{/rules}}\n",
    "components/mcp_servers.md": (
        "# MCP\n{{#servers}}\n\n## {{name}}\n{{#tools}}\n- {{name}}: {{description}}\n"
        "```json\n{{schema}}\n```\n{{/tools}}\n{{/servers}}\n"),
    "components/skills.md": "# Skills\n{{#skills}}\n- {{name}}: {{description}}\n{{/skills}}\n",
    "components/system_info.md": "# System\nWorking directory: {{cwd}}\n",
}

# Strings that imitate what templates and the post-processor key on, mixed with anything at all.
tricky = st.sampled_from([
    "{{X}}", "{{#a}}x{{/a}}", "{{> p}}", "{{=<% %>=}}", "{{{y}}}", "{{}}", "<b>&amp;\"'", "\n",
    "\n\n\n\n", "====", "\n====\n", "=======", "------- SEARCH", "+++++++ REPLACE", "## ",
    "\n## Header\n", "# ", "```", "~~~", "\r\n", "\t", " ", "$1 \\ % {}", "<|endoftext|>",
])
values = st.lists(st.one_of(tricky, st.text(max_size=20)), min_size=1, max_size=8).map("".join)
non_blank = values.filter(lambda v: v.strip() != "" and MARK not in v)
# a name or path made one line (control characters become spaces) must still show something
attribute_value = non_blank.filter(lambda v: one_line(v).strip() != "")


def lf(value: str) -> str:
    """Text fields (rules, descriptions, skill content, runtime values) fold CRLF and CR to LF
    when a record is made; names and paths stay exactly as given."""
    return value.replace("\r\n", "\n").replace("\r", "\n")

SETTINGS = settings(deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@pytest.fixture(scope="module")
def compiler(tmp_path_factory: pytest.TempPathFactory) -> Compiler:
    return Compiler.from_folders(write_tree(tmp_path_factory.mktemp("v"), TREE), builtins=False)


def base(**kw: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "cwd": "/w", "runtime": {"TEAM": "infra"},
        "rules": [{"name": "project", "text": "Use tabs."}],
        "mcp_servers": [{"name": "gh", "tools": [{"name": "t", "description": "d",
                                                  "input_schema": {"type": "object"}}]}],
        "skills": [{"name": "release", "description": "How to release."}],
    }
    data.update(kw)
    return data


def check(compiler: Compiler, build: Callable[[str], dict[str, Any]], value: str,
          rendered: Callable[[str], str] = lambda v: v) -> None:
    neutral = compiler.compile(P, PromptContext(**build(MARK))).text
    actual = compiler.compile(P, PromptContext(**build(value)))
    assert not actual.diagnostics
    assert actual.text == neutral.replace(rendered(MARK), rendered(value))


def fenced_body(value: str) -> str:
    """Outside text in an element body: verbatim but for closing fence tags (see
    promptc._text.fence), after the record folded its line endings."""
    return body(lf(value))


@SETTINGS
@given(non_blank)
def test_runtime_placeholder(compiler: Compiler, value: str) -> None:
    """A runtime input is outside text too (issue 32): neutralised like a rules file's body."""
    check(compiler, lambda v: base(runtime={"TEAM": v}), value, fenced_body)


@SETTINGS
@given(non_blank)
def test_rules_text(compiler: Compiler, value: str) -> None:
    check(compiler, lambda v: base(rules=[{"name": "project", "text": v}]), value, fenced_body)


@SETTINGS
@given(attribute_value)
def test_rule_name_and_cwd(compiler: Compiler, value: str) -> None:
    """Names and paths are attribute values: one line, XML-escaped."""
    check(compiler, lambda v: base(rules=[{"name": v, "text": "x"}], cwd=v), value, attribute)


@SETTINGS
@given(attribute_value)
def test_mcp_server_and_tool_names(compiler: Compiler, value: str) -> None:
    check(compiler, lambda v: base(mcp_servers=[{"name": v, "tools": [
        {"name": v, "description": "d", "input_schema": {"type": "object"}}]}]), value,
        attribute)


@SETTINGS
@given(non_blank)
def test_mcp_tool_descriptions(compiler: Compiler, value: str) -> None:
    check(compiler, lambda v: base(mcp_servers=[{"name": "gh", "tools": [
        {"name": "t", "description": v, "input_schema": {"type": "object"}}]}]), value,
        fenced_body)


@SETTINGS
@given(non_blank)
def test_mcp_schema_strings(compiler: Compiler, value: str) -> None:
    def build(v: str) -> dict[str, Any]:
        return base(mcp_servers=[{"name": "gh", "tools": [{"name": "t", "description": "d",
                                  "input_schema": {"type": "object", "description": v,
                                                   "properties": {v: {"enum": [v]}}}}]}])
    out = compiler.compile(P, PromptContext(**build(value))).text
    schema = build(value)["mcp_servers"][0]["tools"][0]["input_schema"]
    assert body(json.dumps(schema, ensure_ascii=False, separators=(",", ":"))) in out


@SETTINGS
@given(attribute_value)
def test_skill_name(compiler: Compiler, value: str) -> None:
    check(compiler, lambda v: base(skills=[{"name": v, "description": "d"}]), value, attribute)


@SETTINGS
@given(non_blank)
def test_skill_description(compiler: Compiler, value: str) -> None:
    check(compiler, lambda v: base(skills=[{"name": "s", "description": v}]), value,
          fenced_body)


def test_blank_values_make_their_section_absent(compiler: Compiler, tmp_path: Path) -> None:
    out = compiler.compile(P, PromptContext(**base(rules=[{"name": "p", "text": " \n "}])))
    assert "# Rules" not in out.text


@pytest.fixture(scope="module")
def shipped() -> Compiler:
    return Compiler.builtins()


@SETTINGS
@given(non_blank)
def test_builtin_prompts_keep_rules_and_mcp_text_verbatim(shipped: Compiler, value: str) -> None:
    """The same property through the shipped templates (text variant, then native)."""
    def build(v: str) -> dict[str, Any]:
        return base(rules=[{"name": "project", "text": v}], runtime={},
                    mcp_servers=[{"name": "gh", "tools": [{"name": "t", "description": v,
                                                           "input_schema": {"type": "object"}}]}])
    for provider in (ProviderInfo("openai", "gpt-4.1"), ProviderInfo("anthropic",
                                                                      "claude-sonnet-4-5")):
        neutral = shipped.compile(provider, PromptContext(**build(MARK))).text
        actual = shipped.compile(provider, PromptContext(**build(value)), strict=True).text
        assert actual == neutral.replace(MARK, fenced_body(value))


def test_line_endings_in_text_fields_fold_to_lf() -> None:
    ctx = PromptContext(**base(rules=[{"name": "a\r\nb", "text": "x\r\ny\rz"}],
                              skills=[{"name": "s", "description": "d\r\n", "content": "c\r"}]))
    assert ctx.rules[0].text == "x\ny\nz" and ctx.rules[0].name == "a\r\nb"
    assert (ctx.skills[0].description, ctx.skills[0].content) == ("d\n", "c\n")
