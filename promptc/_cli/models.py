"""`promptc models`: what promptc believes about a model and where each fact came from, and
`promptc models update` / `reset`: the user's own, newer model table.

Writing a table from LiteLLM's model map lives here too (scripts/update_models.py uses it for
the shipped one): it is tooling, kept out of the module every request imports.
"""

from __future__ import annotations

import argparse
import datetime
import json
import marshal
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._base.errors import ConfigError
from .._base.files import parse_json, parse_toml, read_text_file
from .._base.suggest import did_you_mean
from .._model.provider import (COMPILED_OVERLAY_FORMAT, MAX_TABLE_FILE, TABLE_FIELDS,
                               TABLE_FORMAT, FamilyRule, ModelData, Overlay, ProviderInfo,
                               model_data, model_facts, normalize_model_id, parse_overlay,
                               parse_table, shipped_overlay, shipped_table_path,
                               user_table_path)
from .args import UsageError, print_json
from .format import clean, table

__all__ = ["add_models_command", "cmd_models", "CHAT_MODES", "table_from_litellm", "dump_table",
           "read_source_map", "table_from_file", "installed_litellm", "compile_overlay",
           "encode_row"]

CHAT_MODES = ("chat", "responses")
_INT_FACTS = frozenset(("context_window", "max_output", "cache_min_tokens"))

ACTIONS = ("update", "reset")
USAGE = ("promptc models [--json] [--provider P] [MODEL ...]\n"
         "       promptc models update [--from FILE] [--litellm-version V] [--json]\n"
         "       promptc models reset [--json]")
DESCRIPTION = (
    "Show what promptc believes about models: for each MODEL (as a provider spells it) its "
    "normalized id, family and every capability with the source it came from (the model table "
    "generated from LiteLLM's model map, the hand-kept overlay, the family's defaults, a local "
    "server's defaults, or promptc's default). Without MODEL: where the model data comes from. "
    "`update` writes a newer table to your user data folder (from --from FILE: LiteLLM's "
    "model_prices_and_context_window.json, a litellm wheel or a promptc table; else from the "
    "litellm installed in this Python, never from the network); it then wins over the shipped "
    "table. `reset` removes it.")
EXAMPLES = ["promptc models claude-sonnet-4-5 gpt-5.1",
            "promptc models --provider bedrock us.anthropic.claude-opus-4-1-20250805-v1:0 --json",
            "promptc models update --from model_prices_and_context_window.json"]
CODES = "0 ok · 2 bad usage, an unreadable source file or a malformed model table"


def cmd_models(args: argparse.Namespace) -> int:
    models = list(args.model)
    action = models[0] if models and models[0] in ACTIONS else None
    if action is not None:
        if len(models) > 1:
            raise UsageError(f"`promptc models {action}` takes no model ids, got "
                             f"{' '.join(models[1:])!r}")
        if action == "reset" and (args.source or args.litellm_version):
            raise UsageError("--from and --litellm-version are for `promptc models update`")
        if args.provider:
            raise UsageError(f"--provider is for looking up models, not `promptc models "
                             f"{action}`")
        return _update(args) if action == "update" else _reset(args)
    if args.source or args.litellm_version:
        raise UsageError("--from and --litellm-version are for `promptc models update`")
    if not models:
        return _summary(args)
    reports = [model_facts(ProviderInfo(args.provider, m)) for m in models]
    if args.json:
        print_json([r.to_dict() for r in reports])
        return 0
    out = sys.stdout
    for i, r in enumerate(reports):
        if i:
            out.write("\n")
        where = f" (provider {r.provider})" if r.provider else ""
        out.write(f"{clean(r.model)}{clean(where)}\n")
        out.write(f"  normalized  {clean(r.normalized) or '(empty)'}\n")
        how = {"client": "given by the client", "rule": "family rule"}.get(r.family_source)
        out.write(f"  family      {clean(r.family)}"
                  + (f" — {clean(r.family_title)} ({how})\n" if how else
                     " (no family rule matches)\n"))
        out.write(f"  table       {clean(r.entry) + ' in ' if r.entry else 'no entry in '}"
                  f"{clean(r.table)}\n")
        rows = [[f.name, _show(f.value), f.source, f.ref if f.source != "default" else ""]
                for f in r.facts]
        out.write(table(["capability", "value", "source", "from"], rows, "lrll") + "\n")
        if r.family_source == "unknown" and r.entry is None and len(models) == 1:
            hint = did_you_mean(r.model, ACTIONS)
            if hint:
                sys.stderr.write(f"promptc: note: {clean(r.model)!r} is not a model promptc "
                                 f"knows{hint}\n")
    return 0


def _show(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _summary(args: argparse.Namespace) -> int:
    data = model_data()
    active = data.table
    # Check every row now: a malformed table should fail here, not on some later request.
    checked = parse_table(read_text_file(Path(active.path), ConfigError, MAX_TABLE_FILE),
                          active.path, user=active.user, deep=True)
    overlay = data.overlay
    user_path = user_table_path()
    n_models = len(checked.models)
    n_rows = checked.provider_rows()
    info: dict[str, Any] = {
        "table": {"path": active.path, "user": active.user, "source": dict(checked.source),
                  "models": n_models, "provider_rows": n_rows},
        "shipped": {"path": str(shipped_table_path()), "source": dict(data.shipped)},
        "user_table": {"path": str(user_path), "exists": user_path.is_file()},
        "overlay": {"path": overlay.path,
                    "families": [{"id": f.id, "title": f.title, "patterns": list(f.patterns),
                                  "aliases": list(f.aliases), "source": f.source,
                                  "facts": dict(f.facts)} for f in overlay.families],
                    "models": [{"id": m.id, "patterns": list(m.patterns), "wins": m.wins,
                                "source": m.source, "facts": dict(m.facts)}
                               for m in overlay.models]},
    }
    if args.json:
        print_json(info)
        return 0
    out = sys.stdout
    src = checked.source
    out.write(f"model table  {clean(active.path)}\n"
              f"             {clean(src.get('name', '?'))} {clean(src.get('version', '?'))}, "
              f"{clean(src.get('date', 'no date'))}: {n_models} models, {n_rows} provider rows"
              f"{' (your table: it wins over the shipped one)' if active.user else ' (shipped)'}\n")
    if active.user:
        shipped = data.shipped
        out.write(f"shipped      {clean(shipped.get('name', '?'))} "
                  f"{clean(shipped.get('version', '?'))}, {clean(shipped.get('date', 'no date'))}"
                  f"{_older(src, shipped)}\n")
    else:
        out.write(f"user table   {clean(user_path)} (none; `promptc models update` writes it)\n")
    out.write(f"overlay      {clean(overlay.path)}: {len(overlay.families)} families, "
              f"{len(overlay.models)} model rows\n\n")
    rows = [[f.id, f.title, "  ".join(f.patterns)] for f in overlay.families]
    out.write(table(["family", "what", "patterns (on normalized ids)"], rows) + "\n")
    return 0


def _older(mine: Any, shipped: Any) -> str:
    def key(v: str) -> tuple[int, ...]:
        parts = [p for p in v.split(".") if p.isdigit()]
        return tuple(int(p) for p in parts)
    a, b = str(mine.get("version", "")), str(shipped.get("version", ""))
    if key(a) and key(b) and key(a) < key(b):
        return " (newer than your table: run `promptc models update` or `promptc models reset`)"
    return ""


def _update(args: argparse.Namespace) -> int:
    source = Path(args.source) if args.source else None
    if source is None and installed_litellm() is None:
        raise UsageError("no LiteLLM model map to read: pass --from FILE (LiteLLM's "
                         "model_prices_and_context_window.json, a litellm wheel or a promptc "
                         "model table), or install litellm in this Python")
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    new = table_from_file(source, date=today, by="promptc models update",
                          version=args.litellm_version)
    text = dump_table(new)
    target = user_table_path()
    parse_table(text, str(target), user=True, deep=True)  # what we write must read back
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    model_data.cache_clear()
    from .prices import update_user_prices
    prices = update_user_prices(source, new["source"])
    data: ModelData = model_data()
    src = new["source"]
    report = {"path": str(target), "prices": str(prices) if prices else None,
              "source": src, "models": len(new["models"]),
              "provider_rows": sum(str(r).count(";") for r in new["models"].values()),
              "shipped": dict(data.shipped)}
    if args.json:
        print_json(report)
    else:
        sys.stdout.write(f"wrote {clean(target)}: {clean(src.get('name', '?'))} "
                         f"{clean(src.get('version', '?'))} ({clean(src.get('date', 'no date'))}),"
                         f" {report['models']} models; it now wins over the shipped table "
                         f"({clean(data.shipped.get('name', '?'))} "
                         f"{clean(data.shipped.get('version', '?'))})\n")
    return 0


def _reset(args: argparse.Namespace) -> int:
    target = user_table_path()
    existed = target.is_file()
    if existed:
        try:
            target.unlink()
        except OSError as exc:
            raise UsageError(f"cannot remove {target}: {exc.strerror or exc}") from None
    model_data.cache_clear()
    from .prices import reset_user_prices
    reset_user_prices()
    if args.json:
        print_json({"path": str(target), "removed": existed})
    else:
        sys.stdout.write(f"removed {clean(target)}; the shipped table applies again\n" if existed
                         else f"no user table at {clean(target)}; the shipped table applies\n")
    return 0


def add_models_command(sub: Any, commands: dict[str, Callable[[argparse.Namespace], int]],
                       command: Callable[..., argparse.ArgumentParser] | None = None) -> None:
    """Register `promptc models` (pass the main parser's `command` factory when it has one)."""
    summary = "what promptc knows about a model, and where each fact came from"
    if command is not None:
        p = command(sub, "models", summary, DESCRIPTION, EXAMPLES, CODES)
        p.usage = USAGE
    else:
        p = sub.add_parser("models", help=summary, description=DESCRIPTION, usage=USAGE)
    p.add_argument("model", nargs="*", metavar="MODEL",
                   help="model ids as a provider spells them; or `update`, `reset`")
    p.add_argument("--provider", default="", metavar="P",
                   help="the provider the model is called through (per-provider facts, local "
                        "servers)")
    p.add_argument("--from", dest="source", metavar="FILE",
                   help="with update: LiteLLM's model map (JSON), a litellm wheel, or a promptc "
                        "model table (default: the litellm installed in this Python)")
    p.add_argument("--litellm-version", metavar="V",
                   help="with update: the LiteLLM version to record when FILE does not tell")
    p.add_argument("--json", action="store_true",
                   help="print JSON: every fact with its value, source and reference")
    commands["models"] = cmd_models


# --- generating a table from LiteLLM's model map -----------------------------------------------

_LITELLM_KEYS = {"context_window": "max_input_tokens", "max_output": "max_output_tokens",
                 "images": "supports_vision", "native_tools": "supports_function_calling",
                 "parallel_tools": "supports_parallel_function_calling",
                 "prompt_caching": "supports_prompt_caching",
                 "cache_min_tokens": "prompt_cache_min_tokens", "reasoning": "supports_reasoning",
                 "responses_only": "mode"}

def encode_row(row: Sequence[Any]) -> str:
    return "|".join("" if v is None else ("t" if v else "f") if isinstance(v, bool) else str(v)
                    for v in row)


def _rule_args(rule: FamilyRule) -> tuple[Any, ...]:
    return (rule.id, rule.title, rule.patterns, rule.compiled, dict(rule.facts), rule.source,
            tuple(sorted(rule.unless)), tuple(sorted(rule.providers)), rule.aliases,
            rule.examples, rule.wins)


def compile_overlay(toml_text: str, path: str) -> bytes:
    """The checked overlay as marshal data, with the TOML text it came from.

    Every process reads the overlay at start-up: tomllib and building the rules from plain
    data cost a millisecond or more on a cold interpreter; marshal.loads and a few
    constructors, a fraction of that. (Format 2: no back-references, sets as sorted tuples,
    so the same TOML gives the same bytes.)
    """
    o = parse_overlay(parse_toml(toml_text, path, ConfigError), path)
    payload = (COMPILED_OVERLAY_FORMAT, toml_text, dict(o.defaults), o.defaults_source,
               tuple(sorted(o.local_providers)), dict(o.local), o.local_source,
               tuple(_rule_args(r) for r in o.families), tuple(_rule_args(r) for r in o.models),
               o.prefixes, dict(o.provider_aliases), o.provider_prefixes,
               tuple(sorted(o.first_party)))
    return marshal.dumps(payload, 2)


def _fact_value(name: str, raw: Any) -> Any:
    """A LiteLLM value as promptc stores it (None when absent or unusable)."""
    if name == "responses_only":  # the entry's `mode`: "responses" when that is its only API
        return raw == "responses" if raw in CHAT_MODES else None
    if name in _INT_FACTS:
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw < 0 or \
                raw != int(raw):
            return None
        return int(raw)
    return raw if isinstance(raw, bool) else None


def _mode(values: Sequence[Any]) -> Any:
    """The most common value; ties go to the cautious one (smaller number, False)."""
    from collections import Counter
    counts = Counter(values)
    best = max(counts.values())
    return min(v for v, n in counts.items() if n == best)


def _consensus(entries: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Any]:
    """One row for entries that name the same model: per fact, the most common known value;
    the entry named as its source is the one that agrees with it most (then the first)."""
    facts = [[_fact_value(name, e.get(_LITELLM_KEYS[name])) for name in TABLE_FIELDS]
             for _, e in entries]
    row: list[Any] = []
    for i in range(len(TABLE_FIELDS)):
        values = [f[i] for f in facts if f[i] is not None]
        row.append(_mode(values) if values else None)
    agreement = [sum(a == b for a, b in zip(f, row)) for f in facts]
    best = agreement.index(max(agreement))
    return [entries[best][0], *row]


def table_from_litellm(litellm: Mapping[str, Any], source: Mapping[str, str],
                       overlay: Overlay | None = None) -> dict[str, Any]:
    """promptc's table from LiteLLM's model map: chat-capable entries only, the used facts only.

    Entries that normalize to one id become one row. The model's row prefers the vendor's own
    API (the overlay's `first_party` providers), then unprefixed map keys, then everyone; a
    provider whose entries differ gets its own row with just the differences.
    """
    overlay = overlay or shipped_overlay()
    groups: dict[str, list[tuple[str, str, Mapping[str, Any]]]] = {}
    for raw_id in sorted(litellm):
        entry = litellm[raw_id]
        if not isinstance(entry, Mapping) or entry.get("mode") not in CHAT_MODES or \
                any(c in raw_id for c in "|;"):
            continue
        key = normalize_model_id(raw_id)
        if not key:
            continue
        provider = overlay.provider_key(str(entry.get("litellm_provider") or ""))
        groups.setdefault(key, []).append((raw_id, provider, entry))
    models: dict[str, str] = {}
    for key in sorted(groups):
        members = groups[key]
        tiers = ([(r, e) for r, p, e in members if p in overlay.first_party],
                 [(r, e) for r, p, e in members if "/" not in r],
                 [(r, e) for r, p, e in members])
        base: list[Any] | None = None
        for tier in tiers:
            if not tier:
                continue
            row = _consensus(tier)
            if base is None:
                base = row
            else:  # fill facts the better tier does not know from the next one
                base[1:] = [b if b is not None else r for b, r in zip(base[1:], row[1:])]
        assert base is not None
        if _knows_nothing(base):
            continue  # the map names it but knows none of the facts promptc uses
        models[key] = encode_row(base) + _provider_parts(base, members, overlay)
    return {"format": TABLE_FORMAT, "source": dict(source), "fields": list(TABLE_FIELDS),
            "models": models}


def _knows_nothing(row: Sequence[Any]) -> bool:
    """No fact but the API (every chat entry has a `mode`): not worth a row."""
    return all(v is None for n, v in zip(TABLE_FIELDS, row[1:]) if n != "responses_only")


def _provider_parts(base: list[Any], members: Sequence[tuple[str, str, Mapping[str, Any]]],
                    overlay: Overlay) -> str:
    """`;provider=row` for each provider whose entries differ from the model's row. When the
    model's row is a reseller's (no first-party or unprefixed entry), every provider that
    lists the model gets a part, an empty one when it agrees: a provider without one does not
    list it, and the reseller's row must not decide for it."""
    by_provider: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
    for raw_id, provider, entry in members:
        by_provider.setdefault(provider, []).append((raw_id, entry))
    resold = "/" in base[0] and overlay.provider_key(base[0].split("/", 1)[0]) \
        not in overlay.first_party
    text = ""
    for provider in sorted(by_provider):
        row = _consensus(by_provider[provider])
        diff = [row[0]] + [v if v is not None and v != b else None
                           for v, b in zip(row[1:], base[1:])]
        if (resold or any(v is not None for v in diff[1:])) and provider and \
                not any(c in provider for c in "|;="):
            text += f";{provider}={encode_row(diff)}"
    return text


def dump_table(table: Mapping[str, Any]) -> str:
    """The table as JSON text, one model per line so a refresh reads well in a diff."""
    def row(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    lines = ["{", f'"format":{row(table["format"])},', f'"source":{row(table["source"])},',
             f'"fields":{row(table["fields"])},', '"models":{']
    models = table["models"]
    lines += [f"{row(k)}:{row(models[k])}{',' if i < len(models) - 1 else ''}"
              for i, k in enumerate(models)]
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"


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
