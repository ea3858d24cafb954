"""Post-processing: empty sections, dangling headers and separators go; nothing else changes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from promptc._text.cleanup import clean, clean_text, is_separator
from promptc._text.template import Value


def test_dangling_headers_and_separators_are_removed() -> None:
    text = "# A\n## Empty\n\n====\n\n====\n# B\nbody\n## Tail\n====\n"
    assert clean_text(text) == "# B\nbody"


def test_nested_headers_keep_their_parents_only_with_content() -> None:
    assert clean_text("# Top\n## Sub\n### Leaf\ntext\n") == "# Top\n## Sub\n### Leaf\ntext"
    assert clean_text("# Top\n## Sub\n### Leaf\n## Other\n") == ""
    assert clean_text("# Top\nintro\n## Empty\n") == "# Top\nintro"


def test_blank_runs_collapse_and_edges_are_trimmed() -> None:
    assert clean_text("\n\n\na\n\n\n\nb\n\n") == "a\n\nb"


def test_separator_spacing_is_kept_when_both_sides_have_content() -> None:
    assert clean_text("a\n\n====\n\nb") == "a\n\n====\n\nb"
    assert clean_text("a\n====\nb") == "a\n====\nb"


def test_diff_markers_are_never_separators_however_long_the_lines_between() -> None:
    long = "x" * 10_000
    block = f"------- SEARCH\n{long}\n\n\n=======\n## not a header\n====\n+++++++ REPLACE"
    assert clean_text(f"# Edit\n{block}\n") == f"# Edit\n{block}"
    assert not is_separator("=======")
    assert is_separator("====") and is_separator("=" * 100_000)


def test_fenced_code_is_verbatim() -> None:
    fenced = "```\n## header\n\n\n\n====\n```"
    assert clean_text(f"# Code\n{fenced}\n") == f"# Code\n{fenced}"
    tilde = "~~~~\n```\n## x\n```\n====\n~~~~"
    assert clean_text(tilde) == tilde


def test_values_are_opaque_whatever_they_imitate() -> None:
    value = "## Looks like a header\n====\n\n\n\n------- SEARCH\n```"
    out = clean(["# Rules\n", Value(value), "\n\n## After\ntext\n"])
    assert out == f"# Rules\n{value}\n\n## After\ntext"


def test_whitespace_only_values_are_absent() -> None:
    assert clean(["# Rules\n", Value("  \n\t"), "\n====\nnext"]) == "next"


def test_a_value_never_rescues_or_removes_template_structure() -> None:
    # The header stays because a value follows; the value's own "header" does not count.
    assert clean(["## H\n", Value("x"), "\n## Empty\n"]) == "## H\nx"


lines = st.sampled_from(["# H1", "## H2", "### H3", "====", "=======", "", "   ", "text",
                         "```", "~~~", "------- SEARCH", "+++++++ REPLACE", "- item",
                         "====  ", "#notaheader"])


@settings(deadline=None)
@given(st.lists(lines, max_size=40))
def test_cleanup_is_idempotent(parts: list[str]) -> None:
    once = clean_text("\n".join(parts))
    assert clean_text(once) == once


@settings(deadline=None)
@given(st.lists(lines, max_size=30), st.text(max_size=60))
def test_values_survive_verbatim(parts: list[str], value: str) -> None:
    text = "\n".join(parts)
    out = clean([text + "\n", Value(value), "\n" + text])
    if value.strip():
        assert value in out
