"""What a session costs: promptc's prompts next to the TypeScript reference builder's, each
request of the same session scripts billed under the same model of each provider's caching.

Run from the repository root, in the environment the README's test command makes:

    python benchmarks/session_costs.py                     # the day scripts
    python benchmarks/session_costs.py --readme README.md  # and the README's tables
    python benchmarks/session_costs.py --reference PATH/cline-bench.mjs --json out.json
    python benchmarks/session_costs.py benchmarks/sessions/day-openai.toml

For each script (benchmarks/sessions/day-*.toml: twenty requests with a mode switch, a rules
edit, a day change, a second developer and a model switch; in day-anthropic-two-teams.toml the
second developer brings other MCP servers and skills) three builders are replayed through
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
a prompt this size pays less for this session; its conversation's cost (each turn written once
per model and conversation, then read) is about what any builder pays for the conversation.

Each row splits the cost between the prompt's tokens (tools, system prompt, first message and
the details sent later) and the conversation's. A second table works the targets out from the
caching model: 0.5× the reference's cost, minus the conversation at best, is what the prompt
may cost; divided by what one prompt token sent unchanged costs over the session (the floor's
prompt cost per prompt token: written at the first request and at the model switch, read by
the others) it is the largest prompt that meets the target. For Anthropic it also replays the
default placement with a marker after every section and no limit of 4 (`EverySection`,
`replay(marker_limit=None)`): the most any breakpoints could read from the cache for this
text, which bounds what promptc's own three markers can reach.

`--readme README.md` writes both tables, with the date and the price source, between the
README's `<!-- benchmarks/session_costs.py: begin -->` and `end` comments. Nothing is
asserted: tests/ checks behaviour; this measures.
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

import attrs

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from promptc import Compiler, ProviderInfo  # noqa: E402
from promptc._model.provider import encoding_for  # noqa: E402
from promptc.session import Piece, PromptcSource, PromptWire, SessionReport, replay  # noqa: E402
from promptc._session.wire import digest  # noqa: E402

DEFAULT_REFERENCE = ROOT.parent / "shared" / "bench" / "cline" / "cline-bench.mjs"
SCRIPTS = sorted((ROOT / "benchmarks" / "sessions").glob("day-*.toml"), key=lambda p: p.stem)
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


class EverySection:
    """promptc's prompt with a cache marker after every piece of the prompt (tools, each
    section of the system prompt and of the first message): replayed without Anthropic's limit
    of 4 (`marker_limit=None`), the most any placement of markers could read from the cache
    for this text, which bounds what promptc's own breakpoints can reach."""

    def __init__(self, compiler: Compiler) -> None:
        self.inner = PromptcSource(compiler)

    def wire(self, provider: ProviderInfo, context: Mapping[str, Any], api: str,
             dynamic: str, breakpoints: int) -> PromptWire:
        made = self.inner.wire(provider, context, api, dynamic, breakpoints)
        if api != "anthropic":
            return made
        marked = [tuple(attrs.evolve(p, marker=True, block_end=True) for p in part)
                  for part in (made.head, made.message)]
        return PromptWire(marked[0], marked[1], made.cache_key, made.variant)

    def reads(self, provider: ProviderInfo, where: str) -> frozenset[str] | None:
        return self.inner.reads(provider, where)


def _row(label: str, report: SessionReport, reference: float | None) -> dict[str, Any]:
    t = report.totals
    return {"builder": label, "input": t.input, "cache_read": t.cache_read,
            "cache_write": t.cache_write, "uncached": t.uncached,
            "cached_share": round(t.cached_share, 4), "cost": t.cost,
            "prompt_cost": t.prompt_cost, "conversation_cost": t.conversation_cost,
            "prompt_tokens": report.requests[0].prompt.tokens, "breaks": t.breaks,
            "static_breaks": t.static_breaks,
            "vs_reference": round(t.cost / reference, 3) if reference and t.cost else None}


def _arithmetic(rows: dict[str, dict[str, Any]], floor: SessionReport,
                bound: SessionReport | None) -> dict[str, Any]:
    """What the targets need, from the caching model: the conversation's cost at best (the
    floor's: the same for any builder), what that leaves for the prompt under 0.5× the
    reference, and the largest prompt that fits at this script's cost per prompt token."""
    out: dict[str, Any] = {}
    if bound is not None:
        out["default_share_bound"] = round(bound.totals.cached_share, 4)
    ref = rows.get("reference")
    conversation, prompt_cost = floor.totals.conversation_cost, floor.totals.prompt_cost
    if ref is None or ref["cost"] is None or conversation is None or prompt_cost is None:
        return out
    per_token = prompt_cost / floor.requests[0].prompt.tokens
    half = TARGET_RATIO * ref["cost"]
    out.update(half_reference=half, conversation_at_best=conversation,
               prompt_budget=half - conversation, prompt_token_cost=per_token,
               largest_prompt=max(0, int((half - conversation) / per_token)))
    return out


def run(scripts: list[Path], reference: ReferenceSource | None, compiler: Compiler
        ) -> list[dict[str, Any]]:
    results = []
    for script in scripts:
        ref = replay(script, compiler=compiler, source=reference) if reference else None
        ref_cost = ref.totals.cost if ref else None
        first = replay(script, compiler=compiler)
        reports = {"promptc": first,
                   "promptc, dynamic=message": replay(script, compiler=compiler,
                                                      dynamic="message")}
        if ref is not None:
            reports["reference"] = ref
        floor = replay(script, compiler=compiler, source=UnchangingSource(
            compiler, {"date": "2026-01-01", **first.script.context}))
        reports["floor: promptc's prompt, never changed"] = floor
        bound = replay(script, compiler=compiler, source=EverySection(compiler),
                       marker_limit=None) if first.script.provider == "anthropic" else None
        rows = {label: _row(label, report, ref_cost) for label, report in reports.items()}
        results.append({"script": str(script.relative_to(ROOT)) if script.is_relative_to(ROOT)
                        else str(script), "title": first.script.title,
                        "provider": first.script.provider, "model": first.script.model,
                        "requests": first.totals.requests,
                        "price_source": first.to_dict()["totals"]["price_source"],
                        "rows": list(rows.values()),
                        "arithmetic": _arithmetic(rows, floor, bound)})
    return results


def _usd(value: float | None) -> str:
    return "n/a" if value is None else f"${value:.4f}"


def table(results: list[dict[str, Any]]) -> str:
    lines = ["| session | builder | input tokens | read from cache | cache writes | uncached "
             "| prompt's cost | conversation's cost | cost per session | × reference |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        name = Path(r["script"]).stem
        for row in r["rows"]:
            ratio = "" if row["vs_reference"] is None else f"{row['vs_reference']:.2f}"
            lines.append(f"| {name} | {row['builder']} | {row['input']:,} | "
                         f"{row['cached_share']:.1%} | {row['cache_write']:,} | "
                         f"{row['uncached']:,} | {_usd(row['prompt_cost'])} | "
                         f"{_usd(row['conversation_cost'])} | {_usd(row['cost'])} | {ratio} |")
    return "\n".join(lines)


def arithmetic(results: list[dict[str, Any]]) -> str:
    """The targets worked out from the caching model, one row per script."""
    lines = ["| session | 0.5× reference | conversation at best | left for the prompt | a prompt "
             "token over the session | largest prompt for 0.5× | prompt tokens: promptc, "
             "dynamic=message, reference | default placement's cached share: promptc's "
             "markers, a marker after every section |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        a, rows = r["arithmetic"], {row["builder"]: row for row in r["rows"]}
        sizes = " / ".join(f"{row['prompt_tokens']:,}" for label, row in rows.items()
                           if not label.startswith("floor"))
        bound = f"{rows['promptc']['cached_share']:.2%} / {a['default_share_bound']:.2%}" \
            if "default_share_bound" in a else ""
        cells = [_usd(a["half_reference"]), _usd(a["conversation_at_best"]),
                 _usd(a["prompt_budget"]), f"${a['prompt_token_cost'] * 1e6:.2f}/M",
                 f"{a['largest_prompt']:,}"] if "half_reference" in a else ["n/a"] * 5
        lines.append(f"| {Path(r['script']).stem} | {' | '.join(cells)} | {sizes} | {bound} |")
    return "\n".join(lines)


README_BEGIN = "<!-- benchmarks/session_costs.py: begin -->"
README_END = "<!-- benchmarks/session_costs.py: end -->"


def readme_block(results: list[dict[str, Any]], today: str) -> str:
    sources = "; ".join(sorted({r["price_source"] for r in results if r["price_source"]}))
    return "\n".join([README_BEGIN, f"Measured {today} with `python benchmarks/"
                      f"session_costs.py --readme README.md` (prices: {sources}):", "",
                      table(results), "", arithmetic(results), README_END])


def write_readme(path: Path, block: str) -> None:
    text = path.read_text(encoding="utf-8")
    start, end = text.find(README_BEGIN), text.find(README_END)
    if start < 0 or end < start:
        raise SystemExit(f"session_costs: {path} has no {README_BEGIN} … {README_END} block")
    path.write_text(text[:start] + block + text[end + len(README_END):], encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scripts", nargs="*", type=Path, help="session scripts (default: "
                        "benchmarks/sessions/day-*.toml)")
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE,
                        help="cline-bench.mjs (default: ../shared/bench/cline/)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("--readme", type=Path, help="also write the table and the arithmetic "
                        f"into this file, between {README_BEGIN} and {README_END}")
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
    block = readme_block(results, datetime.date.today().isoformat())
    print(block.removeprefix(README_BEGIN + "\n").removesuffix("\n" + README_END))
    print(f"\nTargets: cached share ≥ 80% (Claude) and ≥ 75% (OpenAI) by default; cost per "
          f"session ≤ {TARGET_RATIO}× the reference's.")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if args.readme:
        write_readme(args.readme, block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
