"""Templates: parsed once, refused when they use partials or delimiters, values kept opaque.

Mustache conformance: interpolation, sections, inverted sections and comments behave as the
mustache spec describes, except for the deviations docs/authoring.md states on purpose (no HTML
escaping, no partials, no delimiter changes, no lambdas, CRLF folded to LF, whitespace-only
strings falsy). The cases are written here, one per rule of the spec they check.

Raw renders (before promptc's clean-up) are compared, since the spec is about the template
engine; the clean-up and the layouts are checked against full renders in test_layout.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from promptc import TemplateError
from promptc._text.layout import collect
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


# --- mustache conformance -----------------------------------------------------------------------

def raw(template: str, data: Any) -> str:
    parsed = compile_template(template, "spec.md")
    return "".join(p if p.__class__ is str else p.text for p in render(parsed, [data], []))


CASES: list[tuple[str, str, Any, str]] = [
    # --- interpolation
    ("no tags", "Plain text, nothing to fill.", {}, "Plain text, nothing to fill."),
    ("a string", "Hi {{who}}!", {"who": "Ada"}, "Hi Ada!"),
    ("no escaping, double braces", "{{v}}", {"v": "<a & b \"c\">"}, "<a & b \"c\">"),
    ("no escaping, triple", "{{{v}}}", {"v": "<&>"}, "<&>"),
    ("no escaping, ampersand", "{{&v}}", {"v": "<&>"}, "<&>"),
    ("an integer", "{{n}} apples", {"n": 42}, "42 apples"),
    ("a decimal", "{{n}}", {"n": 1.25}, "1.25"),
    ("null is empty", "[{{n}}]", {"n": None}, "[]"),
    ("a miss is empty", "[{{missing}}]", {}, "[]"),
    ("dotted name", "{{a.b.c}}", {"a": {"b": {"c": "deep"}}}, "deep"),
    ("dotted name, broken chain", "[{{a.b.c}}]", {"a": {"b": {}}}, "[]"),
    ("dotted name resolves its head only once",
     "{{#s}}[{{a.b}}]{{/s}}", {"a": {"b": "outer"}, "s": {"a": {}}}, "[]"),
    ("implicit iterator at the top", "Hello, {{.}}!", "world", "Hello, world!"),
    ("padding inside the tag", "|{{ v }}|{{{ v }}}|{{& v }}|", {"v": "x"}, "|x|x|x|"),
    ("standalone lines keep their text", "  {{v}}\n", {"v": "x"}, "  x\n"),
    # --- sections
    ("truthy", "[{{#b}}yes{{/b}}]", {"b": True}, "[yes]"),
    ("falsey", "[{{#b}}yes{{/b}}]", {"b": False}, "[]"),
    ("null is falsey", "[{{#b}}yes{{/b}}]", {"b": None}, "[]"),
    ("a miss is falsey", "[{{#b}}yes{{/b}}]", {}, "[]"),
    ("a table is pushed", "{{#p}}{{name}}{{/p}}", {"p": {"name": "Lin"}}, "Lin"),
    ("parent contexts are visible", "{{#p}}{{a}},{{b}},{{c.d}}{{/p}}",
     {"a": "1", "b": "no", "p": {"b": "2"}, "c": {"d": "3"}}, "1,2,3"),
    ("a plain value is the section's dot", "{{#v}}{{.}} is {{v}}{{/v}}", {"v": "it"}, "it is it"),
    ("a number is the section's dot", "{{#n}}({{.}}){{/n}}", {"n": 7}, "(7)"),
    ("a list repeats", "{{#xs}}<{{i}}>{{/xs}}", {"xs": [{"i": 1}, {"i": 2}]}, "<1><2>"),
    ("an empty list is falsey", "[{{#xs}}x{{/xs}}]", {"xs": []}, "[]"),
    ("implicit iterator over strings", "{{#xs}}({{.}}){{/xs}}", {"xs": ["a", "b"]}, "(a)(b)"),
    ("implicit iterator over numbers", "{{#xs}}({{.}}){{/xs}}", {"xs": [1, 2.5]}, "(1)(2.5)"),
    ("implicit iterator over lists", "{{#xs}}({{#.}}{{.}}{{/.}}){{/xs}}",
     {"xs": [[1, 2], ["a", "b"]]}, "(12)(ab)"),
    ("nested lists see every level", "{{#t}}{{#m}}{{tn}}{{mn}}{{/m}}.{{/t}}",
     {"t": [{"tn": "A", "m": [{"mn": 1}, {"mn": 2}]}]}, "A1A2."),
    ("dotted section names", "{{#a.b}}in{{/a.b}}|{{#a.c}}in{{/a.c}}",
     {"a": {"b": True, "c": False}}, "in|"),
    ("nested truthy", "| A {{#b}}B {{#b}}C{{/b}} D{{/b}} E |", {"b": True}, "| A B C D E |"),
    ("nested falsey", "| A {{#b}}B {{#b}}C{{/b}} D{{/b}} E |", {"b": False}, "| A  E |"),
    ("standalone section lines vanish", "top\n{{#b}}\nmid\n{{/b}}\nend\n", {"b": True},
     "top\nmid\nend\n"),
    ("indented standalone lines vanish", "top\n  {{#b}}\nmid\n  {{/b}}\nend\n", {"b": True},
     "top\nmid\nend\n"),
    ("inline sections keep surrounding space", " {{#b}}YES{{/b}}\n {{#b}}OK{{/b}}\n",
     {"b": True}, " YES\n OK\n"),
    # --- inverted sections
    ("inverted on falsey", "[{{^b}}none{{/b}}]", {"b": False}, "[none]"),
    ("inverted on truthy", "[{{^b}}none{{/b}}]", {"b": True}, "[]"),
    ("inverted on a miss", "[{{^b}}none{{/b}}]", {}, "[none]"),
    ("inverted on an empty list", "[{{^xs}}none{{/xs}}]", {"xs": []}, "[none]"),
    ("inverted on a list", "[{{^xs}}none{{/xs}}]", {"xs": [1]}, "[]"),
    ("inverted does not push", "{{^b}}{{b}}{{/b}}", {"b": None}, ""),
    ("section and inverted together", "{{#b}}on{{/b}}{{^b}}off{{/b}}", {"b": False}, "off"),
    # --- comments
    ("inline comment", "a{{! a note }}b", {}, "ab"),
    ("multi-line comment", "a{{!\nmany\nlines\n}}b", {}, "ab"),
    ("standalone comment line vanishes", "a\n{{! note }}\nb", {}, "a\nb"),
    ("a comment may hold braces", "a{{! {x} and {y} }}b", {}, "ab"),
]


@pytest.mark.parametrize(("template", "data", "expected"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_spec_behaviour(template: str, data: Any, expected: str) -> None:
    assert raw(template, data) == expected


@pytest.mark.parametrize(("template", "data", "expected"),
                         [c[1:] for c in CASES if c[2].__class__ is dict],
                         ids=[c[0] for c in CASES if c[2].__class__ is dict])
def test_the_collect_walk_collects_what_the_render_inserts(template: str, data: Any,
                                                         expected: str) -> None:
    parsed = compile_template(template, "spec.md")
    inserted = [p.text for p in render(parsed, [data], []) if isinstance(p, Value)]
    for _ in range(2):
        found = collect(parsed, [data])
        assert found is not None
        assert found[0] == [t for t in inserted if t.strip()]


# --- the deviations, stated in docs/authoring.md ------------------------------------------------

def test_whitespace_only_strings_are_falsey() -> None:
    assert raw("[{{#v}}x{{/v}}|{{^v}}y{{/v}}]", {"v": " \n"}) == "[|y]"


@pytest.mark.parametrize("template", ["{{> p}}", "{{=<% %>=}}", "{{{x}}", "end {{", "{{x}"])
def test_refused_tags(template: str) -> None:
    with pytest.raises(TemplateError):
        compile_template(template, "spec.md")


def test_crlf_is_folded_when_a_template_is_read() -> None:
    assert raw("a\r\n{{#b}}\r\nx\r\n{{/b}}\r\nz", {"b": True}) == "a\nx\nz"


def test_nesting_is_bounded_with_a_message() -> None:
    deep = "{{#a}}" * 60 + "x" + "{{/a}}" * 60
    with pytest.raises(TemplateError, match="nested more than"):
        compile_template(deep, "spec.md")
