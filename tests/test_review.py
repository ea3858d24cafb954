"""Prompt review: the snapshot command, the section-aware diff, tokens, the metamorphic check."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from promptc import Compiler, ProviderInfo
from promptc._cli import main
from promptc._load.sources import builtin_root
from promptc.testing import make_context, sessions_differ

from .conftest import variant_providers

REPO = Path(__file__).parent.parent
SONNET = ProviderInfo("anthropic", "claude-sonnet-4-5")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_snapshot_command_agrees_with_the_committed_snapshots(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "snapshot", "--check", "--builtins-only", "--dir",
                         str(REPO / "snapshots"))
    assert code == 0, out
    assert "match" in out
    assert err == ""  # no progress line off a terminal


def test_changing_one_sentence_is_caught_and_named_then_accepted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snaps = tmp_path / "snaps"
    shutil.copytree(REPO / "snapshots", snaps)
    original = (builtin_root() / "components" / "objective.md").read_text(encoding="utf-8")
    first = next(line for line in original.splitlines() if len(line) > 40)
    project = tmp_path / "proj"
    (project / "components").mkdir(parents=True)
    (project / "components" / "objective.md").write_text(
        original.replace(first, first + " Check twice.", 1), encoding="utf-8")
    args = ["snapshot", "--no-user", "--no-plugins", "--project", str(project), "--dir",
            str(snaps)]
    code, out, _ = run(capsys, *args, "--check")
    assert code == 1
    changed = [line for line in out.splitlines() if line.startswith("changed:")]
    assert changed, out
    assert all("(sections: objective; +" in line for line in changed), changed
    assert all("cached prefix moved" in line for line in changed), changed  # a static section
    assert any("generic__" in line for line in changed)
    # the changed sentence, once, under the section it belongs to; the other files point to it
    assert out.count("-" + first + "\n") == 1
    assert out.count("+" + first + " Check twice.\n") == 1
    assert "objective · static · changed · +" in out
    assert out.count("the same change as in") == len(changed) - 1
    code, data, _ = run(capsys, *args, "--check", "--json")
    report = json.loads(data)
    assert code == 1 and not report["clean"]
    assert all(c["sections"] == ["objective"] and c["static_prefix_moved"] is True
               for c in report["changed"])
    assert "+" + first + " Check twice." in report["changed"][0]["changes"][0]["diff"]
    code, out, _ = run(capsys, *args, "--update")
    assert code == 0 and f"{len(changed)} changed" in out
    code, out, _ = run(capsys, *args, "--check")
    assert code == 0


def test_stale_and_missing_snapshots_are_listed(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    snaps = tmp_path / "snaps"
    shutil.copytree(REPO / "snapshots", snaps)
    victim = sorted(snaps.glob("*.md"))[0]
    victim.unlink()
    # a snapshot promptc wrote (its manifest lists it) for a case the matrix no longer has (a
    # file of the user's would be left alone: see test_snapshot_writes.py and
    # test_snapshot_matrix.py)
    (snaps / "old-case.md").write_text("<!-- promptc snapshot\nvariant: gone\n-->\n\nx\n",
                                       encoding="utf-8")
    with open(snaps / ".promptc-snapshots", "a", encoding="utf-8") as manifest:
        manifest.write("old-case.md\n")
    code, out, _ = run(capsys, "snapshot", "--builtins-only", "--dir", str(snaps), "--json")
    data = json.loads(out)
    assert code == 1
    assert data["added"] == [victim.name] and data["removed"] == ["old-case.md"]
    run(capsys, "snapshot", "--update", "--builtins-only", "--dir", str(snaps))
    assert victim.exists() and not (snaps / "old-case.md").exists()


def test_diff_between_two_variants_adds_up(capsys: pytest.CaptureFixture[str]) -> None:
    ctx = str(REPO / "promptc/_data/snapshot/contexts/full.json")
    code, out, _ = run(capsys, "diff", "--builtins-only", "--provider", "anthropic", "--model",
                       "claude-sonnet-4-5", "--context", ctx, "--variant", "next-gen",
                       "--to-variant", "native-next-gen", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["from"]["variant"] == "next-gen"  # written for text tools only
    assert report["to"]["variant"] == "native-next-gen"
    assert sum(r["tokens_delta"] for r in report["sections"]) == report["tokens_delta"]
    assert report["tokens_delta"] == report["tokens_after"] - report["tokens_before"]
    statuses = {r["id"]: r["status"] for r in report["sections"]}
    assert statuses["tools"] == "removed"  # the native variant sends tools as functions
    assert report["static_prefix"]["changed"] is True


def test_diff_threshold_and_cache_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    ctx = str(REPO / "promptc/_data/snapshot/contexts/full.json")
    base = ["diff", "--builtins-only", "--provider", "anthropic", "--model", "claude-sonnet-4-5",
            "--context", ctx]
    code, out, _ = run(capsys, *base, "--to-date", "2027-03-03", "--to-cwd", "/elsewhere")
    assert code == 0 and "cached prefix (the static block): unchanged" in out
    code, _, err = run(capsys, *base, "--variant", "compact", "--to-variant", "generic",
                       "--max-growth-tokens", "100")
    assert code == 1 and "over the limit of 100" in err
    code, _, _ = run(capsys, *base, "--variant", "generic", "--to-variant", "compact",
                     "--max-growth-tokens", "0")
    assert code == 0  # shrinking is not growth


def test_diff_against_a_snapshot_folder(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    snaps = tmp_path / "snaps"
    shutil.copytree(REPO / "snapshots", snaps)
    code, out, _ = run(capsys, "diff", "--builtins-only", "--snapshots", str(snaps), "--json")
    assert code == 0 and json.loads(out)["changed"] == 0
    name = "glm__zai_glm-4.6__full.md"
    path = snaps / name
    path.write_text(path.read_text(encoding="utf-8").replace("tokens: ", "tokens: 1", 1),
                    encoding="utf-8")
    code, out, _ = run(capsys, "diff", "--builtins-only", "--snapshots", str(snaps), "--json")
    [case] = [c for c in json.loads(out)["cases"] if c["status"] != "same"]
    assert case["case"] == name[:-3] and case["tokens_delta"] < 0


def test_tokens_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tokens", "--builtins-only", "--provider", "openai", "--model",
                       "gpt-5", "--date", "2026-01-01", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["tokens"]["encoding"] == "o200k_base" and data["tokens"]["estimated"] is False
    code, out, _ = run(capsys, "tokens", "--builtins-only", "--provider", "anthropic",
                       "--model", "claude-sonnet-4-5", "--date", "2026-01-01")
    assert code == 0 and "estimate" in out
    lines = out.splitlines()
    assert lines[0].split() == ["section", "cache", "tokens", "chars"]
    at = next(i for i, line in enumerate(lines) if line.startswith("total"))
    rows = lines[2:at]
    assert sum(int(r.rsplit(None, 2)[-2]) for r in rows) == int(lines[at].split()[1])
    # native tools are counted beside the prompt, then both together
    tools, sent = lines[at + 1], lines[at + 2]
    assert tools.startswith("tools (anthropic JSON") and sent.startswith("sent before")
    assert int(sent.split()[-1]) == int(lines[at].split()[1]) + int(tools.split()[-1])


@pytest.mark.parametrize("vid", variant_providers())
def test_static_part_depends_on_neither_cwd_nor_date(builtins: Compiler, vid: str) -> None:
    import attrs
    full = make_context("full")
    other = attrs.evolve(full, cwd="/somewhere/else", date="2031-12-31", os="Darwin 24")
    report = sessions_differ(builtins, SONNET, full, other, variant=vid)
    assert report["differ"], "the two sessions should differ somewhere"
    assert all(cls != "static" for cls in report["classes"].values()), report
    assert report["static_prefix_equal"]
    assert report["fingerprints"][0]["static"] == report["fingerprints"][1]["static"]
    assert report["fingerprints"][0]["full"] != report["fingerprints"][1]["full"]


def test_new_variant_renders_exactly_like_its_base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "new-variant", "mine", "--from", "generic", "--no-user",
                       "--no-plugins")
    assert code == 0
    toml = tmp_path / ".promptc" / "variants" / "mine" / "variant.toml"
    assert toml.is_file() and 'extends = "generic"' in toml.read_text(encoding="utf-8")
    # its prose is data (promptc/_data/new_variant/), filled in, not Python's
    from promptc._review import scaffold
    written = toml.read_text(encoding="utf-8")
    prose = [line for line in written.splitlines() if line.startswith("# ") and "'" not in line]
    assert len(prose) > 5
    source = Path(scaffold.__file__).read_text(encoding="utf-8")
    assert not [line for line in prose if line[2:] in source]
    assert written.startswith("# Variant 'mine': starts as an exact copy of 'generic' and ")
    common = ["render", "--no-user", "--no-plugins", "--provider", "openai", "--model",
              "gpt-4.1", "--date", "2026-01-01", "--strict"]
    code_a, mine, _ = run(capsys, *common, "--variant", "mine")
    code_b, base, _ = run(capsys, *common, "--variant", "generic")
    assert code_a == code_b == 0
    assert mine == base
    code, _, err = run(capsys, "new-variant", "mine", "--from", "generic", "--no-user",
                       "--no-plugins")
    assert code == 2 and "already exists" in err
    code, _, err = run(capsys, "new-variant", "x2", "--from", "nope", "--no-user",
                       "--no-plugins")
    assert code == 2 and "nope" in err


# --- a review people want to read ---------------------------------------------------------------

FULL = str(REPO / "promptc/_data/snapshot/contexts/full.json")


@pytest.fixture
def sentence_project(tmp_path: Path) -> tuple[Path, str]:
    """A project whose variant `mine` is `generic` with one sentence added to `objective`."""
    original = (builtin_root() / "components" / "objective.md").read_text(encoding="utf-8")
    first = next(line for line in original.splitlines() if len(line) > 40)
    mine = tmp_path / "proj" / "variants" / "mine"
    (mine / "components").mkdir(parents=True)
    (mine / "variant.toml").write_text('extends = "generic"\n', encoding="utf-8")
    (mine / "components" / "objective.md").write_text(
        original.replace(first, first + " Check twice.", 1), encoding="utf-8")
    return tmp_path / "proj", first


def _diff_mine(project: Path, *extra: str) -> list[str]:
    return ["diff", "--no-user", "--no-plugins", "--project", str(project), "--provider",
            "openai", "--model", "gpt-4.1", "--context", FULL, "--date", "2026-01-01",
            "--variant", "generic", "--to-variant", "mine", *extra]


def test_diff_between_two_variants_prints_the_changed_sentence(
        sentence_project: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    project, first = sentence_project
    code, out, _ = run(capsys, *_diff_mine(project))
    assert code == 0
    assert "objective · static · changed · +" in out
    assert "-" + first + "\n" in out and "+" + first + " Check twice.\n" in out
    assert "cached prefix (the static block): moved" in out
    assert "\x1b" not in out  # no colour off a terminal
    head = out.split("\ncached prefix")[0].splitlines()
    rows = {line.split()[0]: line.split() for line in head if line.strip()}
    assert rows["objective"][1] == "changed" and rows["rules"][1] == "same"
    code, out, _ = run(capsys, *_diff_mine(project), "--lines", "0")
    assert code == 0 and "Check twice" not in out and "objective" in out
    code, out, _ = run(capsys, *_diff_mine(project), "--json")
    report = json.loads(out)
    [objective] = [r for r in report["sections"] if r["id"] == "objective"]
    assert objective["cache"] == "static" and "+" + first + " Check twice." in objective["diff"]
    assert all(r["diff"] == "" for r in report["sections"] if r["status"] == "same")


def test_word_level_highlighting_only_on_a_terminal_without_no_color(
        sentence_project: tuple[Path, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from promptc._cli.review import render_text
    from promptc._review.diff import review_prompts

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    project, _ = sentence_project
    compiler = Compiler.default(project=str(project), user=False, plugins=False)
    ctx = make_context("full")
    provider = ProviderInfo("openai", "gpt-4.1")
    review = review_prompts(
        compiler.compile(provider, ctx, variant="generic", count_tokens=True),
        compiler.compile(provider, ctx, variant="mine", count_tokens=True))
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setattr("sys.stdout", Terminal())
    tty = Terminal()
    render_text(tty, [review], lines=None)
    coloured = tty.getvalue()
    assert "\x1b[1;7;32m Check twice.\x1b[0m" in coloured  # only the new words stand out
    monkeypatch.setenv("NO_COLOR", "1")
    plain = Terminal()
    render_text(plain, [review], lines=None)
    assert "\x1b" not in plain.getvalue() and "Check twice." in plain.getvalue()


@pytest.mark.parametrize("provider, to_model, expected", [
    ("anthropic", "gpt-5", "openai/gpt-5"),
    ("openai", "claude-sonnet-4-5", "anthropic/claude-sonnet-4-5"),
    ("openrouter", "gpt-5", "openrouter/gpt-5"),   # a router serves every family: kept
    ("ollama", "qwen3-coder:30b", "ollama/qwen3-coder:30b"),
])
def test_to_model_alone_keeps_a_sensible_provider(provider: str, to_model: str, expected: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "diff", "--builtins-only", "--provider", provider, "--model",
                       "claude-sonnet-4-5", "--to-model", to_model, "--json")
    assert code == 0 and json.loads(out)["to"]["model"] == expected


def test_to_model_of_an_unknown_vendor_asks_for_to_provider(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "diff", "--builtins-only", "--provider", "anthropic",
                         "--model", "claude-sonnet-4-5", "--to-model", "my-finetune")
    assert code == 2 and out == "" and "--to-provider" in err and err.count("\n") == 1


def test_a_missing_snapshot_folder_is_an_error(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "nope")
    code, out, err = run(capsys, "diff", "--builtins-only", "--snapshots", missing)
    assert code == 2 and out == "" and "nope" in err and "Traceback" not in err
    code, out, err = run(capsys, "snapshot", "--check", "--builtins-only", "--dir", missing)
    assert code == 2 and out == "" and "--update" in err


def test_markdown_review_for_a_pull_request(sentence_project: tuple[Path, str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    project, first = sentence_project
    code, out, _ = run(capsys, *_diff_mine(project, "--format", "markdown"))
    assert code == 0 and out.startswith("### ")
    assert "```diff\n" in out and "+" + first + " Check twice.\n" in out
    assert "`objective`" in out and "cached prefix" in out


def test_markdown_fences_survive_backticks_in_the_prompt() -> None:
    from promptc._cli.review import render_markdown
    from promptc._review.diff import CaseReview, SectionChange, line_hunks
    hunks = line_hunks(["```", "old"], ["```", "new ````"])
    case = CaseReview("c|`x`", "changed", "a", "b", 10, 12,
                      (SectionChange("s|1", "changed", "static", 5, 7, hunks),))
    out = render_markdown([case], None, "t")
    assert "`````diff\n" in out  # longer than any run of backticks inside
    assert "| `` c\\|`x` `` |" in out  # a name is code, its pipe cannot split the table


def test_html_review_is_self_contained_and_escaped() -> None:
    from promptc._cli.html import render_html
    from promptc._review.diff import CaseReview, SectionChange, line_hunks
    hunks = line_hunks(["keep", "<script>alert(1)</script> old", "\x1b[31mred"],
                       ["keep", "<script>alert(1)</script> new", "\x1b[31mred"])
    case = CaseReview("<b>case</b>", "changed", "before", "after", 100, 104,
                      (SectionChange("<i>sec</i>", "changed", "static", 50, 54, hunks),),
                      prefix_moved=True, prefix_tokens=(50, 54),
                      bar_before=(("<i>sec</i>", 50, "static"), ("rules", 50, "session")),
                      bar_after=(("<i>sec</i>", 54, "static"), ("rules", 50, "session")))
    page = render_html([case], "review <&>")
    lowered = page.lower()
    for external in ("http://", "https://", "<script", "<link", "src=", "@import", "url("):
        assert external not in lowered, external  # (this page's prompt text has no URL)
    assert "&lt;b&gt;case&lt;/b&gt;" in page and "&lt;i&gt;sec&lt;/i&gt;" in page
    assert "<ins>new</ins>" in page and "<del>old</del>" in page
    assert "\x1b" not in page and "\\x1b[31mred" in page
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")


def test_a_section_that_is_gone_is_named_in_a_snapshot_review() -> None:
    from promptc._review.diff import review_file
    from promptc._review.snapshot import Rendered

    def snapshot(sections: list[tuple[str, int]], body: str) -> str:
        per = " ".join(f"{s}={n}" for s, n in sections)
        return (f"<!-- promptc snapshot\nvariant: v\nmodel: p/m\ncontext: full\n"
                f"tokens: {sum(n for _, n in sections)} (o200k_base)\nsections: {per}\n-->\n\n"
                f"{body}\n")
    old = snapshot([("a", 3), ("gone", 4), ("b", 2)],
                   "# A\nalpha\n\n# Gone\nbeta\ngamma\n\n# B\ndelta")
    new_text = snapshot([("a", 3), ("b", 2)], "# A\nalpha\n\n# B\ndelta")
    # header: 7 lines + blank; the body starts on line 9
    new = Rendered(new_text, (("a", 9, 10), ("b", 12, 13)), ("static", "session"),
                   len("# A\nalpha"))
    review = review_file("x.md", old, new)
    changes = {s.id: s for s in review.changes}
    assert set(changes) == {"gone"} and changes["gone"].status == "removed"
    assert [t for t, _ in changes["gone"].hunks[0].lines].count("-") >= 3
    assert "-# Gone" in changes["gone"].unified()
    assert review.tokens_delta == -4 and review.prefix_moved is True  # `gone` may have been static
    same = review_file("x.md", new_text, new)
    assert same.status == "same" and not same.changes and same.prefix_moved is False
