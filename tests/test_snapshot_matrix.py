"""The snapshot loop owns its folder by matrix: the hint `snapshot --check` prints is the exact
command that accepts the change (same matrix, folder and sources), an update from another
matrix is refused unless forced, and nothing the manifest does not list is removed."""

from __future__ import annotations

import os
import json

import shlex
from pathlib import Path

import pytest

from promptc._cli import main
from promptc._review.snapshot import MANIFEST

CONTEXTS = Path(__file__).resolve().parent.parent / "promptc" / "_data" / "snapshot" / "contexts"


def matrix(tmp_path: Path, name: str, model: str = "gpt-4.1") -> Path:
    path = tmp_path / name
    path.write_text(f'[contexts]\nminimal = "{(CONTEXTS / "minimal.json").as_posix()}"\n\n'
                    f'[[case]]\nprovider = "openai"\nmodel = "{model}"\n', encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def folder_state(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())}


def test_the_check_hint_is_the_command_that_accepts_the_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    mine = matrix(tmp_path, "mine.toml")
    snaps = tmp_path / "my snaps"
    assert run(capsys, "snapshot", "--update", "--builtins-only", "--matrix", "mine.toml",
               "--dir", "my snaps")[0] == 0
    [md] = sorted(snaps.glob("*.md"))
    md.write_text(md.read_text(encoding="utf-8").replace("# ", "# Old ", 1), encoding="utf-8")
    code, out, _ = run(capsys, "snapshot", "--check", "--builtins-only", "--matrix",
                       "mine.toml", "--dir", "my snaps")
    assert code == 1
    hint = out.rstrip().splitlines()[-1]
    command = hint.split("`")[1]
    assert shlex.split(command) == ["promptc", "snapshot", "--update", "--matrix", "mine.toml",
                                    "--dir", "my snaps", "--builtins-only"], hint
    # run as printed, it accepts the change and the check is clean
    assert run(capsys, *shlex.split(command)[1:])[0] == 0
    assert run(capsys, "snapshot", "--check", "--builtins-only", "--matrix", str(mine),
               "--dir", str(snaps))[0] == 0


def test_the_check_hint_keeps_the_project_and_user_sources(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = matrix(tmp_path, "mine.toml")
    snaps = tmp_path / "snaps"
    project = tmp_path / "proj"
    (project / "components").mkdir(parents=True)
    args = ["--no-user", "--no-plugins", "--project", str(project), "--matrix", str(mine),
            "--dir", str(snaps)]
    assert run(capsys, "snapshot", "--update", *args)[0] == 0
    (project / "components" / "request_info.md").write_text("# Now\nSoon.\n", encoding="utf-8")
    code, out, _ = run(capsys, "snapshot", "--check", *args)
    command = shlex.split(out.rstrip().splitlines()[-1].split("`")[1])
    assert code == 1 and command[:3] == ["promptc", "snapshot", "--update"]
    # paths are suggested as typed from here (relative when shorter): the same files
    assert sorted(map(os.path.abspath, command[3:])) == sorted(map(os.path.abspath, args)), \
        command


def test_an_update_from_another_matrix_is_refused_naming_both(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as the old hint said (without --matrix), an update rewrote a folder written from the
    user's matrix with the built-in one and deleted the user's snapshot. Now an update without
    --matrix renders the matrix that wrote the folder; naming another is refused."""
    # Relative paths: the one-line error is cut at 400 characters, and four absolute paths
    # under a deep temporary folder (an xdist worker's is 10 characters deeper) reach that.
    monkeypatch.chdir(tmp_path)
    mine, other = matrix(Path(), "mine.toml"), matrix(Path(), "other.toml", "gpt-4o")
    snaps = Path("snaps")
    assert run(capsys, "snapshot", "--update", "--builtins-only", "--matrix", str(mine),
               "--dir", str(snaps))[0] == 0
    before = folder_state(snaps)
    code, _, err = run(capsys, "snapshot", "--update", "--builtins-only", "--dir", str(snaps),
                       "--matrix", str(other))
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "mine.toml" in err and "--force" in err, err
    assert "other.toml" in err
    assert folder_state(snaps) == before
    code, out, err = run(capsys, "snapshot", "--update", "--builtins-only", "--dir", str(snaps))
    assert code == 0 and "0 added, 0 changed, 0 removed" in out, err  # from mine.toml again
    assert folder_state(snaps) == before
    code, out, _ = run(capsys, "snapshot", "--update", "--builtins-only", "--force",
                       "--matrix", str(other), "--dir", str(snaps))
    assert code == 0 and "1 added" in out and "1 removed" in out
    # the folder now belongs to the other matrix
    code, _, err = run(capsys, "snapshot", "--update", "--builtins-only", "--matrix", str(mine),
                       "--dir", str(snaps))
    assert code == 2 and "other.toml" in err


def test_a_check_against_another_matrix_is_an_error_naming_both(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine, other = matrix(tmp_path, "mine.toml"), matrix(tmp_path, "other.toml", "gpt-4o")
    snaps = tmp_path / "snaps"
    run(capsys, "snapshot", "--update", "--builtins-only", "--matrix", str(mine), "--dir",
        str(snaps))
    code, _, err = run(capsys, "snapshot", "--check", "--builtins-only", "--matrix", str(other),
                       "--dir", str(snaps))
    assert code == 2 and "written from" in err and "mine.toml" in err and "other.toml" in err


def test_a_check_and_a_diff_use_the_matrix_that_wrote_the_folder_and_say_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Once, `diff --snapshots DIR` without --matrix compared a folder written from the
    user's matrix with the built-in one: every built-in case added, the user's removed, exit
    0."""
    mine = matrix(tmp_path, "mine.toml")
    snaps = tmp_path / "snaps"
    run(capsys, "snapshot", "--update", "--builtins-only", "--matrix", str(mine), "--dir",
        str(snaps))
    code, out, _ = run(capsys, "snapshot", "--check", "--builtins-only", "--dir", str(snaps))
    assert code == 0 and "mine.toml" in out and "which wrote the folder" in out, out
    code, out, err = run(capsys, "diff", "--builtins-only", "--snapshots", str(snaps))
    assert code == 0 and out.strip() == "no differences" and "mine.toml" in err, (out, err)
    code, out, _ = run(capsys, "diff", "--builtins-only", "--snapshots", str(snaps), "--json")
    data = json.loads(out)
    assert data["changed"] == 0 and data["matrix"].endswith("mine.toml")


def test_nothing_the_manifest_does_not_list_is_removed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = matrix(tmp_path, "mine.toml")
    snaps = tmp_path / "snaps"
    run(capsys, "snapshot", "--update", "--builtins-only", "--matrix", str(mine), "--dir",
        str(snaps))
    # a snapshot-looking file this folder's updates never wrote (copied in by hand)
    stray = snaps / "kept__by_hand.md"
    stray.write_text("<!-- promptc snapshot\nvariant: x\n-->\n\nmine\n", encoding="utf-8")
    code, out, _ = run(capsys, "snapshot", "--update", "--builtins-only", "--force",
                       "--matrix", str(mine), "--dir", str(snaps))
    assert code == 0 and "0 removed" in out
    assert stray.read_text(encoding="utf-8").endswith("mine\n")
    assert "kept__by_hand.md" not in (snaps / MANIFEST).read_text(encoding="utf-8")


def _hint(out: str) -> list[str]:
    return shlex.split(out.rstrip().splitlines()[-1].rsplit("run `", 1)[1].split("`", 1)[0])


def test_a_users_file_where_a_snapshot_goes_is_named_before_the_hint(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """(issue 35) A file of the user's with a snapshot's name read as an unchanged snapshot,
    and the hint (with --force) was refused; now it is an added snapshot, the check names the
    file to move first, and after that the hint runs."""
    monkeypatch.chdir(tmp_path)
    mine = matrix(Path(), "mine.toml")
    assert run(capsys, "snapshot", "--update", "--builtins-only", "--matrix", str(mine),
               "--dir", "snaps")[0] == 0
    [md] = sorted(Path("snaps").glob("*.md"))
    mine.write_text(mine.read_text(encoding="utf-8") + 'name = "renamed"\n', encoding="utf-8")
    blocking = Path("snaps") / md.name.replace(md.name.split("__")[0], "renamed", 1)
    blocking.write_text("my own notes\n", encoding="utf-8")
    code, out, _ = run(capsys, "snapshot", "--check", "--builtins-only", "--matrix", str(mine),
                       "--dir", "snaps", "--json")
    report = json.loads(out)
    assert code == 1 and report["blocked"] == [blocking.name]
    assert blocking.name in report["added"]
    code, out, _ = run(capsys, "snapshot", "--check", "--builtins-only", "--matrix", str(mine),
                       "--dir", "snaps")
    assert code == 1 and "move away 1 file(s)" in out and blocking.name in out
    command = _hint(out)
    assert run(capsys, *command[1:])[0] == 2  # refused while the file stands there
    blocking.rename(tmp_path / "notes.md")
    assert run(capsys, *command[1:])[0] == 0
    assert run(capsys, "snapshot", "--check", "--builtins-only", "--matrix", str(mine),
               "--dir", "snaps")[0] == 0
