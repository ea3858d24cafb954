"""The project file: which sources a project's prompts come from, and its commands' defaults.

A project says what it is in `[tool.promptc]` of its `pyproject.toml`, or in a `promptc.toml`
with the same keys at the top level. Its root is the nearest folder, from the working directory
upward and not past the repository root, holding one (a `pyproject.toml` without the table does
not stop the walk). Without a project file, a `.promptc/` folder found upward is the project's
prompt folder, as before project files existed. Every door reads it here: `Compiler.default()`,
every command, `promptc serve` and the pytest fixtures.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, cast

import attrs

from .._base.errors import ConfigError
from .._base.files import parse_toml, read_text_file
from .._base.record_builder import describe
from .._base.suggest import unknown_key
from .sources import find_project_folder, repository_root

__all__ = ["Project", "PROJECT_FILE", "PYPROJECT", "ENV", "KEYS", "PLACEMENTS", "NO_PROJECT",
           "find_project_file", "read_project", "project_for", "project_of_folder"]

PROJECT_FILE = "promptc.toml"
PYPROJECT = "pyproject.toml"
ENV = "PROMPTC_PROJECT"  # a project root or prompt folder, as `--project` takes
DEFAULT_FOLDER = ".promptc"
PLACEMENTS = ("system", "message")
Placement = Literal["system", "message"]

# key -> (the types it takes, how an error says so)
KEYS: dict[str, tuple[tuple[type, ...], str]] = {
    "builtins": ((bool,), "true or false"),
    "folder": ((str,), "a path (relative to the project root)"),
    "user": ((bool,), "true or false"),
    "plugins": ((bool, list), "true, false or a list of plugin names"),
    "matrix": ((str,), "a path (relative to the project root)"),
    "snapshots": ((str,), "a path (relative to the project root)"),
    "strict": ((bool,), "true or false"),
    "placement": ((str,), "\"system\" or \"message\""),
    "model": ((str,), "\"provider/model\""),
}


@attrs.frozen
class Project:
    """A project's settings (the defaults when there is no project file).

    `file` is the project file ("" without one); `folder` the prompt folder to layer on top
    (None: none); paths are absolute. `plugins`: True (every installed plugin), False (none) or
    the entry-point names to load.
    """

    root: Path | None = None
    file: str = ""
    builtins: bool = True
    folder: Path | None = None
    user: bool = True
    plugins: bool | tuple[str, ...] = True
    matrix: Path | None = None
    snapshots: Path | None = None
    strict: bool = False
    placement: Placement | None = None
    model: tuple[str, str] | None = None
    discovered: bool = False  # the prompt folder was found by walking up (no project file)

    def where(self, key: str) -> str:
        """How an error names one of the file's keys (`[tool.promptc] key` in a pyproject)."""
        return f"tool.promptc.{key}" if self.file.endswith(PYPROJECT) else key


NO_PROJECT = Project()


def _promptc_table(pyproject: Path) -> dict[str, Any] | None:
    """The `[tool.promptc]` table of a pyproject.toml, or None when it has none (a file that
    never mentions `tool.promptc` is not parsed: a broken pyproject of another tool is not
    promptc's business)."""
    text = read_text_file(pyproject, ConfigError)
    if "promptc" not in text:
        return None
    tool = parse_toml(text, pyproject, ConfigError).get("tool")
    table = tool.get("promptc") if isinstance(tool, Mapping) else None
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise ConfigError("must be a table", source=str(pyproject), field="tool.promptc")
    return dict(table)


def _file_in(folder: Path) -> Path | None:
    """The project file in `folder`, or None; both kinds at once is an error (which wins
    would be a guess)."""
    own = folder / PROJECT_FILE
    pyproject = folder / PYPROJECT
    has_own = own.is_file()
    has_table = pyproject.is_file() and _promptc_table(pyproject) is not None
    if has_own and has_table:
        raise ConfigError(f"both {PROJECT_FILE} and {PYPROJECT} [tool.promptc] hold promptc "
                          "settings; keep one of them", source=str(folder))
    return own if has_own else pyproject if has_table else None


def find_project_file(start: str | Path) -> Path | None:
    """The nearest project file at or above `start`, not past the repository root (a folder
    in no repository: up to the file system's root)."""
    here = Path(start).resolve()
    top = repository_root(here)
    for folder in (here, *here.parents):
        found = _file_in(folder)
        if found is not None:
            return found
        if folder == top:
            return None
    return None


def _check_key(key: str, value: Any, source: str, field: str) -> None:
    if key not in KEYS:
        raise ConfigError(unknown_key(key, KEYS), source=source, field=field)
    types, what = KEYS[key]
    if not isinstance(value, types):
        raise ConfigError(f"must be {what}, got {describe(value)}", source=source, field=field)


def _plugins(value: Any, source: str, field: str) -> bool | tuple[str, ...]:
    if isinstance(value, bool):
        return value
    if not all(isinstance(name, str) and name for name in value):
        raise ConfigError("must be a list of plugin (entry point) names", source=source,
                          field=field)
    if len(set(value)) != len(value):
        raise ConfigError("lists a plugin twice", source=source, field=field)
    return tuple(value)


def _model(value: str, source: str, field: str) -> tuple[str, str]:
    provider, slash, model = value.partition("/")
    if not slash or not provider.strip() or not model.strip():
        raise ConfigError(f"must be \"provider/model\" (e.g. \"anthropic/claude-sonnet-4-5\"), "
                          f"got {value!r}", source=source, field=field)
    return provider.strip(), model.strip()


def read_project(path: Path) -> Project:
    """The settings of one project file (a promptc.toml, or a pyproject.toml's table)."""
    if path.name == PYPROJECT:
        table = _promptc_table(path)
        if table is None:
            raise ConfigError("has no [tool.promptc] table", source=str(path))
    else:
        table = parse_toml(read_text_file(path, ConfigError), path, ConfigError)
    root = path.resolve().parent
    base = Project(root=root, file=str(path))
    for key, value in table.items():
        _check_key(key, value, str(path), base.where(key))
    return _settings(base, table)


def _settings(base: Project, table: Mapping[str, Any]) -> Project:
    """The checked values of a project file's table over the defaults."""
    source, root = base.file, base.root
    assert root is not None
    if table.get("placement", "system") not in PLACEMENTS:
        raise ConfigError(f"must be \"system\" or \"message\", got {table['placement']!r}",
                          source=source, field=base.where("placement"))
    folder = root / table.get("folder", DEFAULT_FOLDER)
    if "folder" in table and not folder.is_dir():
        raise ConfigError(f"prompt folder {str(folder)!r} not found", source=source,
                          field=base.where("folder"))
    matrix = root / table["matrix"] if "matrix" in table else None
    if matrix is not None and not matrix.is_file():
        raise ConfigError(f"matrix file {str(matrix)!r} not found", source=source,
                          field=base.where("matrix"))
    return attrs.evolve(
        base, builtins=table.get("builtins", True), folder=folder if folder.is_dir() else None,
        user=table.get("user", True),
        plugins=_plugins(table.get("plugins", True), source, base.where("plugins")),
        matrix=matrix,
        snapshots=root / table["snapshots"] if "snapshots" in table else None,
        strict=table.get("strict", False),
        placement=cast("Placement | None", table.get("placement")),
        model=_model(table["model"], source, base.where("model")) if "model" in table
        else None)


def project_of_folder(folder: Path) -> Project:
    """A folder named on the command line: a project root (it holds a project file, or only a
    `.promptc/`), a project file itself, or a prompt folder (as `--project` took before project
    files), whose project file applies when it is that file's `folder`."""
    try:
        is_dir = folder.is_dir()
    except (OSError, ValueError) as exc:  # a name too long, a NUL in it
        raise ConfigError(f"not a usable path ({exc})", source=repr(str(folder))) from None
    if not is_dir:
        if folder.is_file() and folder.name in (PROJECT_FILE, PYPROJECT):
            return read_project(folder)
        raise ConfigError("project folder not found", source=str(folder))
    found = _file_in(folder)
    if found is not None:
        return read_project(found)
    if not (folder / "variants").is_dir() and not (folder / "components").is_dir() and \
            (folder / DEFAULT_FOLDER).is_dir():
        return Project(root=folder.resolve(), folder=folder / DEFAULT_FOLDER)
    owner = _file_in(folder.resolve().parent)
    if owner is not None:
        settings = read_project(owner)
        if settings.folder is not None and settings.folder.resolve() == folder.resolve():
            return settings
    _check_prompt_folder(folder)
    return Project(folder=folder)


def _check_prompt_folder(folder: Path) -> None:
    """A folder inside a project that holds nothing of a prompt folder is a mistaken name
    (a subfolder of the project, say), not an empty prompt folder over the built-in pack."""
    if any((folder / part).exists() for part in ("variants", "components", "models.toml")):
        return
    above = find_project_file(folder)
    if above is not None:
        raise ConfigError(f"is not a project root or prompt folder, but lies inside the project "
                          f"of {above}: name that project's root ({above.parent}) instead, or "
                          "name none to find the project from the working directory",
                          source=str(folder))


def project_for(project: str | Path | bool | None, start: str | Path | None = None,
                env: Mapping[str, str] | None = None) -> Project:
    """The project a Compiler is built for.

    `project`: False for none; a path (see `project_of_folder`); True (or None) to find one:
    `$PROMPTC_PROJECT` when set, else the nearest project file from `start` (default: the
    working directory), else the nearest `.promptc/` folder (then `discovered` is set: the
    caller decides whether it lies too far up).
    """
    if project is False:
        return NO_PROJECT
    if project is not True and project is not None:
        return project_of_folder(Path(project))
    named = (os.environ if env is None else env).get(ENV)
    if named:
        try:
            return project_of_folder(Path(named))
        except ConfigError as exc:
            raise ConfigError(f"{exc.message} (from ${ENV})", source=exc.source,
                              field=exc.field) from None
    here = Path(start) if start is not None else Path.cwd()
    found = find_project_file(here)
    if found is not None:
        return read_project(found)
    folder = find_project_folder(here)
    return Project(folder=folder, discovered=True) if folder is not None else NO_PROJECT
