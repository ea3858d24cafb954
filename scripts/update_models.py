#!/usr/bin/env python3
"""Regenerate promptc's shipped model table from LiteLLM's model map.

    pip download --no-deps litellm -d /tmp/litellm      # or install it into a throwaway venv
    python scripts/update_models.py --from /tmp/litellm/litellm-*.whl

The same map's prices (input, output, cache read, cache write) go to prices.generated.json
(`--prices-out`), which `promptc session` reads.

`--from` takes a litellm wheel or the map's JSON file; without it, the litellm installed in
this Python is used (found, never imported). The LiteLLM version (from the wheel's name or the
install's dist-info), the file's sha256 and the date go into the table. Review the
diff, then run the tests: tests/test_models.py shows where the overlay and the map disagree,
and tests/test_routing.py routes every chat model in the map.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

from promptc._base.errors import PromptcError  # noqa: E402
from promptc._model.provider.litellm_prices import prices_from_litellm, write_prices  # noqa: E402
from promptc._model.provider.litellm_map import (  # noqa: E402
    CHAT_MODES, installed_litellm, read_source_map, table_from_file)
from promptc._model.provider.tables import dump_table  # noqa: E402

OUT = ROOT / "promptc" / "_data" / "models.generated.json"
PRICES = ROOT / "promptc" / "_data" / "prices.generated.json"


def chat_models(litellm: dict[str, object]) -> list[list[object]]:
    """[id, provider, max_input_tokens, supports_function_calling] for every chat entry: what
    the routing and normalization tests check, without shipping the map itself."""
    rows: list[list[object]] = []
    for raw_id in sorted(litellm):
        entry = litellm[raw_id]
        if isinstance(entry, dict) and entry.get("mode") in CHAT_MODES:
            rows.append([raw_id, entry.get("litellm_provider"), entry.get("max_input_tokens"),
                         entry.get("supports_function_calling")])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", metavar="FILE", type=Path,
                        help="LiteLLM's model map (JSON) or a litellm wheel; default: the "
                             "litellm installed in this Python")
    parser.add_argument("--out", type=Path, default=OUT, help=f"default: {OUT.relative_to(ROOT)}")
    parser.add_argument("--date", help="the date to record (YYYY-MM-DD; default: today, UTC)")
    parser.add_argument("--litellm-version", metavar="V",
                        help="the LiteLLM version to record when the file does not tell")
    parser.add_argument("--ids-out", metavar="FILE", type=Path,
                        help="also write the map's chat entries for the tests "
                             "(tests/fixtures/litellm_chat_models.json)")
    parser.add_argument("--prices-out", type=Path,
                        help="where the price table goes (input, output, cache read and write "
                             f"per model; default: {PRICES.relative_to(ROOT)} when --out is the "
                             "shipped table, else none)")
    args = parser.parse_args(argv)
    date = args.date or datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    try:
        datetime.date.fromisoformat(date)
        table = table_from_file(args.source, date=date, by="scripts/update_models.py",
                                version=args.litellm_version)
    except (PromptcError, ValueError) as exc:
        sys.stderr.write(f"update_models: error: {exc}\n")
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dump_table(table), encoding="utf-8")
    source = table["source"]
    sys.stdout.write(f"wrote {args.out}: {len(table['models'])} models "
                     f"({sum(r.count(';') for r in table['models'].values())} provider rows) from "
                     f"LiteLLM {source.get('version', 'unknown')}, {date}\n")
    litellm, _ = read_source_map(args.source) if args.source else ({}, {})
    if not litellm:
        found = installed_litellm()
        litellm, _ = read_source_map(found[0]) if found else ({}, {})
    prices_out = args.prices_out or (PRICES if args.out.resolve() == OUT else None)
    if prices_out is not None and litellm.get("format") is None:  # a promptc table has none
        prices = prices_from_litellm(litellm, source)
        write_prices(prices_out, prices)
        sys.stdout.write(f"wrote {prices_out}: prices of {len(prices['models'])} models\n")
    if args.ids_out is not None:
        data = {"source": source, "models": chat_models(dict(litellm))}
        lines = ["{", f'"source":{json.dumps(source, separators=(",", ":"))},', '"models":[']
        rows = data["models"]
        lines += [json.dumps(r, separators=(",", ":")) + ("," if i < len(rows) - 1 else "")
                  for i, r in enumerate(rows)]
        lines += ["]", "}"]
        args.ids_out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        sys.stdout.write(f"wrote {args.ids_out}: {len(rows)} chat entries\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
