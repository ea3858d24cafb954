"""Family rows and model rows: patterns on the normalized id, facts, a source note.

A `[[family]]` row (in the overlay, or in a folder's models.toml) says which family an id
belongs to (the first match in file order wins) and gives the family's facts for ids the
table does not know; a `[[model]]` row adds facts the map lacks (`wins = false`, the default)
or corrects it (`wins = true`). Both are read into a `FamilyRow`; this module also holds the
small readers every row of the model data goes through.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from ..._base.errors import ConfigError
from .capabilities import CAPABILITIES, check_facts
from .patterns import Pattern, TokenKind, compile_pattern, pattern_matches

__all__ = ["FamilyRow", "parse_row", "parse_family_row", "check_keys", "str_list",
           "text_value", "table_list"]


def _heads_of(row: FamilyRow) -> frozenset[str]:
    """The literal words some pattern of `row` starts with."""
    return frozenset(p[0].text for p in row.compiled if p[0].kind is TokenKind.LITERAL)


def _head_prefixes_of(row: FamilyRow) -> tuple[str, ...]:
    """What else a first token may start with for a pattern to match (`""`: anything)."""
    prefixes = {p[0].prefix for p in row.compiled if p[0].kind is TokenKind.VERSION}
    if any(p[0].kind is TokenKind.WORD for p in row.compiled):
        prefixes.add("")
    return tuple(sorted(prefixes))


@attrs.frozen
class FamilyRow:
    """A model family or an overlay model row (see the module's docstring)."""

    id: str
    title: str
    patterns: tuple[str, ...]
    compiled: tuple[Pattern, ...]
    facts: Mapping[str, Any]
    source: str
    unless: frozenset[str] = frozenset()
    providers: frozenset[str] = frozenset()
    aliases: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    wins: bool = False
    # A folder's family that takes models or an id from another source's family on purpose
    # (`override = true` on its row); without it, that is a warning (families.py).
    override: bool = False
    # What the first token must be (or start with) for any pattern to match: a quick refusal.
    _heads: frozenset[str] = attrs.field(
        init=False, eq=False, repr=False, default=attrs.Factory(_heads_of, takes_self=True))
    _head_prefixes: tuple[str, ...] = attrs.field(
        init=False, eq=False, repr=False,
        default=attrs.Factory(_head_prefixes_of, takes_self=True))

    def matches(self, tokens: Sequence[str], starts: Sequence[int] = (0,),
                provider: str = "") -> bool:
        """True when a pattern matches the id's tokens from one of `starts` (and the row is
        for `provider`, when it names providers)."""
        if self.providers and provider not in self.providers:
            return False
        return any(self._matches_at(tokens, start) for start in starts)

    def _matches_at(self, tokens: Sequence[str], start: int) -> bool:
        if start >= len(tokens) or not self._may_start_with(tokens[start]):
            return False
        if not self.unless.isdisjoint(tokens[start:]):
            return False
        return any(pattern_matches(p, tokens, start) for p in self.compiled)

    @property
    def heads(self) -> tuple[frozenset[str], tuple[str, ...]]:
        """(the words a match may start with, the prefixes it may start with; `""`: any)."""
        return self._heads, self._head_prefixes

    def _may_start_with(self, head: str) -> bool:
        return head in self._heads or any(head.startswith(p) for p in self._head_prefixes)


_FAMILY_KEYS = ("id", "title", "patterns", "source", "unless", "aliases", "examples",
                *CAPABILITIES)
_MODEL_KEYS = ("id", "patterns", "source", "unless", "providers", "wins", *CAPABILITIES)


def parse_row(row: Any, kind: str, index: int, source: str,
               fold: Callable[[str], str] = str.lower) -> FamilyRow:
    """One `[[family]]` or `[[model]]` row (`kind`); `fold` spells its providers as the
    overlay's provider keys. Errors name the file (`source`) and the row's field."""
    field = f"{kind}[{index}]"
    if not isinstance(row, Mapping):
        raise ConfigError("must be a table", source=source, field=field)
    check_keys(row, _FAMILY_KEYS if kind == "family" else _MODEL_KEYS, source, field)
    rid = text_value(row, "id", source, field)
    field = f"{kind}[{rid}]"
    patterns = _patterns(row, source, field)
    compiled = tuple(compile_pattern(p, source, f"{field}.patterns") for p in patterns)
    wins = _flag(row, "wins", source, field)
    facts = check_facts(row, source, field)
    if kind == "model" and not facts:
        raise ConfigError("a model row must set at least one fact", source=source, field=field)

    def words(key: str) -> tuple[str, ...]:
        return str_list(row.get(key, []), source, f"{field}.{key}")

    return FamilyRow(
        id=rid, title=text_value(row, "title", source, field, rid), patterns=patterns,
        compiled=compiled, facts=facts, source=text_value(row, "source", source, field),
        unless=frozenset(words("unless")), providers=frozenset(map(fold, words("providers"))),
        aliases=words("aliases"), examples=words("examples"), wins=wins)


def parse_family_row(row: Any, index: int, source: str) -> FamilyRow:
    """One `[[family]]` row of a folder's models.toml: the overlay's form, and `override`."""
    if not isinstance(row, Mapping) or "override" not in row:
        return parse_row(row, "family", index, source)
    made = parse_row({k: v for k, v in row.items() if k != "override"}, "family", index,
                     source)
    return attrs.evolve(made, override=_flag(row, "override", source, f"family[{made.id}]"))


def _patterns(row: Mapping[str, Any], source: str, field: str) -> tuple[str, ...]:
    patterns = str_list(row.get("patterns"), source, f"{field}.patterns")
    if not patterns:
        raise ConfigError("must list at least one pattern", source=source,
                          field=f"{field}.patterns")
    return patterns


def _flag(row: Mapping[str, Any], key: str, source: str, field: str) -> bool:
    value = row.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError("must be true or false", source=source, field=f"{field}.{key}")
    return value


# --- reading rows ------------------------------------------------------------------------------

def check_keys(row: Mapping[str, Any], allowed: Iterable[str], source: str, field: str) -> None:
    allowed = tuple(allowed)
    for key in row:
        if key not in allowed:
            from ..._base.suggest import unknown_key
            raise ConfigError(unknown_key(str(key), allowed), source=source,
                              field=f"{field}.{key}")


def str_list(value: Any, source: str, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError("must be a list of non-empty strings", source=source, field=field)
    return tuple(value)


def text_value(row: Mapping[str, Any], key: str, source: str, field: str,
               default: str | None = None) -> str:
    value = row.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError("must be a non-empty string", source=source, field=f"{field}.{key}")
    return value


def table_list(value: Any, source: str, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise ConfigError("must be an array of tables", source=source, field=field)
    return value
