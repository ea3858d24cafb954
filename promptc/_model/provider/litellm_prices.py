"""Writing promptc's price table from LiteLLM's model map (tooling, beside litellm_map.py, which
writes the model table from the same map).

Prices are kept apart from the model table (`promptc/_data/prices.generated.json`): only
`promptc session` reads them, so the per-request path never parses them. Rows follow the model
table's grammar: one string per normalized model id, `entry|input|output|cache_read|cache_write`
in USD per million tokens (empty when the map does not say), then `;provider=entry|…` for a
provider whose prices differ. Entries that name one model are grouped as the model table groups
them: the vendor's own API first, then unprefixed map keys, then everyone.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..prices import (PRICE_FIELDS, PRICE_FORMAT, parse_prices, price_table,
                             user_prices_path)
from .ids import normalize_model_id
from .overlay import Overlay, shipped_overlay
from .litellm_map import CHAT_MODES

__all__ = ["prices_from_litellm", "dump_prices", "write_prices", "write_user_prices",
           "remove_user_prices"]

# LiteLLM's per-token keys; cache_write is the 5-minute write (Anthropic's default TTL).
_LITELLM_KEYS = {"input": "input_cost_per_token", "output": "output_cost_per_token",
                 "cache_read": "cache_read_input_token_cost",
                 "cache_write": "cache_creation_input_token_cost"}

Row = tuple[Any, ...]  # (entry id, input, output, cache_read, cache_write)


def _per_million(raw: Any) -> str | None:
    """A per-token price as USD per million tokens, in at most 6 significant digits."""
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw < 0:
        return None
    return f"{raw * 1_000_000:.6g}"


def _row(raw_id: str, entry: Mapping[str, Any]) -> Row:
    return (raw_id, *(_per_million(entry.get(_LITELLM_KEYS[f])) for f in PRICE_FIELDS))


def _consensus(rows: Sequence[Row]) -> Row:
    """The most common set of prices among entries naming one model (ties: the plainest id,
    `azure/gpt-5` before `azure/eu/gpt-5`)."""
    rows = sorted(rows, key=lambda r: (r[0].count("/"), len(r[0]), r[0]))
    counts = Counter(r[1:] for r in rows if any(v is not None for v in r[1:]))
    if not counts:
        return rows[0]
    best = max(counts.values())
    prices = next(r[1:] for r in rows if counts.get(r[1:]) == best)
    return next(r for r in rows if r[1:] == prices)


def _encode(row: Row) -> str:
    return "|".join("" if v is None else str(v) for v in row)


def _groups(litellm: Mapping[str, Any], overlay: Overlay
            ) -> dict[str, list[tuple[str, str, Row]]]:
    groups: dict[str, list[tuple[str, str, Row]]] = {}
    for raw_id in sorted(litellm):
        entry = litellm[raw_id]
        if not isinstance(entry, Mapping) or entry.get("mode") not in CHAT_MODES or \
                any(c in raw_id for c in "|;="):
            continue
        key = normalize_model_id(raw_id)
        row = _row(raw_id, entry)
        if key and any(v is not None for v in row[1:]):
            provider = overlay.provider_key(str(entry.get("litellm_provider") or ""))
            groups.setdefault(key, []).append((raw_id, provider, row))
    return groups


def _tiers(members: Sequence[tuple[str, str, Row]], overlay: Overlay) -> list[list[Row]]:
    """The vendor's own API, then unprefixed map keys, then everyone (empty tiers left out)."""
    first = [r for _, p, r in members if p in overlay.first_party]
    plain = [r for i, _, r in members if "/" not in i]
    return [tier for tier in (first, plain, [r for _, _, r in members]) if tier]


def _fill(base: Row, row: Row) -> Row:
    """`base` with the prices it does not know taken from `row`."""
    return (base[0], *(b if b is not None else r for b, r in zip(base[1:], row[1:])))


def _base_row(members: Sequence[tuple[str, str, Row]], overlay: Overlay) -> Row:
    """The model's own prices: the best tier's, each later tier filling what it does not know."""
    tiers = _tiers(members, overlay)
    base = _consensus(tiers[0])
    for tier in tiers[1:]:
        base = _fill(base, _consensus(tier))
    return base


def _by_provider(members: Sequence[tuple[str, str, Row]]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for _, provider, member in members:
        if provider and not any(c in provider for c in "|;="):
            out.setdefault(provider, []).append(member)
    return out


def _difference(own: Row, base: Row) -> Row:
    """`own` with only the prices that differ from `base` (the others empty)."""
    return (own[0], *(v if v is not None and v != b else None
                      for v, b in zip(own[1:], base[1:])))


def _provider_parts(members: Sequence[tuple[str, str, Row]], base: Row) -> str:
    """`;provider=entry|…` for each provider whose prices differ, with just the differences."""
    groups = _by_provider(members)
    diffs = [(p, _difference(_consensus(groups[p]), base)) for p in sorted(groups)]
    return "".join(f";{p}={_encode(d)}" for p, d in diffs if any(v is not None for v in d[1:]))


def _model_text(members: Sequence[tuple[str, str, Row]], overlay: Overlay) -> str:
    base = _base_row(members, overlay)
    return _encode(base) + _provider_parts(members, base)


def prices_from_litellm(litellm: Mapping[str, Any], source: Mapping[str, str],
                        overlay: Overlay | None = None) -> dict[str, Any]:
    """promptc's price table from LiteLLM's map: chat entries with at least one price."""
    overlay = overlay or shipped_overlay()
    groups = _groups(litellm, overlay)
    models = {key: _model_text(groups[key], overlay) for key in sorted(groups)}
    return {"format": PRICE_FORMAT, "source": dict(source), "unit": "USD per million tokens",
            "fields": list(PRICE_FIELDS), "models": models}


def dump_prices(table: Mapping[str, Any]) -> str:
    """The table as JSON text, one model per line so a refresh reads well in a diff."""
    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)

    models = table["models"]
    lines = ["{", f'"format":{dumps(table["format"])},', f'"source":{dumps(table["source"])},',
             f'"unit":{dumps(table["unit"])},', f'"fields":{dumps(table["fields"])},',
             '"models":{']
    lines += [f"{dumps(k)}:{dumps(models[k])}{',' if i < len(models) - 1 else ''}"
              for i, k in enumerate(models)]
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"


def write_prices(path: Path, table: Mapping[str, Any]) -> None:
    """Write the table atomically, after checking that it reads back."""
    text = dump_prices(table)
    parse_prices(text, str(path), deep=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_user_prices(map_file: Path | None, source: Mapping[str, str]) -> Path | None:
    """`promptc models update`: the user's price table beside the user's model table, from
    the same LiteLLM map (None when `map_file` is a promptc model table, which has no prices:
    the prices in use stay as they are)."""
    from .litellm_map import installed_litellm, read_source_map
    if map_file is None:
        found = installed_litellm()
        if found is None:
            return None
        map_file = found[0]
    litellm, _ = read_source_map(map_file)
    if litellm.get("format") is not None:
        return None
    path = user_prices_path()
    write_prices(path, prices_from_litellm(litellm, source))
    price_table.cache_clear()
    return path


def remove_user_prices() -> bool:
    path = user_prices_path()
    if not path.is_file():
        return False
    path.unlink()
    price_table.cache_clear()
    return True
