"""Which vendor serves a model line first-hand (`_data/vendors.toml`), read once.

`promptc diff --to-model` uses it to pick the other side's provider when only the model
changes: a vendor's own API moves to the new model's vendor, a router or local server stays.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import attrs

from ..._base.errors import ConfigError
from ..._base.files import read_toml
from .ids import model_tokens, normalize_provider
from .paths import vendors_path
from .rows import check_keys, str_list

__all__ = ["Vendors", "parse_vendors", "shipped_vendors"]


@attrs.frozen
class Vendors:
    """{first word of a normalized model id: the provider id of its vendor}."""

    by_word: Mapping[str, str]

    @property
    def providers(self) -> frozenset[str]:
        return frozenset(self.by_word.values())

    def is_vendor(self, provider: str) -> bool:
        """True when `provider` is one of the vendors (however it is cased or padded)."""
        return normalize_provider(provider) in self.providers

    def vendor_of(self, model: str) -> str | None:
        """The vendor of `model`'s line, or None when the data does not name one."""
        words = model_tokens(model)
        return self.by_word.get(words[0]) if words else None


def parse_vendors(data: Mapping[str, Any], source: str) -> Vendors:
    """The vendor table from its TOML data; errors name the file and the field."""
    check_keys(data, ("vendors",), source, "vendors.toml")
    table = data.get("vendors")
    if not isinstance(table, Mapping):
        raise ConfigError("missing [vendors] table", source=source, field="vendors")
    by_word: dict[str, str] = {}
    for vendor, words in table.items():
        for word in str_list(words, source, f"vendors.{vendor}"):
            _check_word(word, vendor, by_word, source)
            by_word[word] = vendor
    return Vendors(by_word)


def _check_word(word: str, vendor: str, seen: Mapping[str, str], source: str) -> None:
    """A word as a normalized id spells its first token, under one vendor only, and the
    vendor as promptc spells provider ids."""
    field = f"vendors.{vendor}"
    if normalize_provider(vendor) != vendor:
        raise ConfigError("write the provider id trimmed and lowercase", source=source,
                          field=field)
    if model_tokens(word) != (word,):
        raise ConfigError(f"{word!r} is not the first word of a normalized model id "
                          "(lowercase, no separators)", source=source, field=field)
    if word in seen:
        raise ConfigError(f"{word!r} is already {seen[word]!r}'s", source=source, field=field)


@functools.cache
def shipped_vendors() -> Vendors:
    path = vendors_path()
    return parse_vendors(read_toml(path, ConfigError), str(path))
