"""Which files of a snapshot folder promptc owns, and from which matrix it wrote them.

`snapshot --update` writes a manifest (`.promptc-snapshots`) beside the snapshots: a comment
line naming the matrix, then the name of every file it wrote. A later update removes only
what the manifest lists, and refuses a folder written from another matrix (unless forced), so
running the wrong command never rewrites one matrix's folder from another. A matrix is named
by its path relative to the folder (stable across checkouts), or `built-in`.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

from .._base.errors import ConfigError
from .._base.files import read_text_file, write_text_file

__all__ = ["MANIFEST", "HEADER", "BUILTIN", "Manifest", "read_manifest", "write_manifest",
           "matrix_name", "same_matrix", "ownership", "recorded_path"]

MANIFEST = ".promptc-snapshots"  # the files `snapshot --update` wrote, one name a line
HEADER = "<!-- promptc snapshot"
BUILTIN = "built-in"
_MATRIX_LINE = "# matrix: "


@attrs.frozen
class Manifest:
    present: bool
    names: frozenset[str] = frozenset()
    matrix: str | None = None  # None: an older manifest that did not record its matrix


def read_manifest(folder: Path) -> Manifest:
    path = folder / MANIFEST
    if not path.is_file() or path.is_symlink():
        return Manifest(False)
    names: set[str] = set()
    matrix = None
    for line in read_text_file(path, ConfigError).splitlines():
        if line.startswith(_MATRIX_LINE):
            matrix = line[len(_MATRIX_LINE):].strip()
        elif line.strip() and not line.startswith("#"):
            names.add(line.strip())
    return Manifest(True, frozenset(names), matrix)


def write_manifest(folder: Path, names: list[str], matrix: str) -> None:
    text = ("# the files `promptc snapshot --update` wrote here (it removes only these)\n"
            f"{_MATRIX_LINE}{matrix}\n" + "".join(f"{name}\n" for name in sorted(names)))
    write_text_file(folder / MANIFEST, text, folder, ConfigError)


def matrix_name(matrix_path: Path | None, folder: Path) -> str:
    """How the manifest names a matrix: `built-in`, else its path relative to the folder."""
    if matrix_path is None:
        return BUILTIN
    target = os.path.abspath(matrix_path)
    try:
        return Path(os.path.relpath(target, os.path.abspath(folder))).as_posix()
    except ValueError:  # another drive (Windows)
        return Path(target).as_posix()


def same_matrix(recorded: str, matrix_path: Path | None, folder: Path) -> bool:
    if recorded == BUILTIN or matrix_path is None:
        return recorded == BUILTIN and matrix_path is None
    return os.path.normpath(os.path.join(os.path.abspath(folder), recorded)) == \
        os.path.abspath(matrix_path)


def recorded_path(recorded: str, folder: Path) -> Path | None:
    """The matrix file a manifest names (None: the built-in matrix), as an absolute path."""
    if recorded == BUILTIN:
        return None
    return Path(os.path.normpath(os.path.join(os.path.abspath(folder), recorded)))


def shown_matrix(recorded: str, folder: Path) -> str:
    """A recorded matrix as a person would type it from the current directory."""
    if recorded == BUILTIN:
        return "the built-in matrix"
    path = os.path.normpath(os.path.join(os.path.abspath(folder), recorded))
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def ownership(folder: Path) -> tuple[set[str], set[str]]:
    """(the snapshot files promptc owns in `folder`, every other entry in it).

    With a manifest, promptc owns what it lists, plus `.md` files that start with its snapshot
    header and tool snapshots (`tools__*.json`) only for comparing and overwriting: see
    `removable`. Without one (a folder the pytest fixture wrote), header files and tool
    snapshots are promptc's. Anything else (a README, a package.json, a folder, a symbolic
    link) is the user's: never read as a snapshot, never removed, never overwritten. Dot-files
    (the manifest, .gitkeep) are neither.
    """
    if not folder.is_dir():
        return set(), set()
    listed = read_manifest(folder).names
    owned: set[str] = set()
    foreign: set[str] = set()
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        name = entry.name
        if name.startswith("."):
            continue
        if entry.is_symlink() or not entry.is_file():
            foreign.add(name)
        elif name in listed or _looks_like_a_snapshot(entry):
            owned.add(name)
        else:
            foreign.add(name)
    return owned, foreign


def removable(folder: Path, owned: set[str]) -> set[str]:
    """The owned files an update may delete: what the manifest lists (every owned file when
    there is no manifest yet)."""
    manifest = read_manifest(folder)
    return set(owned) if not manifest.present else owned & manifest.names


def _looks_like_a_snapshot(entry: Path) -> bool:
    name = entry.name
    if name.startswith("tools__") and name.endswith(".json"):
        return True
    if not name.endswith(".md"):
        return False
    try:
        with open(entry, "rb") as f:
            return f.read(len(HEADER)) == HEADER.encode()
    except OSError:
        return False
