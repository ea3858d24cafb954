"""Where the model data lives: the files shipped in `promptc/_data/`, and the user's data
folder that `promptc models update` writes a newer table to."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = ["DATA_DIR", "shipped_table_path", "overlay_path", "vendors_path", "user_data_dir",
           "user_table_path"]

# promptc/_data, spelled from this file's path as given (not resolved: a path shown to the user
# stays the one Python imported from).
DATA_DIR = Path(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "_data")


def shipped_table_path() -> Path:
    return DATA_DIR / "models.generated.json"


def overlay_path() -> Path:
    return DATA_DIR / "models.overlay.toml"


def vendors_path() -> Path:
    return DATA_DIR / "vendors.toml"


def user_data_dir(env: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """promptc's user data folder, as platformdirs would place it (without the dependency).

    Linux and other POSIX: `$XDG_DATA_HOME/promptc` (an absolute value only, per the XDG spec),
    else `~/.local/share/promptc`; macOS: `~/Library/Application Support/promptc`; Windows:
    `%LOCALAPPDATA%\\promptc`.
    """
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    if platform.startswith("win"):
        return Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local") / "promptc"
    if platform == "darwin":
        return home / "Library" / "Application Support" / "promptc"
    xdg = env.get("XDG_DATA_HOME", "").strip()
    return (Path(xdg) if xdg and os.path.isabs(xdg) else home / ".local" / "share") / "promptc"


def user_table_path(env: Mapping[str, str] | None = None) -> Path:
    """Where `promptc models update` writes the user's table (it wins over the shipped one)."""
    return user_data_dir(env) / "models.json"
