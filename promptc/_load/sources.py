"""Where prompt data comes from: built-ins, plugins, the user's folder, the project's folder."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["builtin_root", "user_folder", "find_project_folder", "repository_root",
           "project_outside_note", "left_out_note"]


def builtin_root() -> Path:
    """The built-in `variants/` and `components/`: inside the wheel, or the source checkout."""
    here = Path(__file__).resolve().parent.parent  # the promptc package
    packaged = here / "_builtin"
    if (packaged / "variants").is_dir():
        return packaged
    return here.parent


def user_folder(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/promptc`, else `~/.config/promptc` (read at load, never per request)."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "promptc"


def find_project_folder(start: str | Path) -> Path | None:
    """The nearest `.promptc/` folder at or above `start`."""
    here = Path(start).resolve()
    for folder in (here, *here.parents):
        candidate = folder / ".promptc"
        if candidate.is_dir():
            return candidate
    return None


def repository_root(start: str | Path) -> Path | None:
    """The nearest folder at or above `start` holding `.git` (a folder or a worktree file)."""
    here = Path(start).resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return None


def project_outside_note(found: Path, start: str | Path) -> str | None:
    """Why a `.promptc` found by walking up deserves a warning, or None.

    A project folder changes the system prompt, so one picked up from above the working
    directory's repository (a shared parent such as /tmp, a home folder) is said out loud; with no
    repository, any `.promptc` above the working directory itself is.
    """
    owner = found.resolve().parent
    here = Path(start).resolve()
    repo = repository_root(here)
    if repo is not None:
        if owner.is_relative_to(repo):
            return None
        return (f"project folder {str(found)!r} is above the repository {str(repo)!r} of the "
                "working directory; it changes the prompt for every repository below it "
                "(pass --project or --no-project to choose)")
    if owner == here:
        return None
    return (f"project folder {str(found)!r} was found above the working directory "
            f"{str(here)!r}, which is in no repository (pass --project or --no-project to "
            "choose)")


def left_out_note(kind: str, name: str, sources: str) -> str:
    """For an unknown name the built-in pack defines, when the pack is not among the loaded
    `sources`: say so (a project with `builtins = false` names only its own)."""
    if not sources or "builtin" in sources.split(", ") or not name or \
            any(c in name for c in "/\\:") or name.startswith("."):
        return ""
    root = builtin_root()
    path = root / "variants" / name / "variant.toml" if kind == "variant" else \
        root / "components" / "tools" / f"{name}.toml"
    if not path.is_file():
        return ""
    return (f"; {name!r} is a {kind} of the built-in coding pack, which is not loaded here "
            "(`builtins = false` or --no-builtins)")
