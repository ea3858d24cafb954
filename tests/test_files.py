"""Files at promptc's edge: what it reads and what it writes stay inside the folder they belong to.

Reads: only regular files, read with a bound, from inside their source. A project folder, a user
folder or a plugin's data folder may only bring its own text into the system prompt: a template
path that is absolute or climbs out with `..` (see the bad-file corpus), a prompt file that is a
symlink leading outside the folder, a FIFO or a device are refused at load with an error naming
the file. A `.promptc` picked up from above the working directory's repository is said out loud.

Writes: never through a symbolic link, never outside the folder they are for, never half a file
(a temporary file in the same folder replaces the target).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from promptc import Compiler, ConfigError, ContextError, PromptContext, ProviderInfo, \
    VariantConfigError
from promptc._base.files import write_text_file
from promptc._cli import main

from .conftest import write_tree

GOOD = Path(__file__).parent / "fixtures" / "good"
BF = ProviderInfo("x", "bfmodel")
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="symlinks and FIFOs")


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    write_tree(root, {str(p.relative_to(GOOD)): p.read_text(encoding="utf-8")
                      for p in GOOD.rglob("*") if p.is_file()})
    return root


@posix_only
def test_a_component_symlinked_to_outside_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("API_KEY=do-not-leak\n", encoding="utf-8")
    root = project(tmp_path)
    (root / "components" / "objective.md").unlink()
    (root / "components" / "objective.md").symlink_to(secret)
    with pytest.raises(VariantConfigError, match="resolves outside its folder") as info:
        Compiler.default(project=root, user=False, plugins=False)
    assert info.value.source == str(root / "components" / "objective.md")


@posix_only
def test_a_template_symlinked_to_outside_is_refused(tmp_path: Path) -> None:
    root = project(tmp_path)
    (tmp_path / "elsewhere.md").write_text("{{agent_role}}\n", encoding="utf-8")
    template = root / "variants" / "bf" / "template.md"
    template.unlink()
    template.symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(VariantConfigError, match="resolves outside its folder"):
        Compiler.default(project=root, user=False, plugins=False)


@posix_only
def test_a_symlink_that_stays_inside_is_fine(tmp_path: Path) -> None:
    root = project(tmp_path)
    shared = root / "shared-objective.txt"
    (root / "components" / "objective.md").rename(shared)
    (root / "components" / "objective.md").symlink_to(shared)
    out = Compiler.default(project=root, user=False, plugins=False).compile(
        BF, PromptContext(date="2026-01-01"), strict=True)
    assert "Marker: BF-MARKER." in out.text


@posix_only
def test_a_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    root = project(tmp_path)
    fifo = root / "components" / "objective.md"
    fifo.unlink()
    os.mkfifo(fifo)
    with pytest.raises(VariantConfigError, match="not a regular file"):
        Compiler.default(project=root, user=False, plugins=False)
    context = tmp_path / "context.json"
    os.mkfifo(context)
    with pytest.raises(ContextError, match="not a regular file"):
        PromptContext.load(context)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_link_to_an_endless_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "context.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(ContextError, match="not a regular file"):
        PromptContext.load(link)


def test_bad_paths_are_errors_not_crashes(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="project folder not found"):
        Compiler.default(project=tmp_path / "missing", user=False, plugins=False)
    with pytest.raises(ConfigError, match="not a usable path"):
        Compiler.default(project="x" * 5000, user=False, plugins=False)
    with pytest.raises(ConfigError, match="project folder not found"):
        Compiler.default(project="bad\0path", user=False, plugins=False)
    with pytest.raises(ContextError, match="cannot read"):
        PromptContext.load("bad\0path.json")
    with pytest.raises(ConfigError, match="prompt folder not found"):
        Compiler.from_folders(tmp_path / "missing")


def _compiler_from(start: Path) -> Compiler:
    return Compiler.default(start=start, user=False, plugins=False)


def test_a_project_folder_above_the_repository_is_reported(tmp_path: Path) -> None:
    write_tree(tmp_path, {".promptc/components/objective.md": "# Objective\n\nShared.\n",
                          "repo/.git/HEAD": "ref: refs/heads/main\n",
                          "repo/src/.keep": ""})
    compiler = _compiler_from(tmp_path / "repo" / "src")
    [note] = [d for d in compiler.load_diagnostics if d.code == "project-outside-repository"]
    assert note.level == "warning" and str(tmp_path / ".promptc") in note.message
    assert str(tmp_path / "repo") in note.message
    assert ("project", str(tmp_path / ".promptc")) in compiler.sources
    with pytest.raises(Exception, match="above the repository"):  # strict: not silently used
        compiler.compile(BF, PromptContext(date="2026-01-01"), strict=True)


def test_a_project_folder_inside_the_repository_is_quiet(tmp_path: Path) -> None:
    write_tree(tmp_path, {"repo/.promptc/components/objective.md": "# Objective\n\nOurs.\n",
                          "repo/.git/HEAD": "ref: refs/heads/main\n",
                          "repo/src/deep/.keep": ""})
    compiler = _compiler_from(tmp_path / "repo" / "src" / "deep")
    assert not [d for d in compiler.load_diagnostics if d.code == "project-outside-repository"]
    assert ("project", str(tmp_path / "repo" / ".promptc")) in compiler.sources


# --- writes ---------------------------------------------------------------------------------------

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
