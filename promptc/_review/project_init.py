"""`promptc init`: a new project with its own prompts and none of the built-in coding pack.

Two starting points (`--starter`): an assistant (sections, a tool, a Claude and a GPT variant
chosen by model) and a template library (templates used by id, typed inputs with examples). The
files each writes are data, shipped in the wheel under `promptc/_data/init/` and
`promptc/_data/init_library/` (a file named `*.in` is written without that suffix: Python source
kept out of promptc's own package). Then the project's snapshot matrix is rendered into its
snapshot folder, so `promptc lint --strict`, `promptc snapshot --check` and `pytest` pass in it
at once.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from .._base.errors import ConfigError
from .._base.files import read_text_file, write_text_file
from .._compile.compiler import Compiler
from .._load.project import PROJECT_FILE, PYPROJECT, find_project_file
from .manifest import matrix_name
from .snapshot import expected_files, load_matrix, update_dir

__all__ = ["SCAFFOLD", "STARTERS", "scaffold_files", "init_project", "Initialized"]

SCAFFOLD = Path(__file__).resolve().parent.parent / "_data" / "init"
# starting point -> the folder of the files it writes
STARTERS = {"assistant": SCAFFOLD, "library": SCAFFOLD.parent / "init_library"}


def scaffold_files(starter: str = "assistant") -> dict[str, str]:
    """{path relative to the project root: text} of every file `init` writes."""
    out: dict[str, str] = {}
    folder = STARTERS[starter]
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            relative = path.relative_to(folder).as_posix()
            out[relative.removesuffix(".in")] = read_text_file(path, ConfigError)
    return out


@attrs.frozen
class Initialized:
    """What `init` wrote: the project's root, its files, and its snapshot files."""

    root: Path
    files: tuple[str, ...]
    snapshots: tuple[str, ...]


def _check_free(root: Path, files: dict[str, str], force: bool) -> None:
    """Nothing of the user's is overwritten: no scaffold file exists yet, and no project
    file holds the folder already (unless `force`)."""
    if force:
        return
    taken = [name for name in files if (root / name).exists() or (root / name).is_symlink()]
    found = find_project_file(root) if root.is_dir() else None
    if found is not None and found.parent == root.resolve() and found.name == PYPROJECT:
        taken.append(f"{PYPROJECT} [tool.promptc]")
    if taken:
        shown = ", ".join(taken[:5]) + (" …" if len(taken) > 5 else "")
        raise ConfigError(f"already holds {shown}; init writes a new project into an empty "
                          "folder (or one without these files); pass --force to overwrite "
                          "them", source=str(root))


def init_project(root: Path, force: bool = False, starter: str = "assistant") -> Initialized:
    """Write a starting point's files into `root` (made if missing) and render its
    snapshots."""
    if starter not in STARTERS:
        raise ConfigError(f"unknown starting point {starter!r}; the starting points are: "
                          f"{', '.join(STARTERS)}", field="starter")
    if root.exists() and not root.is_dir():
        raise ConfigError("is not a folder", source=str(root))
    files = scaffold_files(starter)
    _check_free(root, files, force)
    for name, text in files.items():
        write_text_file(root / name, text, root, ConfigError)
    compiler = Compiler.default(project=root / PROJECT_FILE)
    settings = compiler.project
    assert settings.matrix is not None and settings.snapshots is not None  # the scaffold's
    matrix = load_matrix(settings.matrix, compiler)
    written = update_dir(settings.snapshots, expected_files(compiler, matrix),
                         allow_foreign=force, matrix=matrix_name(settings.matrix,
                                                                 settings.snapshots))
    return Initialized(root, tuple(files), written.added)
