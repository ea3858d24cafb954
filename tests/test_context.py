"""PromptContext: loading JSON/TOML, and errors that name the field and the file."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from promptc import ContextError, PromptContext, ProviderInfo, Rule

from .conftest import CONTEXTS


def test_every_fixture_loads_and_round_trips() -> None:
    for path in sorted(CONTEXTS.glob("*.json")):
        ctx = PromptContext.load(path)
        again = PromptContext.from_dict(ctx.to_dict())
        assert again == ctx and hash(again) == hash(ctx)


def test_toml_and_json_give_the_same_context(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(
        'cwd = "/w"\nmode = "plan"\ndate = "2026-01-01"\n'
        '[provider]\nid = "openai"\nmodel = "gpt-5"\n'
        '[[rules]]\nname = "p"\ntext = "Use tabs."\n'
        '[features]\nbrowser = true\n', encoding="utf-8")
    (tmp_path / "c.json").write_text(
        '{"cwd": "/w", "mode": "plan", "date": "2026-01-01",'
        ' "provider": {"id": "openai", "model": "gpt-5"},'
        ' "rules": [{"name": "p", "text": "Use tabs."}], "features": {"browser": true}}',
        encoding="utf-8")
    a = PromptContext.load(tmp_path / "c.toml")
    b = PromptContext.load(tmp_path / "c.json")
    assert a == b
    assert a.provider == ProviderInfo("openai", "gpt-5")
    assert a.rules == (Rule("p", "Use tabs."),)
    assert a.feature("browser") is True


@pytest.mark.parametrize(("content", "message"), [
    ('{"rulez": []}', r"c\.json \[rulez\]: unknown field \(did you mean 'rules'\?\)"),
    ('{"cwd": 3}', r"c\.json \[cwd\]: must be a string, got an integer"),
    ('{"mode": "auto"}', r"c\.json \[mode\]: must be one of 'act', 'plan'"),
    ('{"date": "15/01/2026"}', r"c\.json \[date\]: must be an ISO date"),
    ('{"rules": [{"name": "a"}]}', r"c\.json \[rules\[0\]\]: .*text"),
    ('{"rules": [{"name": "a", "text": "x", "from": "y"}]}',
     r"c\.json \[rules\[0\]\.from\]: unknown field"),
    ('{"mcp_servers": [{"name": "s", "tools": [{"name": "t", "input_schema": []}]}]}',
     r"\[mcp_servers\[0\]\.tools\[0\]\.input_schema\]: must be a table"),
    ('{"skills": [{"name": "s", "references": "docs/x.md"}]}',
     r"\[skills\[0\]\.references\]: must be a list"),
    ('{"provider": {"id": "a", "model": "b", "native": true}}', r"\[provider\.native\]"),
    ('{"features": []}', r"\[features\]: must be a table"),
    ('[1, 2]', r"c\.json: the context must be a table"),
    ('{"cwd": "/a",}', r"c\.json:1: invalid JSON"),
])
def test_bad_contexts_name_the_file_and_field(tmp_path: Path, content: str,
                                              message: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ContextError, match=message):
        PromptContext.load(path)


def test_missing_and_unsupported_files(tmp_path: Path) -> None:
    with pytest.raises(ContextError, match=r"nope\.json: file not found"):
        PromptContext.load(tmp_path / "nope.json")
    (tmp_path / "c.yaml").write_text("cwd: x", encoding="utf-8")
    with pytest.raises(ContextError, match=r"c\.yaml: unsupported file type \.yaml"):
        PromptContext.load(tmp_path / "c.yaml")


def test_toml_syntax_errors_carry_the_line(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('cwd = "/w"\nmode = \n', encoding="utf-8")
    with pytest.raises(ContextError, match=r"c\.toml:2: invalid TOML"):
        PromptContext.load(path)


def test_bom_crlf_and_bad_utf8(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b'\xef\xbb\xbf{"rules": [{"name": "r", "text": "a\\r\\nb"}]}\r\n')
    assert PromptContext.load(path).rules[0].text == "a\nb"
    path.write_bytes(b'{"cwd": "\xff"}')
    with pytest.raises(ContextError, match=r"c\.json:1: not valid UTF-8"):
        PromptContext.load(path)


def test_runtime_text_values_fold_line_endings_like_other_text_fields() -> None:
    crlf = PromptContext.from_dict({"runtime": {"note": "a\r\nb\rc", "count": 2}})
    assert crlf.runtime == {"note": "a\nb\nc", "count": 2}
    assert crlf == PromptContext.from_dict({"runtime": {"note": "a\nb\nc", "count": 2}})


def test_contexts_are_hashable_and_equal_by_value() -> None:
    a = PromptContext.from_dict({"features": {"browser": True},
                                 "mcp_servers": [{"name": "s", "tools": [
                                     {"name": "t", "input_schema": {"type": "object"}}]}]})
    b = PromptContext.from_dict({"features": {"browser": True},
                                 "mcp_servers": [{"name": "s", "tools": [
                                     {"name": "t", "input_schema": {"type": "object"}}]}]})
    assert a == b and hash(a) == hash(b) and a is not b
    assert {a: 1}[b] == 1


def test_deeply_nested_schemas_do_not_hit_the_recursion_limit() -> None:
    schema: dict = {"type": "object"}
    node = schema
    for _ in range(3000):
        node["properties"] = {"x": {"type": "object"}}
        node = node["properties"]["x"]
    ctx = PromptContext(mcp_servers=[{"name": "s", "tools": [
        {"name": "t", "input_schema": schema}]}])
    assert hash(ctx) == hash(ctx)


def test_toml_native_dates_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("date = 2026-01-15\n", encoding="utf-8")
    assert PromptContext.load(path).date == "2026-01-15"


PLAIN_TABLES = [
    {}, {"cwd": "/w", "mode": "plan", "date": "2026-01-01", "features": {"browser": True}},
    {"rules": [{"name": "p", "text": "a\r\nb"}], "runtime": {"X": 1.0, "Y": "v\r"}},
    {"mcp_servers": [{"name": "s", "url": "http://x", "tools": [
        {"name": "t", "input_schema": {"type": "object"}, "annotations": {"readOnlyHint": True}}],
        "resources": [{"uri": "r://x"}]}], "skills": [{"name": "k", "references": ["a.md"]}]},
    {"provider": ProviderInfo("openai", "gpt-5"), "attachments": [{"name": "a.png"}],
     "workspace_roots": [{"path": "/a"}, {"path": "/b", "vcs": "git"}]},
]
REFUSED_TABLES = [{"cwd": 1}, {"mode": "walk"}, {"date": "tomorrow"}, {"rules": [{"text": "x"}]},
                  {"features": {"browser": 1}}, {"rules": "not a list"},
                  {"mcp_servers": [{"name": "s", "tools": [{"name": 2}]}]}]


@pytest.mark.parametrize("table", PLAIN_TABLES)
def test_plain_data_builds_what_the_constructor_makes(table: dict[str, object]) -> None:
    """A context from plain data (nested records from their tables) equals the one the
    constructor makes, field for field, and hashes alike."""
    made = PromptContext.from_dict(dict(table))
    expected = PromptContext(**table)  # type: ignore[arg-type]
    assert made == expected and hash(made) == hash(expected)
    names = [f.name for f in attrs.fields(PromptContext)]
    assert [getattr(made, name) for name in names] == [getattr(expected, name) for name in names]


@pytest.mark.parametrize("table", REFUSED_TABLES)
def test_what_the_constructor_refuses_from_data_is_explained(table: dict[str, object]) -> None:
    with pytest.raises(ContextError) as info:
        PromptContext.from_dict(table)
    assert info.value.field  # the error names the field at fault


# --- lone surrogates: refused on every path in, naming the field (issue 33, H15) ---------------

SURROGATE_CASES = [
    ({"cwd": "/w\ud800"}, "cwd"),
    ({"rules": [{"name": "r", "text": "ok", "origin": "x\udfff"}]}, "rules[0].origin"),
    ({"runtime": {"NAME": ["a", "b\ud800"]}}, "runtime.NAME[1]"),
    ({"runtime": {"N\ud800": "a"}}, "runtime.N\\ud800"),
    ({"features": {"x\udc00": True}}, "features.x\\udc00"),
    ({"provider": {"id": "openai", "model": "gpt-5\ud800"}}, "provider.model"),
    ({"mcp_servers": [{"name": "s", "tools": [{"name": "t", "input_schema": {
        "type": "object", "properties": {"p": {"description": "\udbff"}}}}]}]},
     "mcp_servers[0].tools[0].input_schema.properties.p.description"),
    ({"attachments": [{"name": "a.png", "type": "image/\ud800"}]}, "attachments[0].type"),
]


@pytest.mark.parametrize(("data", "field"), SURROGATE_CASES)
def test_a_lone_surrogate_in_plain_data_is_a_context_error_naming_the_field(
        data: dict[str, object], field: str) -> None:
    with pytest.raises(ContextError, match="lone surrogate") as err:
        PromptContext.from_dict(data)
    assert err.value.field == field
    str(err.value).encode("utf-8")  # the message itself can be printed


@pytest.mark.parametrize(("data", "field"), SURROGATE_CASES)
def test_a_compiler_refuses_a_lone_surrogate_in_a_context_dict(
        data: dict[str, object], field: str) -> None:
    from promptc import Compiler
    with pytest.raises(ContextError) as err:
        Compiler.default().compile(ProviderInfo("anthropic", "claude-sonnet-4-5"), data)
    assert err.value.field == field


def test_records_made_in_python_refuse_a_lone_surrogate_too() -> None:
    for make, field in [(lambda: PromptContext(cwd="\ud800"), "cwd"),
                        (lambda: PromptContext(runtime={"A": "\ud800"}), "runtime.A"),
                        (lambda: PromptContext(rules=[{"name": "r", "text": "\udc00"}]),
                         "rules[0].text"),
                        (lambda: Rule("r", "\udc00"), "text"),
                        (lambda: ProviderInfo("openai", "gpt-5", family="\ud800"), "family")]:
        with pytest.raises(ContextError, match="lone surrogate") as err:
            make()
        assert err.value.field == field


def test_a_surrogate_pair_written_as_one_character_is_fine() -> None:
    ctx = PromptContext.from_dict({"cwd": "/w/\U0001f600", "runtime": {"A": "é\U0001f600"}})
    assert ctx.cwd == "/w/\U0001f600"


def test_an_attachment_may_give_its_size() -> None:
    """(issue 35) `size` was refused as an unknown field."""
    data = {"attachments": [{"name": "a.png", "type": "image/png", "size": 48213},
                            {"name": "b.txt"}]}
    ctx = PromptContext.from_dict(data)
    assert [a.size for a in ctx.attachments] == [48213, None]
    assert ctx.to_dict()["attachments"] == [{"name": "a.png", "type": "image/png",
                                             "size": 48213}, {"name": "b.txt", "type": ""}]
    assert PromptContext.from_dict(ctx.to_dict()) == ctx
    assert ctx != PromptContext.from_dict({"attachments": [{"name": "a.png", "type": "image/png"},
                                                           {"name": "b.txt"}]})
    for bad in (-1, "12", True, 1.5):
        with pytest.raises(ContextError) as err:
            PromptContext.from_dict({"attachments": [{"name": "a.png", "size": bad}]})
        assert err.value.field == "attachments[0].size"
