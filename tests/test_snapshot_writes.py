"""`snapshot --update` touches only the files it owns: a folder of the user's keeps every file,
no write goes through a symbolic link, and a malformed matrix or snapshot folder is an error
naming the file, never a crash."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from promptc._cli import main
from promptc._cli.review_options import typed
from promptc._review.snapshot import MANIFEST

MATRIX = (Path(__file__).resolve().parent.parent / "promptc" / "_data" / "snapshot")


def small_matrix(tmp_path: Path, body: str | None = None) -> Path:
    path = tmp_path / "matrix.toml"
    path.write_text(body if body is not None else (
        f'[contexts]\nminimal = "{MATRIX / "contexts" / "minimal.json"}"\n\n'
        '[[case]]\nprovider = "openai"\nmodel = "gpt-4.1"\ntools = ["openai"]\n'),
        encoding="utf-8")
    return path


def snapshot(*args: str) -> list[str]:
    return ["snapshot", "--builtins-only", *args]


def test_update_refuses_a_folder_with_foreign_files(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """`--dir .` in a project root once deleted README.md, package.json and the like."""
    root = tmp_path / "project"
    root.mkdir()
    foreign = {"README.md": "# My project\n", "CHANGELOG.md": "## 1.0\n",
               "package.json": '{"name": "x"}\n', "tsconfig.json": "{}\n"}
    for name, text in foreign.items():
        (root / name).write_text(text, encoding="utf-8")
    matrix = small_matrix(tmp_path)
    rc = main(snapshot("--update", "--dir", str(root), "--matrix", str(matrix)))
    err = capsys.readouterr().err
    assert rc == 2 and "did not write" in err and "--force" in err
    assert {p.name: p.read_text(encoding="utf-8") for p in root.iterdir()} == foreign
    # told to, it writes its snapshots beside them and still touches none of them
    assert main(snapshot("--update", "--force", "--dir", str(root), "--matrix",
                         str(matrix))) == 0
    for name, text in foreign.items():
        assert (root / name).read_text(encoding="utf-8") == text
    written = sorted(p.name for p in root.iterdir() if p.name not in foreign)
    assert MANIFEST in written and any(n.endswith(".md") for n in written)
    # a later update with a smaller matrix removes only what it wrote
    assert main(snapshot("--update", "--force", "--dir", str(root), "--matrix",
                         str(small_matrix(tmp_path, (matrix.read_text(encoding="utf-8")
                                                     .replace('tools = ["openai"]\n', "")))))
                ) == 0
    assert not list(root.glob("tools__*.json"))
    for name, text in foreign.items():
        assert (root / name).read_text(encoding="utf-8") == text
    capsys.readouterr()


def test_the_check_hint_runs_as_printed_beside_foreign_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--check` ends with the command that accepts its differences; typed as printed, it
    works (with --force where the folder holds a file of the user's, which stays as it was)."""
    folder = tmp_path / "snaps"
    matrix = small_matrix(tmp_path)
    assert main(snapshot("--update", "--dir", str(folder), "--matrix", str(matrix))) == 0
    (folder / "NOTES.txt").write_text("mine\n", encoding="utf-8")
    [md] = sorted(folder.glob("*.md"))
    md.write_text(md.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
    capsys.readouterr()
    assert main(snapshot("--check", "--dir", str(folder), "--matrix", str(matrix))) == 1
    hint = capsys.readouterr().out.rsplit("run `", 1)[1].split("`", 1)[0]
    assert "--force" in hint and hint.startswith("promptc snapshot --update")
    assert main(shlex.split(hint)[1:]) == 0
    assert (folder / "NOTES.txt").read_text(encoding="utf-8") == "mine\n"
    assert main(snapshot("--check", "--dir", str(folder), "--matrix", str(matrix))) == 0
    capsys.readouterr()


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_update_never_writes_through_a_link(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "snaps"
    matrix = small_matrix(tmp_path)
    assert main(snapshot("--update", "--dir", str(folder), "--matrix", str(matrix))) == 0
    [md] = sorted(folder.glob("*.md"))
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    md.unlink()
    md.symlink_to(victim)
    rc = main(snapshot("--update", "--dir", str(folder), "--matrix", str(matrix)))
    assert rc == 2 and "did not write" in capsys.readouterr().err  # a link is not its file
    assert victim.read_text(encoding="utf-8") == "precious\n"


@pytest.mark.parametrize(("body", "says"), [
    ('contexts = "x"\n', "[contexts]"),
    ('[contexts]\nfull = "contexts/full.json"\n[[case]]\nprovider = "a"\nmodel = "b"\n'
     'variant = 5\n', "case[0].variant"),
    ('[contexts]\nfull = "contexts/full.json"\n[[case]]\nprovider = "a"\nmodel = "b"\n'
     'contexts = "full"\n', "case[0].contexts"),
    ('case = 3\n', "[case]"),
], ids=["contexts-not-a-table", "variant-not-a-string", "contexts-not-a-list",
        "case-not-a-list"])
def test_a_malformed_matrix_is_exit_2_naming_the_field(tmp_path: Path, body: str, says: str,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    (tmp_path / "contexts").mkdir()
    (tmp_path / "contexts" / "full.json").write_text("{}", encoding="utf-8")
    rc = main(snapshot("--check", "--dir", str(tmp_path), "--matrix",
                       str(small_matrix(tmp_path, body))))
    err = capsys.readouterr().err
    assert rc == 2 and says in err and "Traceback" not in err and "internal error" not in err


def test_a_broken_snapshot_folder_is_exit_2(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "snaps"
    matrix = small_matrix(tmp_path)
    assert main(snapshot("--update", "--dir", str(folder), "--matrix", str(matrix))) == 0
    [md] = sorted(folder.glob("*.md"))
    md.write_bytes(b"<!-- promptc snapshot\n\xff\xfe not utf-8\n")
    rc = main(snapshot("--check", "--dir", str(folder), "--matrix", str(matrix)))
    err = capsys.readouterr().err
    # the file named as typed from here: relative when that is shorter (where the checkout
    # and the temporary folder lie decides which)
    assert rc == 2 and "not valid UTF-8" in err and typed(md) in err
    md.unlink()
    md.mkdir()  # a folder where a snapshot file should be
    rc = main(snapshot("--update", "--dir", str(folder), "--matrix", str(matrix)))
    err = capsys.readouterr().err
    assert rc == 2 and md.name in err and "internal error" not in err
