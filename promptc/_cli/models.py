"""`promptc models`: what promptc believes about a model and where each fact came from, and
`promptc models update` / `reset`: the user's own, newer model table (made from LiteLLM's map
by promptc._model.provider.litellm_map).
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from .._base.errors import ConfigError
from .._base.files import read_text_file
from .._base.suggest import did_you_mean
from .._model.provider import (MAX_TABLE_FILE, ModelData, ModelFacts, ProviderInfo,
                               model_data, model_facts, parse_table, shipped_table_path,
                               user_table_path)
from .._model.provider.litellm_map import installed_litellm, table_from_file
from .._model.provider.litellm_prices import remove_user_prices, write_user_prices
from .._model.provider.tables import dump_table
from .args import COMMANDS, Command, CommandFactory, UsageError, add_command, print_json
from .format import clean, table

__all__ = ["add_models_command", "cmd_models"]

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
        _check_action(args, action, models[1:])
        return _update(args) if action == "update" else _reset(args)
    if args.source or args.litellm_version:
        raise UsageError("--from and --litellm-version are for `promptc models update`")
    if not models:
        return _summary(args)
    return _lookup(args, models)


def _check_action(args: argparse.Namespace, action: str, extra: list[str]) -> None:
    """`update` and `reset` take no model ids, and only `update` takes its options."""
    if extra:
        raise UsageError(f"`promptc models {action}` takes no model ids, got "
                         f"{' '.join(extra)!r}")
    if action == "reset" and (args.source or args.litellm_version):
        raise UsageError("--from and --litellm-version are for `promptc models update`")
    if args.provider:
        raise UsageError(f"--provider is for looking up models, not `promptc models "
                         f"{action}`")


def _lookup(args: argparse.Namespace, models: list[str]) -> int:
    """Each model's facts with their sources (a note when the only one is unknown)."""
    reports = [model_facts(ProviderInfo(args.provider, m)) for m in models]
    if args.json:
        print_json([r.to_dict() for r in reports])
        return 0
    for i, r in enumerate(reports):
        if i:
            sys.stdout.write("\n")
        _write_facts(sys.stdout, r)
    if len(reports) == 1:
        _note_unknown(reports[0])
    return 0


_FAMILY_HOW = {"client": "given by the client", "rule": "family rule"}


def _write_facts(out: IO[str], r: ModelFacts) -> None:
    where = f" (provider {r.provider})" if r.provider else ""
    out.write(f"{clean(r.model)}{clean(where)}\n")
    out.write(f"  normalized  {clean(r.normalized) or '(empty)'}\n")
    how = _FAMILY_HOW.get(r.family_source)
    out.write(f"  family      {clean(r.family)}"
              + (f" — {clean(r.family_title)} ({how})\n" if how else
                 " (no family rule matches)\n"))
    out.write(f"  table       {clean(r.entry) + ' in ' if r.entry else 'no entry in '}"
              f"{clean(r.table)}\n")
    rows = [[f.name, _show(f.value), f.source, f.ref if f.source != "default" else ""]
            for f in r.facts]
    out.write(table(["capability", "value", "source", "from"], rows, "lrll") + "\n")


def _note_unknown(r: ModelFacts) -> None:
    """A model nothing knows may be a misspelt action (`promptc models updat`)."""
    hint = did_you_mean(r.model, ACTIONS) if r.family_source == "unknown" and \
        r.entry is None else ""
    if hint:
        sys.stderr.write(f"promptc: note: {clean(r.model)!r} is not a model promptc "
                         f"knows{hint}\n")


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
    prices = _user_prices(write_user_prices, "write", source, new["source"])
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
    _user_prices(remove_user_prices, "remove")
    if args.json:
        print_json({"path": str(target), "removed": existed})
    else:
        sys.stdout.write(f"removed {clean(target)}; the shipped table applies again\n" if existed
                         else f"no user table at {clean(target)}; the shipped table applies\n")
    return 0


def add_models_command(sub: Any, commands: dict[str, Command] = COMMANDS,
                       command: CommandFactory = add_command) -> None:
    p = command(sub, "models", "what promptc knows about a model, and where each fact came from",
                DESCRIPTION, EXAMPLES, CODES)
    p.usage = USAGE
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


def _user_prices(change: Callable[..., Any], verb: str, *args: Any) -> Any:
    """The user's price table written or removed (promptc/_model/provider/litellm_prices.py),
    a file-system failure reported as bad usage (exit 2)."""
    try:
        return change(*args)
    except OSError as exc:
        raise UsageError(f"cannot {verb} the price table: {exc.strerror or exc}") from None
