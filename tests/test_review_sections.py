"""A review files every changed line under its own section, in every output form.

The case: one line of `objective` changes (its last one, so the edit touches the boundary) and
the next section, `working_style`, is emptied. The removed lines must be shown under
`working_style`, never inside the `objective` hunk, in text, markdown, JSON and HTML, and the
per-section token deltas must add up to the prompt's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from promptc import Compiler, ProviderInfo
from promptc._cli import main
from promptc._load.sources import builtin_root
from promptc._review.diff import review_prompts
from promptc.testing import make_context


CONTEXTS = Path(__file__).resolve().parent.parent / "promptc" / "_data" / "snapshot" / "contexts"
ADDED = " Check twice."


@pytest.fixture(scope="module")
def review_args(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """`snapshot --check` options for a folder of built-in snapshots and a project that makes
    the change above."""
    work = tmp_path_factory.mktemp("sections")
    (work / "matrix.toml").write_text(
        f'[contexts]\nminimal = "{(CONTEXTS / "minimal.json").as_posix()}"\n\n'
        '[[case]]\nprovider = "anthropic"\nmodel = "claude-sonnet-4-5"\n', encoding="utf-8")
    common = ["--matrix", str(work / "matrix.toml"), "--dir", str(work / "snaps")]
    assert main(["snapshot", "--update", "--builtins-only", *common]) == 0
    project = work / "project"
    objective = (builtin_root() / "components" / "objective.md").read_text(encoding="utf-8")
    lines = objective.rstrip("\n").split("\n")
    lines[-1] += ADDED
    (project / "components").mkdir(parents=True)
    (project / "components" / "objective.md").write_text("\n".join(lines) + "\n",
                                                         encoding="utf-8")
    style = project / "variants" / "native-next-gen" / "components"
    style.mkdir(parents=True)
    (style / "working_style.md").write_text("", encoding="utf-8")
    return ["snapshot", "--check", "--no-user", "--no-plugins", "--project", str(project),
            "--lines", "all", *common]


def check(capsys: pytest.CaptureFixture[str], args: list[str], *extra: str) -> str:
    capsys.readouterr()
    assert main([*args, *extra]) == 1
    return capsys.readouterr().out


def test_json_files_each_line_under_its_section(review_args: list[str],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    [case] = json.loads(check(capsys, review_args, "--json"))["changed"]
    changes = {c["id"]: c for c in case["changes"]}
    objective, style = changes["objective"]["diff"], changes["working_style"]["diff"]
    assert ADDED.strip() in objective and "Working style" not in objective
    assert changes["working_style"]["status"] == "removed"
    assert "-# Working style" in style and "+" not in {line[:1] for line in style.split("\n")}
    assert changes["objective"]["tokens_delta"] < 10
    assert sum(c["tokens_delta"] for c in case["changes"]) == case["tokens_delta"]


def test_text_files_each_line_under_its_section(review_args: list[str],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    blocks: dict[str, list[str]] = {}
    current = None
    for line in check(capsys, review_args).splitlines():
        head = re.match(r"  (\S+) · ", line)
        if head:
            current = head.group(1)
            blocks[current] = []
        elif current is not None and line.startswith("    "):
            blocks[current].append(line[4:])
    assert any(ADDED.strip() in line for line in blocks["objective"])
    assert not any("Working style" in line for line in blocks["objective"])
    assert "-# Working style" in blocks["working_style"]


def test_markdown_files_each_line_under_its_section(review_args: list[str],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    page = check(capsys, review_args, "--format", "markdown")
    diffs = dict(re.findall(r"\*\*`([a-z_()]+)` ·[^\n]*\n\n(?:[^\n]*\n\n)?```diff\n(.*?)```",
                            page, re.S))
    assert ADDED.strip() in diffs["objective"] and "Working style" not in diffs["objective"]
    assert "-# Working style" in diffs["working_style"]


def test_html_files_each_line_under_its_section_and_colours_by_cache(
        review_args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    page = check(capsys, review_args, "--format", "html")
    parts = re.split(r"<h3><code>([a-z_()]+)</code>", page)
    tables = dict(zip(parts[1::2], parts[2::2]))
    assert "Working style" not in tables["objective"] and "Check" in tables["objective"]
    assert '<td class="del"># Working style</td>' in tables["working_style"]
    # the removed section's bar keeps its cache class (static), not the "unknown" colour
    [segment] = re.findall(r'<span class="seg ([a-z ]+)"[^>]*title="working_style:', page)
    assert segment.split()[0] == "static"
    # a label inside a bar segment fits it; every section is named in the key below the bars
    for width, label in re.findall(r'style="width:([\d.]+)%"[^>]*>([^<]+)</span>', page):
        assert float(width) >= 1.0 * len(label), (label, width)
    for sid in ("agent_role", "objective", "working_style", "request_info"):
        assert f'<td class="key"><code>{sid}</code>' in page, sid


def test_two_renders_add_up_and_show_a_removed_sections_lines(builtins: Compiler) -> None:
    ctx = make_context("minimal")
    sonnet = ProviderInfo("anthropic", "claude-sonnet-4-5")
    a = builtins.compile(sonnet, ctx, variant="native-next-gen", count_tokens=True)
    b = builtins.compile(sonnet, ctx, variant="compact", count_tokens=True)
    review = review_prompts(a, b)
    assert sum(s.tokens_delta for s in review.sections) == review.tokens_delta
    style = next(s for s in review.sections if s.id == "working_style")
    assert style.status == "removed" and "-# Working style" in style.unified()
