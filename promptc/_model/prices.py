"""Model prices (input, output, cache read, cache write), from the table generated from LiteLLM.

The table (`promptc/_data/prices.generated.json`, written by scripts/update_models.py with the
model table, from the same LiteLLM map) is read only by what needs prices (`promptc session`),
once per process. A user's `prices.json` (written by `promptc models update`) wins over it.
Lookup folds a model id the way model facts are looked up: normalized, then without its release
date; a provider's own row (Bedrock, Vertex, …) wins over the model's.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from .._base.errors import ConfigError
from .._base.files import read_text_file
from .provider import (MAX_TABLE_FILE, ProviderInfo, normalize_model_id, shipped_overlay,
                       shipped_table_path, undated, user_data_dir)

__all__ = ["Prices", "PriceTable", "PRICE_FIELDS", "PRICE_FORMAT", "model_prices",
           "price_table", "parse_prices", "shipped_prices_path", "user_prices_path"]

PRICE_FORMAT = "promptc-prices/1"
PRICE_FIELDS = ("input", "output", "cache_read", "cache_write")


def shipped_prices_path() -> Path:
    return shipped_table_path().with_name("prices.generated.json")


def user_prices_path(env: Mapping[str, str] | None = None) -> Path:
    return user_data_dir(env) / "prices.json"


@attrs.frozen
class Prices:
    """One model's prices in USD per million tokens (None: the map does not say)."""

    model: str
    entry: str  # the LiteLLM map entry the prices came from
    input: float | None
    output: float | None
    cache_read: float | None
    cache_write: float | None
    source: str  # "LiteLLM 1.110.2"
    date: str    # when the table was generated

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "entry": self.entry, "input": self.input,
                "output": self.output, "cache_read": self.cache_read,
                "cache_write": self.cache_write, "unit": "USD per million tokens",
                "source": self.source, "date": self.date}


@attrs.frozen
class PriceTable:
    path: str
    source: Mapping[str, str]
    models: Mapping[str, str]

    @property
    def label(self) -> str:
        return f"{self.source.get('name', 'LiteLLM')} {self.source.get('version', 'unknown')}"

    def row(self, key: str, provider: str) -> list[Any] | None:
        """The model's prices for a normalized id, a provider's own values over them."""
        text = self.models.get(key)
        if text is None:
            return None
        head, _, rest = text.partition(";")
        base = _decode(head, self.path, key)
        for part in rest.split(";") if rest else ():
            name, eq, row = part.partition("=")
            if not eq:
                raise ConfigError(f"a provider's part must be `provider=row`, got {part!r}",
                                  source=self.path, field=f"models.{key}")
            if name == provider:
                mine = _decode(row, self.path, f"{key};{name}")
                return [mine[0], *(m if m is not None else b
                                   for m, b in zip(mine[1:], base[1:]))]
        return base


def _decode(text: str, path: str, key: str) -> list[Any]:
    parts = text.split("|")
    if len(parts) != len(PRICE_FIELDS) + 1 or not parts[0]:
        raise ConfigError(f"must be the entry id and {len(PRICE_FIELDS)} prices separated by "
                          f"`|` ({', '.join(PRICE_FIELDS)})", source=path, field=f"models.{key}")
    out: list[Any] = [parts[0]]
    for name, value in zip(PRICE_FIELDS, parts[1:]):
        try:
            out.append(float(value) if value else None)
        except ValueError:
            raise ConfigError(f"{name} must be a number, got {value!r}", source=path,
                              field=f"models.{key}") from None
    return out


def _check_header(data: Any, path: str) -> None:
    if not isinstance(data, dict) or data.get("format") != PRICE_FORMAT:
        raise ConfigError(f"not a promptc price table (expected format {PRICE_FORMAT!r}); run "
                          "`promptc models update` to rewrite it", source=path, field="format")
    if data.get("fields") != list(PRICE_FIELDS):
        raise ConfigError(f"fields must be {list(PRICE_FIELDS)}", source=path, field="fields")
    for key in ("source", "models"):
        value = data.get(key)
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise ConfigError("must be an object of strings", source=path, field=key)


def parse_prices(text: str, path: str, *, deep: bool = False) -> PriceTable:
    """A price table from its JSON text (`deep`: every row decoded now)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"invalid JSON: {exc.msg} (line {exc.lineno})", source=path) from None
    _check_header(data, path)
    table = PriceTable(path, data["source"], data["models"])
    if deep:
        for key in table.models:
            table.row(key, "")
    return table


@functools.cache
def price_table() -> PriceTable:
    """The user's price table if there is one, else the shipped one (read once)."""
    user = user_prices_path()
    path = user if user.is_file() else shipped_prices_path()
    return parse_prices(read_text_file(path, ConfigError, MAX_TABLE_FILE), str(path))


def model_prices(info: ProviderInfo) -> Prices | None:
    """The prices of `info`'s model as its provider bills them, or None when the table has none.

    The exact normalized id first, then without its release date (`claude-sonnet-4-5-20250929`
    → `claude-sonnet-4-5`)."""
    table = price_table()
    normalized = normalize_model_id(info.model)
    if not normalized:
        return None
    tokens = tuple(normalized.split("-"))
    provider = shipped_overlay().provider_key(info.provider)
    row = table.row(normalized, provider)
    if row is None and undated(tokens) != tokens:
        row = table.row("-".join(undated(tokens)), provider)
    if row is None:
        return None
    return Prices(model=info.model, entry=row[0], input=row[1], output=row[2],
                  cache_read=row[3], cache_write=row[4], source=table.label,
                  date=table.source.get("date", ""))
