"""The model data a process uses: the overlay over the active table, read once.

What a model can do comes from data, never from code: a table generated from LiteLLM's model
map (`_data/models.generated.json`, or the user's newer copy written by `promptc models
update`) and the hand-kept overlay (`_data/models.overlay.toml`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from ..._base.errors import ConfigError
from ..._base.files import read_text_file
from .ids import normalize_model_id
from .overlay import Overlay, shipped_overlay
from .paths import shipped_table_path, user_table_path
from .tables import MAX_TABLE_FILE, ModelTable, parse_table

__all__ = ["ModelData", "model_data", "model_table", "local_providers"]


@attrs.frozen
class ModelData:
    """What promptc believes about models: the overlay over the active table."""

    overlay: Overlay
    table: ModelTable
    shipped: Mapping[str, Any]  # the shipped table's source, to compare with a user table
    problems: tuple[str, ...] = ()  # rows of the user's table left out, and why

    @property
    def label(self) -> str:
        """How a fact from the table names its source: "LiteLLM 1.110.2 (shipped, 2026-…)"."""
        date = self.table.source.get("date")
        where = "user table" if self.table.user else "shipped"
        return f"{self.table.label} ({where}{', ' + date if date else ''})"


@functools.cache
def model_data(user: bool = True) -> ModelData:
    """The overlay and the active table, read once per process on first use.

    The user's table (`promptc models update`) wins over the shipped one unless `user` is
    False (`--no-user`, `--builtins-only`); a malformed one is a ConfigError naming the file,
    and a row of it that does not decode is left out (`ModelData.problems` says which).
    (`model_data.cache_clear()` reads them again.)
    """
    overlay = shipped_overlay()
    user_path = user_table_path()
    if user and user_path.is_file():
        table, problems = _read_table(user_path, user=True).without_bad_rows()
        return ModelData(overlay, table, _shipped_source(shipped_table_path()), problems)
    table = _read_table(shipped_table_path(), user=False)
    return ModelData(overlay, table, table.source)


def _read_table(path: Path, *, user: bool) -> ModelTable:
    return parse_table(read_text_file(path, ConfigError, MAX_TABLE_FILE), str(path), user=user)


def _shipped_source(path: Path) -> Mapping[str, Any]:
    head = read_text_file(path, ConfigError, MAX_TABLE_FILE)
    source: Mapping[str, Any] = json.loads(head).get("source", {})
    return source


def model_table() -> dict[str, Any]:
    """The families, defaults and local servers as plain data (for lint's probes)."""
    overlay = model_data().overlay
    families = [(tuple(normalize_model_id(ex).split("-")), {"id": f.id, **f.facts})
                for f in overlay.families for ex in (f.examples or f.patterns[:1])]
    return {"defaults": dict(overlay.defaults), "local": dict(overlay.local),
            "families": families, "local_providers": overlay.local_providers}


def local_providers() -> frozenset[str]:
    """Provider ids of local servers (ollama, LM Studio, llama.cpp, …)."""
    return model_data().overlay.local_providers
