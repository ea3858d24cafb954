"""Model families from a folder: a plugin's template folder, the user folder or a project's
`.promptc/` may hold a `models.toml` with `[[family]]` rows in the overlay's form (`id`,
`title`, `patterns`, `examples`, `source`, `unless`, `aliases` and facts such as
`context_window` or `native_tools`). Variants match them like the built-in families; a
folder's families are tried before the built-ins (a later folder first), so a plugin can name
a line of models the shipped data does not know.

Because they are tried first, a folder's family can also take models another source's family
describes (`claude-*-{4..}` in a plugin moves claude-sonnet-4-5 off `claude-4`), or reuse its
id with other patterns. `family_findings` reports both, naming the two sources: a warning
(strict mode refuses it), or a note when the row says `override = true`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from ..._base.errors import ConfigError
from ..._base.files import read_toml
from ..._base.suggest import did_you_mean
from ..diagnostics import Diagnostic
from .ids import normalize_model_id
from .overlay import Overlay
from .rows import FamilyRow, parse_family_row

__all__ = ["FAMILY_FILE", "read_families", "merged_families", "family_findings",
           "BUILTIN_FAMILIES"]

BUILTIN_FAMILIES = "promptc's model data"  # how a finding names the overlay's families
_SHOWN = 3  # model ids a finding names

FAMILY_FILE = "models.toml"


def read_families(path: Path, origin: str) -> tuple[FamilyRow, ...]:
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
    rules: list[FamilyRow] = []
    for i, row in enumerate(rows):
        rule = parse_family_row(row, i, str(path))
        if any(r.id == rule.id for r in rules):
            raise ConfigError(f"duplicate id {rule.id!r}", source=str(path),
                              field=f"family[{rule.id}]")
        rules.append(_cited(rule, origin))
    return tuple(rules)


def _cited(rule: FamilyRow, origin: str) -> FamilyRow:
    return attrs.evolve(rule, source=f"{origin}: {rule.source}" if rule.source else origin)


def merged_families(layers: Sequence[tuple[str, Sequence[FamilyRow]]]
                    ) -> tuple[tuple[FamilyRow, ...], list[tuple[str, str, str]]]:
    """The folders' families, tried later-folder first; a later folder's id replaces an
    earlier one's. Returns them and (id, old source, new source) for each replacement."""
    by_id: dict[str, FamilyRow] = {}
    replaced: list[tuple[str, str, str]] = []
    for _layer, rules in layers:
        for rule in rules:
            if rule.id in by_id:
                replaced.append((rule.id, by_id[rule.id].source, rule.source))
            by_id[rule.id] = rule
    ordered = [r for _layer, rules in reversed(list(layers)) for r in rules
               if by_id.get(r.id) is r]
    return tuple(ordered), replaced


@attrs.frozen
class _Sourced:
    """A family and the source it came from (a layer, or the built-in model data)."""

    rule: FamilyRow
    source: str


def family_findings(layers: Sequence[tuple[str, Sequence[FamilyRow]]], overlay: Overlay,
                    known_ids: Iterable[str]) -> list[Diagnostic]:
    """What the folders' families take from another source's family: the known models
    (`known_ids`: the model table's ids; every family's examples are added) whose family
    changes because of them, and ids reused with other patterns. `layers` as for
    `merged_families`, in load order."""
    sourced = [_Sourced(r, layer) for layer, rules in layers for r in rules]
    if not sourced:
        return []
    merged, _ = merged_families(layers)
    tried = [next(s for s in sourced if s.rule is r) for r in merged]
    builtin = [_Sourced(r, BUILTIN_FAMILIES) for r in overlay.families]
    out = [*_reused_ids(sourced, builtin)]
    ids = {*known_ids, *(normalize_model_id(ex) for s in (*sourced, *builtin)
                         for ex in s.rule.examples)} - {""}  # the table's ids: normalized
    taken: dict[tuple[int, int], list[str]] = {}
    order = [*tried, *builtin]
    words: set[str] = set()
    prefixes: set[str] = set()
    for s in tried:
        words.update(s.rule.heads[0])
        prefixes.update(s.rule.heads[1])
    starters = tuple(prefixes)
    for model in sorted(ids):
        tokens = tuple(model.split("-"))
        if "" not in prefixes and words.isdisjoint(tokens) and not any(
                t.startswith(starters) for t in tokens):
            continue  # no folder family can match it anywhere: the quick refusal
        starts = overlay.starts(tokens)
        first = next((i for i, s in enumerate(tried) if s.rule.matches(tokens, starts)), None)
        if first is None:  # most ids: no folder family is theirs
            continue
        second = next((i for i in range(first + 1, len(order))
                       if order[i].rule.matches(tokens, starts)), None)
        if second is not None and order[second].source != order[first].source:
            taken.setdefault((first, second), []).append(model)  # without it: another's
    for (w, lose), models in sorted(taken.items()):
        known = order[lose].rule.examples  # its own examples named first: the familiar ids
        models.sort(key=lambda m: (m not in known, m))
        out.append(_taking(order[w], order[lose], models))
    return out


def _names(s: _Sourced) -> str:
    return f"model family {s.rule.id!r} ({s.source})"


def _taking(winner: _Sourced, loser: _Sourced, models: Sequence[str]) -> Diagnostic:
    shown = ", ".join(models[:_SHOWN]) + (f" and {len(models) - _SHOWN} more"
                                          if len(models) > _SHOWN else "")
    what = (f"{_names(winner)} takes {len(models)} known model(s) from {_names(loser)}: "
            f"{shown}")
    if winner.rule.override:
        return Diagnostic("info", "family-override", f"{what} (its row says override = true)",
                          winner.source)
    return Diagnostic("warning", "family-conflict",
                      f"{what}; variants matching {loser.rule.id!r} no longer get them. Narrow "
                      "its patterns, or set `override = true` on its [[family]] row if that is "
                      "intended", winner.source)


def _reused_ids(sourced: Sequence[_Sourced], builtin: Sequence[_Sourced]
                ) -> Iterable[Diagnostic]:
    """A family whose id an earlier source (or the built-in data) already gives to other
    patterns: whatever matches it now reads as that family."""
    earlier: dict[str, _Sourced] = {s.rule.id: s for s in builtin}
    for s in sourced:
        before = earlier.get(s.rule.id)
        earlier[s.rule.id] = s
        if before is None or before.source == s.source or \
                before.rule.patterns == s.rule.patterns:
            continue
        what = (f"{_names(s)} reuses the id of {_names(before)} with other patterns "
                f"({', '.join(s.rule.patterns)} instead of {', '.join(before.rule.patterns)})")
        if s.rule.override:
            yield Diagnostic("info", "family-override",
                             f"{what} (its row says override = true)", s.source)
        else:
            yield Diagnostic("warning", "family-conflict",
                             f"{what}; give it an id of its own, or set `override = true` on "
                             "its [[family]] row if that is intended", s.source)
