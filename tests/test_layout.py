"""Layouts: a render through the layout memo is byte-identical to a full render and clean-up.

The per-request path renders a template by walking it for its values and shape (compiled to
Python once per template) and joining a layout cached per shape. These properties hold that path
to the slow, obvious one (`clean(render(...))`) on random data, for templates that use every
construct: nested sections, inverted sections, lists of tables and of strings, dotted names,
numbers, booleans, blank values, and values that imitate headers, separators and diff markers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc._base.memo import Memo
from promptc._text.cleanup import clean
from promptc._text.layout import Filled, Row, collect, render_clean, stand_in
from promptc._text.template import compile_template, render

ROOT = Path(__file__).resolve().parent.parent

TEMPLATES = [
    "# Title\n{{intro}}\n\n====\n\n## Items\n{{#items}}\n- {{name}}: {{text}}\n"
    "{{#tags}}  - `{{.}}`\n{{/tags}}{{/items}}\n{{^items}}\nNo items.\n{{/items}}\n"
    "\n## Detail\n{{detail.value}} ({{count}})\n{{#flag}}\nFlag on: {{intro}}\n{{/flag}}\n",
    "{{#a}}\n# A\n{{#b}}\n## B\n{{c}}\n{{/b}}\n{{/a}}\n====\n{{d}}\n\n\n\n## Tail\n",
    "```\n{{code}}\n```\n------- SEARCH\n{{old}}\n=======\n{{new}}\n+++++++ REPLACE\n{{end}}",
]

text = st.one_of(st.sampled_from(["", " ", "\n", "x", "# Head", "====", "=======",
                                  "------- SEARCH", "```", "a\n\nb", "{{x}}", "<&>"]),
                 st.text(max_size=8))
scalar = st.one_of(text, st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2))
item = st.fixed_dictionaries({}, optional={"name": scalar, "text": scalar,
                                           "tags": st.lists(text, max_size=3)})
data = st.fixed_dictionaries({}, optional={
    "intro": scalar, "items": st.one_of(st.lists(item, max_size=3), scalar),
    "detail": st.one_of(st.fixed_dictionaries({"value": scalar}), scalar),
    "count": scalar, "flag": scalar, "a": st.one_of(st.booleans(), st.lists(item, max_size=2)),
    "b": scalar, "c": scalar, "d": scalar, "code": text, "old": text, "new": text, "end": text})


def full(template: Any, scopes: list[Any]) -> str:
    return clean(render(template, scopes, []))


@settings(deadline=None)
@given(st.sampled_from(range(len(TEMPLATES))), st.lists(data, min_size=1, max_size=4))
def test_layout_join_equals_a_full_render(which: int, requests: list[dict[str, Any]]) -> None:
    template = compile_template(TEMPLATES[which], f"t{which}")
    memo = Memo(64)
    for scope in requests:  # one memo across requests: a layout made for one serves the next
        if collect(template, [scope]) is None:
            continue  # a value that is not text: the full render reports it
        via_layout = render_clean(template, [scope], memo.get, memo.put)
        assert via_layout == full(template, [scope])


@settings(deadline=None,  # ~30 templates per example: 3 in the quick run, 300 in the deep one
          max_examples=min(300, settings.default.max_examples // 4))
@given(st.lists(data, min_size=2, max_size=4))
def test_builtin_component_templates_through_layouts(requests: list[dict[str, Any]]) -> None:
    """Every shipped component template, fed random tables, renders alike both ways."""
    for path in sorted((ROOT / "components").glob("*.md")):
        template = compile_template(path.read_text(encoding="utf-8"), str(path))
        memo = Memo(256)  # one per template, as a plan keeps one per step
        for scope in requests:
            if collect(template, [scope]) is not None:
                assert render_clean(template, [scope], memo.get, memo.put) == \
                    full(template, [scope]), path.name


def test_the_shape_tells_apart_what_cleaning_depends_on() -> None:
    template = compile_template("# H\n{{x}}\n\n# G\n{{y}}\n", "t")
    present, blank, absent = collect(template, [{"x": "a", "y": "b"}]), \
        collect(template, [{"x": " ", "y": "b"}]), collect(template, [{"y": "b"}])
    assert present is not None and blank is not None and absent is not None
    assert present[2] != blank[2] == absent[2]  # a blank value is cleaned like an absent one
    assert blank[0] == absent[0] == ["b"]
    assert collect(template, [{"x": ["a list"], "y": "b"}]) is None  # not text: full render


# --- rows: tables whose walk is kept, and rows filled in per use ------------------------------

def rows(value: Any) -> Any:
    """`value` with every table a Row."""
    if isinstance(value, dict):
        return Row({k: rows(v) for k, v in value.items()})
    if isinstance(value, list):
        return [rows(v) for v in value]
    return value


outer = st.fixed_dictionaries({}, optional={"intro": text, "name": text, "text": text,
                                            "tags": st.lists(text, max_size=2), "c": text})


@pytest.mark.property
@settings(deadline=None)
@given(st.sampled_from(range(len(TEMPLATES))), data, st.lists(outer, min_size=2, max_size=4))
def test_rows_render_as_their_tables_whatever_surrounds_them(
        which: int, scope: dict[str, Any], outers: list[dict[str, Any]]) -> None:
    """A Row keeps what a section body collects over it only when the body looked nothing up
    past the row: the same rows under other surrounding values still render as plain tables
    (a kept walk that had read the surroundings would show the first ones)."""
    template = compile_template(TEMPLATES[which], f"t{which}")
    memo = Memo(64)
    as_rows = rows(scope)
    for around in outers * 2:  # twice: the second time through the kept rows and layouts
        if collect(template, [around, as_rows], named=False) is None:
            return  # a value that is not text: the full render reports it
        assert render_clean(template, [around, as_rows], memo.get, memo.put) == \
            full(template, [around, scope])


def stand_ins(value: Any, fills: dict[str, str]) -> Any:
    """`value` with every text replaced by a stand-in (and `fills` saying what it stands for)."""
    if isinstance(value, dict):
        return {k: stand_ins(v, fills) for k, v in value.items()}
    if isinstance(value, list):
        return [stand_ins(v, fills) for v in value]
    if isinstance(value, str):
        made = stand_in("t")
        fills[made] = value
        return made
    return value


@pytest.mark.property
@settings(deadline=None)
@given(st.sampled_from(range(len(TEMPLATES))), st.lists(data, min_size=1, max_size=3))
def test_a_filled_row_renders_as_the_table_it_stands_for(which: int,
                                                         requests: list[dict[str, Any]]) -> None:
    """A shared Row with stand-ins, filled in per use, renders exactly as the table with the
    texts in place: through the row's kept walk when every filled text is text that is not
    blank, through the table otherwise."""
    template = compile_template(TEMPLATES[which], f"t{which}")
    memo = Memo(64)
    for scope in requests:
        fills: dict[str, str] = {}
        row = rows(stand_ins(scope, fills))
        for _ in range(2):
            filled = Filled(row, fills, lambda scope=scope: scope)
            if collect(template, [filled], named=False) is None:
                break
            assert render_clean(template, [filled], memo.get, memo.put) == \
                full(template, [scope])


def test_a_blank_fill_walks_the_table_instead() -> None:
    template = compile_template("# H\n{{#xs}}\n- {{name}}\n{{/xs}}\n", "t")
    name = stand_in("name")
    row = Row({"xs": [Row({"name": name})]})
    made: list[int] = []

    def table() -> dict[str, Any]:
        made.append(1)
        return {"xs": [{"name": " "}]}
    for _ in range(2):
        assert collect(template, [Filled(row, {name: "kept"}, table)], named=False) == \
            (["kept"], [], (1, 1))
    assert not made  # the row's walk served: no table was built
    assert collect(template, [Filled(row, {name: " "}, table)], named=False) == ([], [], (1, 0))
    assert made == [1]


def test_a_row_is_read_only() -> None:
    row = Row({"a": "b"})
    with pytest.raises(TypeError):
        row["a"] = "c"
    with pytest.raises(TypeError):
        row.update(a="c")
    assert row == {"a": "b"}
