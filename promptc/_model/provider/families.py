"""Model families from a folder: a plugin's template folder, the user folder or a project's
`.promptc/` may hold a `models.toml` with `[[family]]` rows in the overlay's form (`id`,
`title`, `patterns`, `examples`, `source`, `unless`, `aliases` and facts such as
`context_window` or `native_tools`). Variants match them like the built-in families; a
folder's families are tried before the built-ins (a later folder first), so a plugin can name
a line of models the shipped data does not know."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from ..._base.errors import ConfigError
from ..._base.files import read_toml
from ..._base.suggest import did_you_mean
from .rules import FamilyRule, parse_family_row

__all__ = ["FAMILY_FILE", "read_families", "merged_families"]

FAMILY_FILE = "models.toml"


def read_families(path: Path, origin: str) -> tuple[FamilyRule, ...]:
    """The `[[family]]` rows of a folder's models.toml; errors name the file and the field.
    Each rule's `source` starts with `origin` (`plugin:acme models.toml`), then the row's own
    citation, so `explain` says where a family came from."""
    data: dict[str, Any] = read_toml(path, ConfigError)
    for key in data:
        if key != "family":
            raise ConfigError("a models.toml holds [[family]] rows only" +
                              did_you_mean(key, ["family"]), source=str(path), field=key)
    rows = data.get("family", [])
    if not isinstance(rows, list):
        raise ConfigError("must be an array of tables ([[family]])", source=str(path),
                          field="family")
    rules: list[FamilyRule] = []
    for i, row in enumerate(rows):
        rule = parse_family_row(row, i, str(path))
        if any(r.id == rule.id for r in rules):
            raise ConfigError(f"duplicate id {rule.id!r}", source=str(path),
                              field=f"family[{rule.id}]")
        rules.append(_cited(rule, origin))
    return tuple(rules)


def _cited(rule: FamilyRule, origin: str) -> FamilyRule:
    return attrs.evolve(rule, source=f"{origin}: {rule.source}" if rule.source else origin)


def merged_families(layers: Sequence[tuple[str, Sequence[FamilyRule]]]
                    ) -> tuple[tuple[FamilyRule, ...], list[tuple[str, str, str]]]:
    """The folders' families, tried later-folder first; a later folder's id replaces an
    earlier one's. Returns them and (id, old source, new source) for each replacement."""
    by_id: dict[str, FamilyRule] = {}
    replaced: list[tuple[str, str, str]] = []
    for _layer, rules in layers:
        for rule in rules:
            if rule.id in by_id:
                replaced.append((rule.id, by_id[rule.id].source, rule.source))
            by_id[rule.id] = rule
    ordered = [r for _layer, rules in reversed(list(layers)) for r in rules
               if by_id.get(r.id) is r]
    return tuple(ordered), replaced
