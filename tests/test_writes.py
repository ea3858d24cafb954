"""Writes that cannot hurt the user: never through a symbolic link, never outside the folder
they are for, never half a file (a temporary file in the same folder replaces the target)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from promptc import Compiler, ConfigError
from promptc._base.files import write_text_file
from promptc._cli import main

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="symlinks")


@posix_only
def test_new_variant_force_does_not_write_through_a_link(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    project = tmp_path / "proj" / ".promptc"
    target = project / "variants" / "mine" / "variant.toml"
    target.parent.mkdir(parents=True)
    target.symlink_to(victim)
    rc = main(["new-variant", "mine", "--from", "generic", "--dir", str(project), "--force",
               "--builtins-only"])
    err = capsys.readouterr().err
    assert rc == 2 and "symbolic link" in err and "Traceback" not in err
    assert victim.read_text(encoding="utf-8") == "precious\n"


@posix_only
def test_a_linked_folder_on_the_way_is_outside(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    (root / "variants").symlink_to(outside)
    with pytest.raises(ConfigError, match="outside"):
        write_text_file(root / "variants" / "x" / "variant.toml", "x", root, ConfigError)
    assert list(outside.iterdir()) == []


def test_a_write_replaces_the_whole_file_at_once(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "f.md"
    target.write_text("old\n", encoding="utf-8")

    def killed(_src: str, _dst: str) -> None:
        raise KeyboardInterrupt  # the process dies between writing and renaming
    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        write_text_file(target, "new text\n", tmp_path, ConfigError)
    assert target.read_text(encoding="utf-8") == "old\n"  # not truncated, not half-new
    assert [p.name for p in tmp_path.iterdir()] == ["f.md"]  # no temporary file left behind
    monkeypatch.undo()
    write_text_file(target, "new text\n", tmp_path, ConfigError)
    assert target.read_text(encoding="utf-8") == "new text\n"


def test_new_variant_writes_a_variant_that_renders(tmp_path: Path) -> None:
    project = tmp_path / ".promptc"
    main(["new-variant", "mine", "--from", "generic", "--dir", str(project), "--builtins-only"])
    c = Compiler.default(project=project, user=False, plugins=False)
    assert c.registry.variants["mine"].extends == "generic"
