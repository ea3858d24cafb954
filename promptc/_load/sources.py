"""Where prompt data comes from: built-ins, plugins, the user's folder, the project's folder."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["builtin_root", "user_folder", "find_project_folder"]


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
