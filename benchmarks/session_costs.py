"""What a session costs: promptc's prompts next to the TypeScript reference builder's, each
request of the same session scripts billed under the same model of each provider's caching.

Run from the repository root, in the environment the README's test command makes:

    python benchmarks/session_costs.py                     # the day scripts
    python benchmarks/session_costs.py --readme docs/caching.md  # and the tables of docs/caching.md
    python benchmarks/session_costs.py --reference PATH/cline-bench.mjs --json out.json
    python benchmarks/session_costs.py benchmarks/sessions/day-openai.toml

For each script (benchmarks/sessions/day-*.toml: twenty requests with a mode switch, a rules
edit, a day change, a second developer and a model switch; in day-anthropic-two-teams.toml the
second developer brings other MCP servers and skills; heldout-*.toml are sessions written after
the prompts were tuned, run by naming them) these builders are replayed through
`promptc.session.replay`, with the same conversation (`turn_tokens` per request), the same
client (its cache marker on the latest message), the same clock and the same token counter:

* promptc with no option given (the split: the static block and a note as the system prompt,
  the session's details as a first user message of their own, changes sent as updates);
* promptc with each placement asked for (`dynamic="message"`, `dynamic="system"`: the whole
  prompt in the system prompt);
* the reference, its prompt built by `node cline-bench.mjs --print` for each request's context
  (native tools, as promptc's variants for these models): its tools, then its system prompt
  as one block, which its client marks for Anthropic, as the reference's own client does; no
  `prompt_cache_key` for OpenAI. The reference keeps the mode and the date out of its system
  prompt (its client sends them in messages, which both sides' `turn_tokens` stand for).

A last row is a floor: promptc's prompt for the script's first context, sent unchanged by
every request (only the model switch and the second conversation start afresh). No builder of
a prompt this size pays less for this session; its conversation's cost (each turn written once
per model and conversation, then read) is what the conversation costs at best, whoever builds
the prompt: the conversation's own floor. What a prompt itself costs is the session's cost
above it ("prompt's share", compared with the reference's in "× reference").

Each row splits the cost between the prompt's tokens (tools, system prompt, first message and
the details sent later) and the conversation's. A second table works the targets out from the
caching model: 0.45× the reference's share above the conversation's floor is what the prompt
may cost; divided by what one prompt token sent unchanged costs over the session (the floor's
prompt cost per prompt token: written at the first request and at the model switch, read by
the others) it is the largest prompt that meets the target. For Anthropic it also replays the
whole-string placement with a marker after every section and no limit of 4 (`EverySection`,
`replay(marker_limit=None)`): the most any breakpoints could read from the cache for that
text, which bounds what promptc's own three markers can reach there.

`--readme docs/caching.md` writes both tables, with the date and the price source, between
the page's `<!-- benchmarks/session_costs.py: begin -->` and `end` comments. Nothing is
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
from promptc._session.replay import UnchangingSource  # noqa: E402
from promptc._session.wire import digest  # noqa: E402

DEFAULT_REFERENCE = ROOT.parent / "shared" / "bench" / "cline" / "cline-bench.mjs"
SCRIPTS = sorted((ROOT / "benchmarks" / "sessions").glob("day-*.toml"), key=lambda p: p.stem)
TARGET_RATIO = 0.45  # the prompt's own cost (above the conversation's floor) vs the reference's
FLOOR = "floor: promptc's prompt, never changed"


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
             dynamic: str | None, breakpoints: int) -> PromptWire:
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


class EverySection:
    """promptc's prompt with a cache marker after every piece of the prompt (tools, each
    section of the system prompt and of the first message): replayed without Anthropic's limit
    of 4 (`marker_limit=None`), the most any placement of markers could read from the cache
    for this text, which bounds what promptc's own breakpoints can reach."""

    def __init__(self, compiler: Compiler) -> None:
        self.inner = PromptcSource(compiler)

    def wire(self, provider: ProviderInfo, context: Mapping[str, Any], api: str,
             dynamic: str | None, breakpoints: int) -> PromptWire:
        made = self.inner.wire(provider, context, api, dynamic, breakpoints)
        if api != "anthropic":
            return made
        marked = [tuple(attrs.evolve(p, marker=True, block_end=True) for p in part)
                  for part in (made.head, made.message)]
        return PromptWire(marked[0], marked[1], made.cache_key, made.variant)

    def reads(self, provider: ProviderInfo, where: str) -> frozenset[str] | None:
        return self.inner.reads(provider, where)


def _row(label: str, report: SessionReport, reference: SessionReport | None,
         floor: float | None) -> dict[str, Any]:
    """One builder's figures; `floor`: the conversation's own floor, the cost above which is
    the prompt's share (compared with the reference's)."""
    t = report.totals
    ref_cost = reference.totals.cost if reference is not None else None
    share = t.cost - floor if t.cost is not None and floor is not None else None
    ref_share = ref_cost - floor if ref_cost is not None and floor is not None else None
    return {"builder": label, "input": t.input, "cache_read": t.cache_read,
            "cache_write": t.cache_write, "uncached": t.uncached,
            "cached_share": round(t.cached_share, 4), "cost": t.cost,
            "prompt_cost": t.prompt_cost, "conversation_cost": t.conversation_cost,
            "prompt_share": share,
            "prompt_tokens": report.requests[0].prompt.tokens, "breaks": t.breaks,
            "static_breaks": t.static_breaks, "conversation_rewrites": t.rewrites,
            "vs_reference": round(t.cost / ref_cost, 3) if ref_cost and t.cost else None,
            "share_vs_reference": round(share / ref_share, 3)
            if share is not None and ref_share else None}


def _arithmetic(rows: dict[str, dict[str, Any]], floor: SessionReport,
                bound: SessionReport | None) -> dict[str, Any]:
    """What the targets need, from the caching model: the conversation's cost at best (the
    floor's: the same for any builder), what the prompt may cost above it (0.45× the
    reference's share), and the largest prompt that fits at this script's cost per prompt
    token; for Anthropic, the most the whole-string placement could read from the cache."""
    out: dict[str, Any] = {}
    if bound is not None:
        out["system_share_bound"] = round(bound.totals.cached_share, 4)
    ref = rows.get("reference")
    conversation, prompt_cost = floor.totals.conversation_cost, floor.totals.prompt_cost
    if ref is None or ref["cost"] is None or conversation is None or prompt_cost is None:
        return out
    per_token = prompt_cost / floor.requests[0].prompt.tokens
    allowed = TARGET_RATIO * (ref["cost"] - conversation)
    out.update(reference_share=ref["cost"] - conversation, conversation_at_best=conversation,
               prompt_budget=allowed, prompt_token_cost=per_token,
               largest_prompt=max(0, int(allowed / per_token)))
    return out


def run(scripts: list[Path], reference: ReferenceSource | None, compiler: Compiler
        ) -> list[dict[str, Any]]:
    results = []
    for script in scripts:
        ref = replay(script, compiler=compiler, source=reference) if reference else None
        first = replay(script, compiler=compiler)
        reports = {"promptc": first}
        for placement in ("message", "system"):
            reports[f"promptc, dynamic={placement}"] = replay(script, compiler=compiler,
                                                              dynamic=placement)
        if ref is not None:
            reports["reference"] = ref
        floor = replay(script, compiler=compiler, source=UnchangingSource(
            compiler, {"date": "2026-01-01", **first.script.context}))
        reports[FLOOR] = floor
        bound = replay(script, compiler=compiler, source=EverySection(compiler),
                       dynamic="system", marker_limit=None) \
            if first.script.provider == "anthropic" else None
        base = floor.totals.conversation_cost
        rows = {label: _row(label, report, ref, base) for label, report in reports.items()}
        results.append({"script": str(script.relative_to(ROOT)) if script.is_relative_to(ROOT)
                        else str(script), "title": first.script.title,
                        "provider": first.script.provider, "model": first.script.model,
                        "requests": first.totals.requests,
                        "price_source": first.to_dict()["totals"]["price_source"],
                        "conversation_floor": base, "rows": list(rows.values()),
                        "arithmetic": _arithmetic(rows, floor, bound)})
    return results


def _usd(value: float | None) -> str:
    return "n/a" if value is None else f"${value:.4f}"


def table(results: list[dict[str, Any]]) -> str:
    lines = ["| session | builder | input tokens | read from cache | cache writes | uncached "
             "| conversation's cost | cost per session | prompt's share (above the floor) "
             "| × reference (cost / prompt's share) | conversation rewrites |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        name = Path(r["script"]).stem
        for row in r["rows"]:
            ratio = "" if row["vs_reference"] is None else f"{row['vs_reference']:.2f}"
            if row["share_vs_reference"] is not None:
                ratio += f" / {row['share_vs_reference']:.2f}"
            lines.append(f"| {name} | {row['builder']} | {row['input']:,} | "
                         f"{row['cached_share']:.1%} | {row['cache_write']:,} | "
                         f"{row['uncached']:,} | {_usd(row['conversation_cost'])} | "
                         f"{_usd(row['cost'])} | {_usd(row['prompt_share'])} | {ratio} | "
                         f"{row['conversation_rewrites']} |")
    return "\n".join(lines)


def arithmetic(results: list[dict[str, Any]]) -> str:
    """The targets worked out from the caching model, one row per script."""
    lines = ["| session | conversation's floor | reference's share above it | 0.45× of it "
             "| a prompt token over the session | largest prompt for 0.45× | prompt tokens: "
             "promptc, reference | cached share: no option, floor (ratio) "
             "| whole-string placement: promptc's markers, a marker after every section |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        a, rows = r["arithmetic"], {row["builder"]: row for row in r["rows"]}
        sizes = " / ".join(f"{rows[label]['prompt_tokens']:,}"
                           for label in ("promptc", "reference") if label in rows)
        shares = rows["promptc"]["cached_share"], rows[FLOOR]["cached_share"]
        ratio = f"{shares[0]:.1%} / {shares[1]:.1%} ({shares[0] / shares[1]:.3f})"
        bound = f"{rows['promptc, dynamic=system']['cached_share']:.2%} / " \
                f"{a['system_share_bound']:.2%}" if "system_share_bound" in a else ""
        cells = [_usd(a["conversation_at_best"]), _usd(a["reference_share"]),
                 _usd(a["prompt_budget"]), f"${a['prompt_token_cost'] * 1e6:.2f}/M",
                 f"{a['largest_prompt']:,}"] if "reference_share" in a else ["n/a"] * 5
        lines.append(f"| {Path(r['script']).stem} | {' | '.join(cells)} | {sizes} | {ratio} "
                     f"| {bound} |")
    return "\n".join(lines)


README_BEGIN = "<!-- benchmarks/session_costs.py: begin -->"
README_END = "<!-- benchmarks/session_costs.py: end -->"


def readme_block(results: list[dict[str, Any]], today: str) -> str:
    sources = "; ".join(sorted({r["price_source"] for r in results if r["price_source"]}))
    return "\n".join([README_BEGIN, f"Measured {today} with `python benchmarks/"
                      f"session_costs.py --readme docs/caching.md` (prices: {sources}):", "",
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
    print(f"\nTargets, no option given: Claude cached share ≥ 80% (≥ 97% of the floor's), "
          f"the prompt's share ≤ {TARGET_RATIO}× the reference's, no conversation rewrite "
          "but at the model switch; OpenAI and Gemini cached share ≥ 95% of the floor's.")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if args.readme:
        write_readme(args.readme, block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
