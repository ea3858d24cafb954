"""The overlay: the hand-kept half of the model data (`_data/models.overlay.toml`).

It holds promptc's defaults, a local server's defaults, the model families, model rows for
facts LiteLLM's map lacks or gets wrong, and the spellings that fold provider ids and gateway
prefixes to one form. `shipped_overlay()` reads promptc's own, once per process.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ..._base.errors import ConfigError
from ..._base.files import parse_toml, read_text_file
from .capabilities import CAPABILITIES, check_facts
from .ids import normalize_model_id, normalize_provider
from .paths import overlay_path
from .rows import FamilyRow, check_keys, parse_row, str_list, table_list, text_value

__all__ = ["Overlay", "parse_overlay", "fold_provider", "shipped_overlay"]


@attrs.frozen
class Overlay:
    """The hand-kept part: defaults, local servers, families, model rows, spellings."""

    path: str
    defaults: Mapping[str, Any]
    defaults_source: str
    local_providers: frozenset[str]
    local: Mapping[str, Any]
    local_source: str
    families: tuple[FamilyRow, ...]
    models: tuple[FamilyRow, ...]
    prefixes: tuple[tuple[str, ...], ...]
    provider_aliases: Mapping[str, str]
    provider_prefixes: tuple[tuple[str, str], ...]
    first_party: frozenset[str]
    # The first words of the glued prefixes: most ids start with none of them.
    _prefix_heads: frozenset[str] = attrs.field(
        init=False, eq=False, repr=False,
        default=attrs.Factory(lambda self: frozenset(p[0] for p in self.prefixes),
                              takes_self=True))

    def provider_key(self, provider: str) -> str:
        """One key per provider however it is spelled (`bedrock_converse` → `bedrock`)."""
        return fold_provider(self.provider_aliases, self.provider_prefixes, provider)

    def starts(self, tokens: Sequence[str]) -> tuple[int, ...]:
        """Where a family name may start: 0, or after a gateway's glued prefix word."""
        if not tokens or tokens[0] not in self._prefix_heads:
            return (0,)
        return (0, *(len(prefix) for prefix in self.prefixes
                     if len(tokens) > len(prefix) and tuple(tokens[:len(prefix)]) == prefix))

    def family_for(self, tokens: Sequence[str], starts: Sequence[int] | None = None
                   ) -> FamilyRow | None:
        starts = self.starts(tokens) if starts is None else starts
        return next((rule for rule in self.families if rule.matches(tokens, starts)), None)

    def family_by_id(self, family: str) -> FamilyRow | None:
        return next((rule for rule in self.families
                     if rule.id == family or family in rule.aliases), None)


def fold_provider(aliases: Mapping[str, str], prefixes: Sequence[tuple[str, str]],
                  provider: str) -> str:
    """The provider's key: its alias's target, the target of the longest prefix it starts
    with (`vertex_ai-*`), or the id itself, normalized."""
    p = normalize_provider(provider)
    hit = aliases.get(p)
    if hit is not None:
        return hit
    return next((key for prefix, key in prefixes if p.startswith(prefix)), p)


# --- reading it --------------------------------------------------------------------------------

_OVERLAY_KEYS = ("defaults", "local", "spellings", "family", "model")
_LOCAL_KEYS = ("source", "providers", *CAPABILITIES)
_SPELLING_KEYS = ("prefixes", "providers", "first_party")


def parse_overlay(data: Mapping[str, Any], source: str) -> Overlay:
    """The overlay from its TOML data; errors name the file (`source`) and the field."""
    check_keys(data, _OVERLAY_KEYS, source, "overlay")
    defaults, default_facts = _defaults(data, source)
    local = _section(data, "local", _LOCAL_KEYS, source)
    spellings = _section(data, "spellings", _SPELLING_KEYS, source)
    aliases, provider_prefixes = _provider_spellings(spellings, source)
    fold = functools.partial(fold_provider, aliases, provider_prefixes)
    families = _rules(data, "family", source, str.lower)
    models = _rules(data, "model", source, fold)
    _check_unique("family", families, source)
    _check_unique("model", models, source)
    glued = _glued_prefixes(spellings, source)
    return Overlay(
        path=source, defaults=default_facts,
        defaults_source=text_value(defaults, "source", source, "defaults"),
        local_providers=frozenset(p.lower() for p in str_list(
            local.get("providers", []), source, "local.providers")),
        local=check_facts(local, source, "local"),
        local_source=text_value(local, "source", source, "local", "local server defaults"),
        families=families, models=models, prefixes=glued, provider_aliases=aliases,
        provider_prefixes=provider_prefixes,
        first_party=frozenset(map(fold, str_list(spellings.get("first_party", []), source,
                                                 "spellings.first_party"))))


def _defaults(data: Mapping[str, Any], source: str
              ) -> tuple[Mapping[str, Any], dict[str, Any]]:
    """The [defaults] table and its facts: every capability, each checked."""
    defaults = data.get("defaults")
    if not isinstance(defaults, Mapping):
        raise ConfigError("missing [defaults] table", source=source, field="defaults")
    check_keys(defaults, ("source", *CAPABILITIES), source, "defaults")
    facts = check_facts(defaults, source, "defaults")
    missing = [n for n in CAPABILITIES if n not in facts]
    if missing:
        raise ConfigError(f"must set every capability; missing {', '.join(missing)}",
                          source=source, field="defaults")
    return defaults, facts


def _section(data: Mapping[str, Any], name: str, keys: Sequence[str], source: str
             ) -> Mapping[str, Any]:
    """An optional table of the overlay (`[local]`, `[spellings]`), its keys checked."""
    table = data.get(name, {})
    if not isinstance(table, Mapping):
        raise ConfigError("must be a table", source=source, field=name)
    check_keys(table, keys, source, name)
    return table


def _provider_spellings(spellings: Mapping[str, Any], source: str
                        ) -> tuple[dict[str, str], tuple[tuple[str, str], ...]]:
    """[spellings.providers]: {alias: key}, and (prefix, key) for each `prefix*`, the
    longest prefix first."""
    raw = spellings.get("providers", {})
    if not isinstance(raw, Mapping):
        raise ConfigError("must be a table of lists", source=source, field="spellings.providers")
    aliases: dict[str, str] = {}
    prefixes: list[tuple[str, str]] = []
    for key in sorted(raw):
        for alias in map(str.lower, str_list(raw[key], source, f"spellings.providers.{key}")):
            if alias.endswith("*"):
                prefixes.append((alias[:-1], key))
            else:
                aliases[alias] = key
    prefixes.sort(key=lambda p: (-len(p[0]), p))
    return aliases, tuple(prefixes)


def _rules(data: Mapping[str, Any], kind: str, source: str, fold: Callable[[str], str]
           ) -> tuple[FamilyRow, ...]:
    rows = table_list(data.get(kind, []), source, kind)
    return tuple(parse_row(row, kind, i, source, fold) for i, row in enumerate(rows))


def _check_unique(kind: str, rules: Sequence[FamilyRow], source: str) -> None:
    seen: set[str] = set()
    for rule in rules:
        if rule.id in seen:
            raise ConfigError(f"duplicate id {rule.id!r}", source=source,
                              field=f"{kind}[{rule.id}]")
        seen.add(rule.id)


def _glued_prefixes(spellings: Mapping[str, Any], source: str) -> tuple[tuple[str, ...], ...]:
    """[spellings].prefixes as token tuples, the longest first."""
    glued = {tuple(normalize_model_id(p).split("-"))
             for p in str_list(spellings.get("prefixes", []), source, "spellings.prefixes")}
    return tuple(sorted(glued, key=lambda p: (-len(p), p)))


@functools.cache
def shipped_overlay() -> Overlay:
    """The overlay shipped with promptc, read from its TOML once per process."""
    path = overlay_path()
    return parse_overlay(parse_toml(read_text_file(path, ConfigError), path, ConfigError),
                         str(path))
