"""What a session costs: promptc's prompts next to the TypeScript reference builder's, each
request of the same session scripts billed under the same model of each provider's caching.

Run from the repository root, in the environment the README's test command makes:

    python benchmarks/session_costs.py                     # the three day scripts
    python benchmarks/session_costs.py --reference PATH/cline-bench.mjs --json out.json
    python benchmarks/session_costs.py benchmarks/sessions/day-openai.toml

For each script (benchmarks/sessions/day-*.toml: twenty requests with a mode switch, a rules
edit, a day change, a second developer and a model switch) three builders are replayed through
`promptc.session.replay`, with the same conversation (`turn_tokens` per request), the same
client (its cache marker on the latest message) and the same token counter:

* promptc, default placement (the whole prompt in the system prompt, `to_anthropic` markers);
* promptc, `dynamic="message"` (the static class in the system prompt, the rest in the first
  user message, changes sent with the latest message);
* the reference, its prompt built by `node cline-bench.mjs --print` for each request's context
  (native tools, as promptc's variants for these models): its tools, then its system prompt
  as one block, which its client marks for Anthropic, as the reference's own client does; no
  `prompt_cache_key` for OpenAI. The reference keeps the mode and the date out of its system
  prompt (its client sends them in messages, which both sides' `turn_tokens` stand for).

A fourth row is a floor: promptc's prompt for the script's first context, sent unchanged by
every request (only the model switch and the second conversation start afresh). No builder of
a prompt this size pays less for this session, so its ratio says how far the target can be
reached at all: the conversation's own tokens and each new cache entry cost the same whoever
builds the prompt.

Printed per script: input tokens, the share read from the cache, cache writes, uncached
tokens, the cost of a session's input at the model's prices (LiteLLM's map) and the ratio to
the reference's cost. Nothing is asserted: tests/ checks behaviour; this measures.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from promptc import Compiler, ProviderInfo  # noqa: E402
from promptc._model.provider import encoding_for  # noqa: E402
from promptc.session import Piece, PromptcSource, PromptWire, SessionReport, replay  # noqa: E402
from promptc._session.wire import digest  # noqa: E402

DEFAULT_REFERENCE = ROOT.parent / "shared" / "bench" / "cline" / "cline-bench.mjs"
SCRIPTS = sorted((ROOT / "benchmarks" / "sessions").glob("day-*.toml"))
TARGET_RATIO = 0.5  # promptc's cost per session, at most this share of the reference's


def _plain(value: Any) -> Any:
    """Context data as JSON (TOML dates become ISO strings)."""
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class ReferenceSource:
    """The reference builder's prompts, one `node cline-bench.mjs --print` per new context."""

    def __init__(self, script: Path, node: str, compiler: Compiler) -> None:
        self.script, self.node, self.compiler = script, node, compiler
        self.printed: dict[str, tuple[str, Any]] = {}

    def _print(self, spec: dict[str, Any]) -> tuple[str, Any]:
        key = json.dumps(spec, sort_keys=True)
        if key not in self.printed:
            done = subprocess.run([self.node, str(self.script), "--print", key],
                                  capture_output=True, text=True, timeout=120, check=False)
            if done.returncode != 0:
                raise RuntimeError(f"the reference failed: {done.stderr.strip()[-300:]}")
            system, _, tools = done.stdout.partition("\n--- native tools ---\n")
            self.printed[key] = (system.removesuffix("\n"), json.loads(tools) if tools else None)
        return self.printed[key]

    def wire(self, provider: ProviderInfo, context: Mapping[str, Any], api: str,
             dynamic: str, breakpoints: int) -> PromptWire:
        spec = {"provider": provider.provider, "model": provider.model, "native": True,
                "context": _plain(context)}
        system, tools = self._print(spec)
        encoding = encoding_for(provider)[0]

        def count(text: str) -> int:
            return self.compiler.tokens.count(text, encoding)

        head = []
        if tools:
            text = json.dumps(tools, ensure_ascii=False)
            head.append(Piece("tools", "tools", "", count(text), digest("tools", text), text))
        marked = api == "anthropic"  # its client marks the system prompt
        head.append(Piece("system", "system", "", count(system), digest("system", system),
                          system, marked))
        return PromptWire(tuple(head), (), None, "reference")

    def reads(self, provider: ProviderInfo, where: str) -> frozenset[str] | None:
        return None


class UnchangingSource:
    """promptc's prompt for the script's first context, whatever each request changes: no
    builder of a prompt this size pays less for the session (only the model switch, the new
    conversation and the conversation itself cost), so it is the floor for the target."""

    def __init__(self, compiler: Compiler, context: Mapping[str, Any]) -> None:
        self.inner = PromptcSource(compiler)
        self.context = dict(context)

    def wire(self, provider: ProviderInfo, context: Mapping[str, Any], api: str,
             dynamic: str, breakpoints: int) -> PromptWire:
        return self.inner.wire(provider, self.context, api, "system", breakpoints)

    def reads(self, provider: ProviderInfo, where: str) -> frozenset[str] | None:
        return None


def _row(label: str, report: SessionReport, reference: float | None) -> dict[str, Any]:
    t = report.totals
    return {"builder": label, "input": t.input, "cache_read": t.cache_read,
            "cache_write": t.cache_write, "uncached": t.uncached,
            "cached_share": round(t.cached_share, 4), "cost": t.cost, "breaks": t.breaks,
            "static_breaks": t.static_breaks,
            "vs_reference": round(t.cost / reference, 3) if reference and t.cost else None}


def run(scripts: list[Path], reference: ReferenceSource | None, compiler: Compiler
        ) -> list[dict[str, Any]]:
    results = []
    for script in scripts:
        ref = replay(script, compiler=compiler, source=reference) if reference else None
        ref_cost = ref.totals.cost if ref else None
        rows = [_row("promptc", replay(script, compiler=compiler), ref_cost),
                _row("promptc, dynamic=message",
                     replay(script, compiler=compiler, dynamic="message"), ref_cost)]
        if ref is not None:
            rows.append(_row("reference", ref, ref_cost))
        first = replay(script, compiler=compiler)
        floor = UnchangingSource(compiler, {"date": "2026-01-01", **first.script.context})
        rows.append(_row("floor: promptc's prompt, never changed", replay(
            script, compiler=compiler, source=floor), ref_cost))
        results.append({"script": str(script.relative_to(ROOT)) if script.is_relative_to(ROOT)
                        else str(script), "provider": first.script.provider,
                        "model": first.script.model, "requests": first.totals.requests,
                        "price_source": first.to_dict()["totals"]["price_source"],
                        "rows": rows})
    return results


def table(results: list[dict[str, Any]]) -> str:
    lines = ["| session | builder | input tokens | read from cache | cache writes | uncached "
             "| cost per session | × reference |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        for row in r["rows"]:
            ratio = "" if row["vs_reference"] is None else f"{row['vs_reference']:.2f}"
            cost = "n/a" if row["cost"] is None else f"${row['cost']:.4f}"
            lines.append(f"| {r['provider']} {r['model']} | {row['builder']} | "
                         f"{row['input']:,} | {row['cached_share']:.1%} | "
                         f"{row['cache_write']:,} | {row['uncached']:,} | {cost} | {ratio} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scripts", nargs="*", type=Path, help="session scripts (default: "
                        "benchmarks/sessions/day-*.toml)")
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE,
                        help="cline-bench.mjs (default: ../shared/bench/cline/)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    compiler = Compiler.builtins()
    node = shutil.which("node")
    reference = None
    if node is None or not args.reference.is_file():
        why = "node not found" if node is None else f"no reference at {args.reference}"
        sys.stderr.write(f"session_costs: {why}: promptc's columns only\n")
    else:
        reference = ReferenceSource(args.reference, node, compiler)
    results = run(list(args.scripts) or SCRIPTS, reference, compiler)
    print(table(results))
    sources = sorted({r["price_source"] for r in results if r["price_source"]})
    print(f"\nPrices: {'; '.join(sources)}. Target: promptc's cost per session ≤ "
          f"{TARGET_RATIO}× the reference's.")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
