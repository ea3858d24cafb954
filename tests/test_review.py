"""Prompt review: the snapshot command, the section-aware diff, tokens, the metamorphic check."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from promptc import Compiler, ProviderInfo
from promptc._cli import main
from promptc.testing import sessions_differ
from promptc._load.sources import builtin_root

from .conftest import load_context

REPO = Path(__file__).parent.parent
SONNET = ProviderInfo("anthropic", "claude-sonnet-4-5")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_snapshot_command_agrees_with_the_committed_snapshots(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "snapshot", "--check", "--builtins-only", "--dir",
                       str(REPO / "snapshots"))
    assert code == 0, out
    assert "match" in out


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
    assert all("(sections: objective)" in line for line in changed), changed
    assert "+" + first + " Check twice." in out  # the unified diff shows the new sentence
    assert any("generic__" in line for line in changed)
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
    (snaps / "old-case.md").write_text("x", encoding="utf-8")
    code, out, _ = run(capsys, "snapshot", "--builtins-only", "--dir", str(snaps), "--json")
    data = json.loads(out)
    assert code == 1
    assert data["added"] == [victim.name] and data["removed"] == ["old-case.md"]
    run(capsys, "snapshot", "--update", "--builtins-only", "--dir", str(snaps))
    assert victim.exists() and not (snaps / "old-case.md").exists()


def test_diff_between_two_variants_adds_up(capsys: pytest.CaptureFixture[str]) -> None:
    ctx = str(REPO / "promptc/_data/snapshot/contexts/full.json")
    code, out, _ = run(capsys, "diff", "--builtins-only", "--provider", "anthropic", "--model",
                       "claude-sonnet-4-5", "--context", ctx, "--variant", "generic",
                       "--to-variant", "native-next-gen", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["from"]["variant"] == "generic" and report["to"]["variant"] == "native-next-gen"
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
    assert code == 0 and "cache-stable prefix: unchanged" in out
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
    total = next(line for line in lines if line.startswith("total"))
    rows = [line for line in lines[2:] if line and not line.startswith(("total", "encoding"))]
    assert sum(int(r.rsplit(None, 2)[-2]) for r in rows) == int(total.split()[1])


@pytest.mark.parametrize("vid", ["generic", "next-gen", "native-next-gen", "gpt-5", "gemini-3",
                                 "glm", "compact"])
def test_static_part_depends_on_neither_cwd_nor_date(builtins: Compiler, vid: str) -> None:
    import attrs
    full = load_context("full")
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
