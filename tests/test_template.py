"""Templates: parsed once, refused when they use partials or delimiters, values kept opaque."""

from __future__ import annotations

import pytest

from promptc import TemplateError
from promptc._text.template import Value, compile_template, render


def pieces(text: str, **data: object) -> list[object]:
    return render(compile_template(text, "t.md"), [data], [])


def test_values_become_opaque_atoms_and_literals_stay_text() -> None:
    assert pieces("Hi {{name}}!", name="<b>&") == ["Hi ", Value("<b>&"), "!"]
    assert pieces("{{{name}}} {{&name}}", name="x") == [Value("x"), " ", Value("x")]


def test_whitespace_in_tags_is_tolerated() -> None:
    t = compile_template("{{ NAME }} and {{NAME}}", "t.md")
    assert t.top_names == ("NAME",)
    assert render(t, [{"NAME": "v"}], []) == [Value("v"), " and ", Value("v")]


def test_sections_iterate_lists_and_skip_blank_text() -> None:
    assert pieces("{{#items}}[{{name}}]{{/items}}", items=[{"name": "a"}, {"name": "b"}]) == [
        "[", Value("a"), "]", "[", Value("b"), "]"]
    assert pieces("{{#x}}yes{{/x}}{{^x}}no{{/x}}", x="   ") == ["no"]
    assert pieces("{{#x}}yes{{/x}}", x=False) == []
    assert pieces("{{#x}}{{y}}{{/x}}", x={"y": "inner"}) == [Value("inner")]


def test_dotted_names_reach_only_mappings() -> None:
    assert pieces("{{a.b}}", a={"b": "x"}) == [Value("x")]

    class Secret:
        b = "leak"
    assert pieces("{{a.b}}{{a.__class__}}", a=Secret()) == []


def test_non_text_values_are_reported_not_rendered() -> None:
    seen: list[tuple[str, str, int]] = []
    out = render(compile_template("x\n{{items}}", "t.md"), [{"items": [1, 2]}], [],
                 lambda n, m, line: seen.append((n, m, line)))
    assert out == ["x\n"]
    assert seen == [("items", "is list, not text", 2)]


@pytest.mark.parametrize(("text", "message"), [
    ("a\n{{#s}}\nx", r"t\.md:2: section \{\{#s\}\} is never closed"),
    ("{{#a}}x{{/b}}", r"t\.md:1: closing tag \{\{/b\}\} does not match \{\{#a\}\}"),
    ("a\nb\n{{/x}}", r"t\.md:3: closing tag \{\{/x\}\} has no open section"),
    ("a\n{{}}", r"t\.md:2: empty tag"),
    ("{{> other}}", r"t\.md:1: partial tag"),
    ("{{> ../../etc/passwd}}", r"t\.md:1: partial tag"),
    ("x\n{{=<% %>=}}", r"t\.md:2: set-delimiter tags are not allowed"),
    ("x\n{{open", r"t\.md:2: unclosed tag"),
])
def test_bad_templates_name_file_and_line(text: str, message: str) -> None:
    with pytest.raises(TemplateError, match=message):
        compile_template(text, "t.md")


def test_name_lines_point_at_first_use() -> None:
    t = compile_template("a\n\n{{ONE}}\n{{#list}}\n{{TWO}}\n{{/list}}\n", "t.md")
    assert t.name_lines["ONE"] == 3
    assert t.name_lines["TWO"] == 5
    assert t.top_names == ("ONE", "list")


def test_crlf_templates_are_normalized() -> None:
    assert pieces("a\r\n{{x}}\r\n", x="v") == ["a\n", Value("v"), "\n"]


@pytest.mark.parametrize("text", ["{{ > x }}", "{{ #x }}a{{ /x }}", "{{a b}}", "{{x!}}"])
def test_tag_names_with_sigils_or_spaces_are_refused(text: str) -> None:
    with pytest.raises(TemplateError, match="invalid tag name"):
        compile_template(text, "t.md")
