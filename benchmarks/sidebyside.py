"""promptc side by side with the TypeScript reference builder, and with an older checkout of
itself, on a realistic context.

Run from the repository root, in the environment the README's test command makes:

    python benchmarks/sidebyside.py                        # full run (about 3-5 minutes)
    python benchmarks/sidebyside.py --quick                # fewer repetitions (under a minute)
    python benchmarks/sidebyside.py --before /tmp/base     # and the code before a change
    python benchmarks/sidebyside.py --guard                # only what the guard judges
    python benchmarks/sidebyside.py --reference PATH/cline-bench.mjs --json out.json

The guard (DESIGN.md §6) a change must keep: no pair more than a fifth slower than before
(after/before at most 1.2), and never an equal-context ratio to the reference below 2×, a new
session below 0.4×, or a first prompt below 0.45× Node's. Every figure it judges is printed
with its verdict; `--before PATH` (a checkout of the older code, e.g. made by
`git worktree add /tmp/base COMMIT`) adds the after/before column.

What is measured:

* **Per request**, for seven variant pairs (a promptc provider and the reference spec that selects
  the same family): what an LLM client pays on every call, i.e. building the `PromptContext` from
  plain data, compiling, and taking the native tools payload (`client_request` in
  per_request.py, the one place that defines it), on the library's default placement unless
  `--placement` says otherwise. Two modes, as the reference defines them: "equal" (every request
  brings a new data dict equal to the first) and "session" (every request a new cwd, new rules
  text and new MCP server names; no session ever repeats). Inputs are prepared before timing on
  every side; only the build is timed (`time.perf_counter_ns` around each call, GC off during a
  block, warm-up calls first; the reference gets more warm-up builds per block because its JIT
  needs them, and no warm-up is ever timed).
* Each side runs in a process of its own: each promptc checkout as `per_request.py ROOT` (the
  same harness, promptc imported from that checkout), started again for every pair (what an
  equal context costs depends on where earlier pairs left the data in memory), the reference
  as one long-lived `node cline-bench.mjs --serve`. Blocks of the sides alternate, in an order that rotates
  from block to block, because the machine is shared and noisy: interleaving spreads any slow
  period over every side. Each side's figure is the median over all its samples; comparisons
  are ratios of medians ("× ref" = reference median / promptc median, higher is better for
  promptc; "after/before" = this checkout's median / the older one's).
* Sub-costs on promptc's side (context from data alone, compile alone, tools payload alone) and a
  "floor" (the least any builder must do per request: take the data in as records and join the
  final prompt's pieces), so a reader sees where the time goes; for every pair and mode that
  breaks the guard, a cProfile of the per-request path.
* Time to the first prompt in a fresh process (wall time from outside, runs alternated), next to
  `python -c pass` and `python -c "import attrs"` as the interpreter and dependency floors.
* Scaling on promptc's side only (each build a new session, so nothing is served from memos): MCP
  tools that all collide by name, and one very large component; per-unit time should stay flat.

Only medians and ratios from this one run mean anything; compare ratios, not absolute numbers
across runs or machines. Nothing here is asserted: tests/ checks behaviour only. Without node or
without the reference, the script still runs and says which columns are missing and why.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import math
import os
import pstats
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# benchmarks/ (this script's folder) is on the path; bench.py and serve.py import from here too
from per_request import Data, Sessions, client_request, prepare, time_calls  # noqa: E402

from promptc import Compiler, PromptContext, ProviderInfo  # noqa: E402  (after the path)

CONTEXT_FILE = Path(__file__).resolve().parent / "realistic_context.json"
WORKER = Path(__file__).resolve().parent / "per_request.py"
DEFAULT_REFERENCE = ROOT.parent / "shared" / "bench" / "cline" / "cline-bench.mjs"
MODES = ("equal", "session")

# The guard (DESIGN.md §6)
GUARD = {"equal": 2.0, "session": 0.4}  # × ref (reference median / promptc median), at least
FIRST_PROMPT_GUARD = 0.45               # Node's time to its first prompt / promptc's, at least
SLOWER_GUARD = 1.2                      # after / before, at most (no more than a fifth slower)

# The sides of a per-request comparison, in the order the first block runs them
AFTER, BEFORE, REFERENCE = "after", "before", "reference"


# --- the pairs -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Pair:
    """A promptc provider and the reference spec that should select the same variant family."""

    name: str                 # the promptc variant this provider should resolve to
    provider: ProviderInfo
    fmt: str                  # the native tools format a client of this provider sends
    spec: dict[str, Any]      # the reference's spec (provider/model/native/custom_prompt/expect)

    def wire(self) -> dict[str, Any]:
        """The pair as a promptc worker process takes it (per_request.py)."""
        p = self.provider
        return {"provider": p.provider, "model": p.model, "native_tools": p.native_tools,
                "fmt": self.fmt}


PAIRS: tuple[Pair, ...] = (
    # The reference's generic prompt describes its tools as text, so promptc's generic is asked
    # for text tools too (like for like). Left to its capability, gpt-4.1 gets native tools from
    # promptc (the generic-native case of `promptc tokens --targets`), and a client then pays
    # for the tools payload on top, as in the native pairs.
    Pair("generic", ProviderInfo("openai", "gpt-4.1", native_tools=False), "openai",
         {"provider": "openai", "model": "gpt-4.1", "expect": "generic"}),
    Pair("next-gen", ProviderInfo("anthropic", "claude-sonnet-4-5", native_tools=False),
         "anthropic",
         {"provider": "anthropic", "model": "claude-sonnet-4-5", "expect": "next-gen"}),
    Pair("native-next-gen", ProviderInfo("anthropic", "claude-sonnet-4-5"), "anthropic",
         {"provider": "anthropic", "model": "claude-sonnet-4-5", "native": True,
          "expect": "native-next-gen"}),
    Pair("gpt-5", ProviderInfo("openai", "gpt-5"), "openai",
         {"provider": "openai", "model": "gpt-5", "native": True, "expect": "gpt-5-native"}),
    Pair("gemini-3", ProviderInfo("google", "gemini-3-pro-preview"), "gemini",
         {"provider": "gemini", "model": "gemini-3-pro-preview", "native": True,
          "expect": "gemini3"}),
    Pair("glm", ProviderInfo("zai", "glm-4.6"), "openai",
         {"provider": "zai", "model": "glm-4.6", "expect": "glm"}),
    Pair("compact", ProviderInfo("ollama", "qwen2.5-coder:7b"), "openai",
         {"provider": "ollama", "model": "qwen2.5-coder:7b", "custom_prompt": "compact",
          "expect": "xs"}),
)


@dataclass(frozen=True)
class Settings:
    """How much work each part does (--quick shrinks everything)."""

    quick: bool
    blocks: int               # interleaved blocks per side, per pair and mode
    block_n: int              # timed builds per block
    py_warmup: int            # untimed promptc calls before each block
    ref_warmup: int           # untimed reference builds before each block (its JIT warms up)
    sub_n: int                # timed calls per sub-cost figure
    profile_seconds: float    # rough wall budget per profile
    profile_min: int          # calls profiled at least
    profile_max: int          # calls profiled at most
    cold_runs: int            # fresh-process runs per command
    scale_budget_s: float     # wall budget per scaling row
    scale_max_reps: int
    placement: str | None = None  # the compile's dynamic= (None: the library's default)

    @classmethod
    def make(cls, quick: bool, placement: str | None = None) -> Settings:
        if quick:
            return cls(True, blocks=3, block_n=60, py_warmup=10, ref_warmup=40, sub_n=60,
                       profile_seconds=0.4, profile_min=50, profile_max=3000, cold_runs=3,
                       scale_budget_s=5.0, scale_max_reps=2, placement=placement)
        return cls(False, blocks=5, block_n=300, py_warmup=20, ref_warmup=100, sub_n=300,
                   profile_seconds=4.0, profile_min=500, profile_max=3000, cold_runs=10,
                   scale_budget_s=40.0, scale_max_reps=6, placement=placement)


# --- timing and table helpers ------------------------------------------------------------------

def median(xs: Iterable[float]) -> float:
    values = list(xs)
    return statistics.median(values) if values else math.nan


def pct(xs: Sequence[float], p: float) -> float:
    if not xs:
        return math.nan
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * p))]


class Progress:
    """One self-overwriting status line on stderr, only when stderr is a terminal (bench.py
    uses it too)."""

    def __init__(self, quiet: bool = False) -> None:
        self.on = not quiet and sys.stderr.isatty()
        self.t0 = time.perf_counter()

    def __call__(self, msg: str) -> None:
        if self.on:
            sys.stderr.write(f"\r\x1b[K[{time.perf_counter() - self.t0:5.0f}s] {msg}")
            sys.stderr.flush()

    def clear(self) -> None:
        if self.on:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], indent: str = "") -> str:
    def cell(c: Any) -> str:
        if c is None:
            return "—"
        if isinstance(c, float):
            if math.isnan(c):
                return "—"
            return f"{c:,.1f}" if abs(c) < 100 else f"{c:,.0f}"
        return str(c)
    cells = [list(headers)] + [[cell(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = [indent + "  ".join(c.rjust(w) if i else c.ljust(w)
                                for i, (c, w) in enumerate(zip(row, widths))).rstrip()
             for row in cells]
    lines.insert(1, indent + "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def ratio_text(r: float | None) -> str:
    return "—" if r is None or math.isnan(r) else f"{r:.2f}×"


# --- the sides, each a long-lived subprocess ---------------------------------------------------

class Unavailable(Exception):
    """A side cannot run (no node, no file, it died, or it refused a request)."""


class LineServer:
    """A subprocess that answers each JSON line on its stdin with one JSON line."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self._err: IO[bytes] = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err,
            text=True, encoding="utf-8", bufsize=1)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _stderr_tail(self) -> str:
        self._err.seek(0)
        return self._err.read().decode("utf-8", "replace").strip()[-300:]

    def _answer(self, timeout: float) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise Unavailable(f"no answer within {timeout:.0f} s") from None
        if line is None:
            raise Unavailable(f"process ended: {self._stderr_tail()}")
        result: dict[str, Any] = json.loads(line)
        if "error" in result:
            raise Unavailable(str(result["error"]))
        return result

    def run(self, request: dict[str, Any], timeout: float = 600.0) -> dict[str, Any]:
        if self._proc.poll() is not None or self._proc.stdin is None:
            raise Unavailable(f"process exited ({self._proc.returncode}) {self._stderr_tail()}")
        try:
            self._proc.stdin.write(json.dumps(request) + "\n")
            self._proc.stdin.flush()
        except OSError as exc:
            raise Unavailable(f"cannot write to it: {exc} {self._stderr_tail()}") from exc
        return self._answer(timeout)

    def close(self) -> None:
        try:
            if self._proc.stdin:
                self._proc.stdin.close()
            self._proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self._proc.kill()
            self._proc.wait()
        self._err.close()


class Checkout(LineServer):
    """One promptc checkout timed by the same harness: `per_request.py ROOT` (see there)."""

    def __init__(self, root: Path, placement: str | None) -> None:
        argv = [sys.executable, str(WORKER), str(root), str(CONTEXT_FILE)]
        super().__init__(argv + ([placement] if placement else []), ROOT)
        self.root = root
        try:
            self._answer(timeout=120)  # {"ready": ...} once promptc is imported
        except Unavailable:
            self.close()
            raise

    def describe(self, pair: Pair) -> dict[str, Any]:
        return self.run({"op": "describe", "pair": pair.wire()})

    def block(self, pair: Pair, mode: str, n: int, warmup: int) -> list[float]:
        out = self.run({"op": "block", "pair": pair.wire(), "mode": mode, "n": n,
                        "warmup": warmup})
        return [float(x) for x in out["samples_us"]]


class Reference(LineServer):
    """`node cline-bench.mjs --serve`: one JSON spec per stdin line -> one JSON result line."""

    def __init__(self, script: Path, node: str) -> None:
        super().__init__([node, str(script), "--serve"], script.parent)
        self.version = ""
        self.offset = 0   # the reference's session numbers, never reused

    @classmethod
    def start(cls, script: Path | None) -> tuple[Reference | None, str]:
        """(a running reference, "") or (None, why it is missing)."""
        if script is None:
            return None, f"no reference given (none at {DEFAULT_REFERENCE})"
        if not script.is_file():
            return None, f"reference not found at {script}"
        node = shutil.which("node")
        if node is None:
            return None, "node not found on PATH"
        try:
            ref = cls(script, node)
            probe = ref.run({"n": 1, "warmup": 0, "modes": ["equal"]}, timeout=60)
            ref.version = str(probe.get("node", ""))
            return ref, ""
        except (OSError, Unavailable) as exc:
            return None, f"reference did not start: {exc}"

    def block(self, pair: Pair, context: Data, mode: str, n: int, warmup: int
              ) -> dict[str, Any]:
        spec = {**pair.spec, "context": context, "modes": [mode], "n": n, "warmup": warmup,
                "samples": True, "offset": self.offset}
        self.offset += n + warmup
        return self.run(spec)


# --- per request, interleaved ----------------------------------------------------------------

@dataclass
class ModeResult:
    """One pair and mode: every side's samples (µs), by side."""

    samples: dict[str, list[float]] = field(default_factory=dict)

    def median(self, side: str) -> float:
        return median(self.samples.get(side, ()))

    def summary(self, mode: str) -> dict[str, Any]:
        """Medians, ratios and the guard's verdict (`breaks`: what it breaks; `ok` is None when
        there is nothing to judge)."""
        after, before, ref = (self.median(side) for side in (AFTER, BEFORE, REFERENCE))
        x_ref, x_ref_before, slower = ref / after, ref / before, after / before
        breaks = []
        if x_ref < GUARD[mode]:
            breaks.append(f"× ref < {GUARD[mode]:g}")
        if slower > SLOWER_GUARD:
            breaks.append(f"after/before > {SLOWER_GUARD:g}")
        judged = not (math.isnan(x_ref) and math.isnan(slower))
        return {"after_median_us": after, "after_p90_us": pct(self.samples.get(AFTER, []), 0.9),
                "before_median_us": before, "reference_median_us": ref,
                "n": {side: len(xs) for side, xs in self.samples.items()},
                "x_ref": x_ref, "x_ref_before": x_ref_before, "after_over_before": slower,
                "breaks": breaks, "ok": None if not judged else not breaks}


@dataclass
class PairResult:
    pair: Pair
    described: dict[str, dict[str, Any]] = field(default_factory=dict)  # by promptc side
    reference: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # by side: why it has no figures
    modes: dict[str, ModeResult] = field(default_factory=dict)
    subcosts: dict[str, dict[str, float]] = field(default_factory=dict)
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)

    def variant(self, side: str = AFTER) -> str:
        return str(self.described.get(side, {}).get("variant", "—"))

    def floor_ratio(self, mode: str) -> float:
        """promptc's median over the floor's, for one mode (NaN before the floor is timed)."""
        floor = self.subcosts.get(mode, {}).get("floor_us", math.nan)
        return self.modes[mode].median(AFTER) / floor if floor and floor > 0 else math.nan


def interleave(pair: Pair, res: PairResult, checkouts: dict[str, Checkout],
               ref: Reference | None, context: Data, s: Settings, progress: Progress) -> None:
    """Every side's blocks for one pair, alternating, the order rotating from block to block."""
    for side, checkout in checkouts.items():
        try:
            res.described[side] = checkout.describe(pair)
        except Unavailable as exc:
            res.errors[side] = str(exc)
    sides = [*checkouts, *([REFERENCE] if ref is not None else [])]
    for mode in MODES:
        m = res.modes.setdefault(mode, ModeResult())
        for b in range(s.blocks):
            k = b % len(sides)
            for side in sides[k:] + sides[:k]:
                if side in res.errors:
                    continue
                progress(f"per request: {pair.name} {mode} block {b + 1}/{s.blocks} ({side})")
                try:
                    m.samples.setdefault(side, []).extend(
                        reference_block(ref, pair, res, context, mode, s) if side == REFERENCE
                        else checkouts[side].block(pair, mode, s.block_n, s.py_warmup))
                except Unavailable as exc:
                    res.errors[side] = str(exc)


def reference_block(ref: Reference | None, pair: Pair, res: PairResult, context: Data,
                    mode: str, s: Settings) -> list[float]:
    assert ref is not None
    out = ref.block(pair, context, mode, s.block_n, s.ref_warmup)
    if not res.reference:
        res.reference = {k: out.get(k) for k in
                         ("variant", "chars", "tool_count", "tools_json_chars", "native")}
    return [float(x) for x in out[mode]["samples_us"]]


# --- sub-costs, floor, profile ---------------------------------------------------------------

def context_records(d: Data) -> tuple[Any, ...]:
    """The least work to take a context's data in: one flat tuple per record, nothing checked."""
    servers = tuple(
        (s.get("name"), s.get("command"), s.get("url"),
         tuple((t.get("name"), t.get("description"), t.get("input_schema"))
               for t in s.get("tools", ())),
         tuple((r.get("uri"), r.get("name"), r.get("description"), r.get("mime_type"))
               for r in s.get("resources", ())),
         tuple((r.get("uri_template"), r.get("name"), r.get("description"))
               for r in s.get("resource_templates", ())))
        for s in d.get("mcp_servers", ()))
    rules = tuple((r.get("name"), r.get("origin"), r.get("text")) for r in d.get("rules", ()))
    skills = tuple((k.get("name"), k.get("description"), k.get("content"),
                    tuple(k.get("references", ()))) for k in d.get("skills", ()))
    return (d.get("cwd"), d.get("os"), d.get("shell"), d.get("home"), d.get("ide"),
            d.get("mode"), d.get("date"), rules, servers, skills,
            tuple(d.get("features", {}).items()))


def prompt_pieces(prompt: Any) -> list[str]:
    """The final prompt as the pieces a builder joins: glue between sections and section texts."""
    text: str = prompt.text
    spans = getattr(prompt, "spans", None)
    if not spans:
        return [sec.text for sec in prompt.sections] or [text]
    out: list[str] = []
    pos = 0
    for a, b in spans:
        out += [text[pos:a], text[a:b]]
        pos = b
    out.append(text[pos:])
    return [p for p in out if p]


def subcosts(compiler: Compiler, pair: Pair, base_json: str, mode: str, s: Settings,
             sessions: Sessions) -> dict[str, float]:
    """Medians (µs) of each part of the per-request path alone, and the floor."""
    provider, fmt = pair.provider, pair.fmt
    out: dict[str, float] = {}
    warm = prepare(base_json, mode, s.py_warmup, sessions)
    for d in warm:
        client_request(compiler, provider, d, fmt, s.placement)

    data = prepare(base_json, mode, s.sub_n, sessions)
    out["from_dict_us"] = median(time_calls(PromptContext.from_dict, data))
    data = prepare(base_json, mode, s.sub_n, sessions)
    out["context_us"] = median(time_calls(compiler.context, data))

    contexts = [PromptContext.from_dict(d) for d in prepare(base_json, mode, s.sub_n, sessions)]
    prompts: list[Any] = []
    dynamic = {"dynamic": s.placement} if s.placement else {}
    times = time_calls(lambda c: prompts.append(compiler.compile(provider, c, **dynamic)),
                       contexts)
    out["compile_us"] = median(times)

    native = prompts[0].tools.mode == "native"
    if native:
        out["tools_us"] = median(time_calls(lambda p: getattr(p.tools, fmt)(), prompts))
    payload = getattr(prompts[0].tools, fmt)() if native else []
    pieces = prompt_pieces(prompts[0])
    prompts.clear()
    contexts.clear()

    def floor(d: Data) -> Any:
        return (context_records(d), "".join(pieces), [dict(t) for t in payload])
    out["floor_us"] = median(time_calls(floor, prepare(base_json, mode, s.sub_n, sessions)))
    return out


def _where(key: tuple[str, int, str]) -> str:
    """A profile entry as a short 'path:line(function)'."""
    path, line, func = key
    if path == "~":
        return func
    p = path.replace("\\", "/")
    for marker in ("/site-packages/", "/promptc/", "/lib/python"):
        i = p.rfind(marker)
        if i >= 0:
            p = p[i + 1:] if marker != "/lib/python" else p[p.find("/", i + 11) + 1:]
            break
    else:
        p = Path(p).name
    return f"{p}:{line}({func})"


def profile(compiler: Compiler, pair: Pair, base_json: str, mode: str, per_call_us: float,
            s: Settings, sessions: Sessions, top: int = 12, top_cum: int = 8
            ) -> dict[str, Any]:
    """cProfile over a few thousand per-request calls (bounded by a wall budget)."""
    # cProfile makes each call several times slower: aim at about profile_seconds of wall time.
    calls = int(min(s.profile_max, max(s.profile_min,
                                       s.profile_seconds * 1e6 / max(per_call_us, 1.0) / 4)))
    provider, fmt = pair.provider, pair.fmt
    prof = cProfile.Profile()
    done = 0
    while done < calls:
        chunk = prepare(base_json, mode, min(500, calls - done), sessions)
        prof.enable()
        for d in chunk:
            client_request(compiler, provider, d, fmt, s.placement)
        prof.disable()
        done += len(chunk)
    stats = pstats.Stats(prof)
    entries = []
    for key, (_cc, nc, tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        entries.append({"function": _where(key), "calls_per_request": nc / calls,
                        "own_us": tt * 1e6 / calls, "cum_us": ct * 1e6 / calls})
    by_own = sorted(entries, key=lambda e: -e["own_us"])[:top]
    skip = {"client_request", "<lambda>"}
    by_cum = [e for e in sorted(entries, key=lambda e: -e["cum_us"])
              if not any(e["function"].endswith(f"({n})") for n in skip)
              and "method 'disable'" not in e["function"]][:top_cum]
    return {"calls": calls, "by_own": by_own, "by_cum": by_cum}


# --- time to the first prompt ----------------------------------------------------------------

def first_prompt_code(root: Path, placement: str | None) -> str:
    """A fresh process's first prompt with promptc imported from `root`."""
    dynamic = f", dynamic={placement!r}" if placement else ""
    return ("import json, sys\n"
            f"sys.path.insert(0, {str(root)!r})\n"
            "from promptc import Compiler, PromptContext, ProviderInfo\n"
            f"data = json.load(open({str(CONTEXT_FILE)!r}, encoding='utf-8'))\n"
            "prompt = Compiler.default().compile(ProviderInfo('anthropic', 'claude-sonnet-4-5'),"
            f" data{dynamic})\n"
            "tools = prompt.tools.anthropic() if prompt.tools.mode == 'native' else None\n"
            "print(len(prompt.text))\n")


def first_prompt(ref_script: Path | None, ref_missing: str, context: Data, s: Settings,
                 progress: Progress, roots: dict[str, Path]) -> dict[str, Any]:
    """Fresh processes, wall time from outside; commands rotated so none always runs first.
    `roots`: the promptc checkouts by side (after, and before when given)."""
    py = sys.executable
    promptc_labels = {side: f"promptc ({side}): import, Compiler.default(), first prompt"
                      for side in roots}
    commands: dict[str, list[str]] = {
        "python -c pass": [py, "-c", "pass"],
        "python -c 'import attrs'": [py, "-c", "import attrs"],
        **{promptc_labels[side]: [py, "-c", first_prompt_code(root, s.placement)]
           for side, root in roots.items()},
    }
    node_label = "reference: node cline-bench.mjs --once"
    node_missing = ref_missing
    if ref_script is not None and not ref_missing:
        node = shutil.which("node")
        spec = {"provider": "anthropic", "model": "claude-sonnet-4-5", "native": True,
                "context": context}
        if node:
            commands[node_label] = [node, str(ref_script), "--once", json.dumps(spec)]
    # Python as installed: modules compiled once to .pyc (this sandbox sets
    # PYTHONDONTWRITEBYTECODE, which would make every run compile promptc from source again).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for argv in commands.values():  # one untimed run each: .pyc files written, disk cache warm
        subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False, env=env)
    times: dict[str, list[float]] = {k: [] for k in commands}
    errors: dict[str, str] = {}
    inner_ms: list[float] = []
    labels = list(commands)
    for run in range(s.cold_runs):
        order = labels[run % len(labels):] + labels[:run % len(labels)]
        for label in order:
            if label in errors:
                continue
            progress(f"first prompt: run {run + 1}/{s.cold_runs}: {label}")
            t0 = time.perf_counter()
            proc = subprocess.run(commands[label], cwd=ROOT, capture_output=True, text=True,
                                  check=False, env=env)
            dt = (time.perf_counter() - t0) * 1e3
            if proc.returncode != 0:
                lines = proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"]
                errors[label] = lines[-1][:200]
                continue
            times[label].append(dt)
            if label == node_label:
                try:
                    inner_ms.append(float(json.loads(proc.stdout)["first_prompt_ms"]))
                except (ValueError, KeyError):
                    pass
    rows: dict[str, dict[str, Any]] = {
        label: {"median_ms": median(ts) if ts else None, "runs": len(ts),
                "error": errors.get(label)} for label, ts in times.items()}
    node_ms: float | None = rows.get(node_label, {}).get("median_ms")
    ms = {side: rows[label]["median_ms"] for side, label in promptc_labels.items()}
    x_node = {side: node_ms / t if t and node_ms else None for side, t in ms.items()}
    after, before = ms.get(AFTER), ms.get(BEFORE)
    slower = after / before if after and before else None
    breaks = ([f"× Node < {FIRST_PROMPT_GUARD:g}"] if (x_node[AFTER] or math.inf)
              < FIRST_PROMPT_GUARD else []) + \
        ([f"after/before > {SLOWER_GUARD:g}"] if (slower or 0) > SLOWER_GUARD else [])
    if node_label not in rows:
        node_missing = node_missing or "node not found on PATH"
    judged = x_node[AFTER] is not None or slower is not None
    return {"rows": rows, "x_node": x_node, "after_over_before": slower, "breaks": breaks,
            "ok": (not breaks) if judged else None, "reference_missing": node_missing or None,
            "reference_inner_ms": median(inner_ms) if inner_ms else None}


# --- scaling ---------------------------------------------------------------------------------

def colliding_tools(n_tools: int, i: int, servers: int = 4) -> Data:
    """n tools spread over several servers, every one named like a built-in (read_file)."""
    per = n_tools // servers
    schema = {"type": "object",
              "properties": {"path": {"type": "string", "description": "File to read"},
                             "encoding": {"type": "string", "enum": ["utf-8", "latin-1"]}},
              "required": ["path"]}
    return {"cwd": f"/srv/scale/t{i}", "os": "Linux", "mode": "act", "date": "2026-02-03",
            "features": {"browser": True},
            "mcp_servers": [{"name": f"files{k}-s{i}", "command": "files-mcp",
                             "tools": [{"name": "read_file",
                                        "description": f"Read a file through mirror {k}.{t}.",
                                        "input_schema": schema} for t in range(per)]}
                            for k in range(servers)]}


def big_component_text(n_bytes: int) -> str:
    """About n_bytes of plausible Markdown: headings, prose, lists, blank lines, a fence, {{CWD}}."""
    para = ("Each change should leave the module easier to read than before. Keep the public "
            "surface small, name things for what they do, and write the test first when a bug "
            "is reported.\n")
    block = (f"## Notes\n\n{para}{para}\n- check the logs under {{{{CWD}}}}/var/log\n"
             "- keep the migration reversible\n\n```sh\nmake check\n```\n\n")
    out = ["# Handbook\n\n"]
    size = len(out[0])
    while size < n_bytes:
        out.append(block)
        size += len(block)
    return "".join(out)[:n_bytes].rsplit("\n", 1)[0] + "\nWorking in {{CWD}}.\n"


def component_compiler(folder: Path, n_bytes: int) -> Compiler:
    files = {
        "variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", "handbook"]\n',
        "variants/base/template.md": "{{intro}}\n\n====\n\n{{handbook}}\n",
        "components/intro.md": "# Intro\nYou are helping in {{CWD}}.\n",
        "components/handbook.md": big_component_text(n_bytes),
    }
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return Compiler.from_folders(folder, builtins=False)


def scaling(compiler: Compiler, s: Settings, sessions: Sessions,
            progress: Progress) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []

    def series(label: str, unit: str, sizes: Sequence[tuple[str, float]],
               run_one: Callable[[int, float], float], warm: Callable[[float], None]) -> None:
        """Time builds per size; skip a size whose projected time would blow the row budget."""
        prev: list[tuple[float, float]] = []   # (size, seconds per build)
        for size_label, size in sizes:
            projected = None
            if prev:
                (n1, t1) = prev[-1]
                k = 1.0
                if len(prev) > 1:
                    (n0, t0) = prev[-2]
                    k = max(1.0, math.log(t1 / t0) / math.log(n1 / n0)) if t0 > 0 else 1.0
                projected = t1 * (size / n1) ** k
            if projected is not None and projected > s.scale_budget_s:
                rows.append({"input": label, "size": size_label, "builds": 0,
                             "ms_per_build": None, "us_per_unit": None, "unit": unit,
                             "note": f"skipped: projected {projected:,.0f} s per build "
                                     f"> {s.scale_budget_s:.0f} s budget"})
                continue
            progress(f"scaling: {label} {size_label}")
            warm(size)
            reps = s.scale_max_reps if projected is None else int(
                max(1, min(s.scale_max_reps, s.scale_budget_s / max(projected, 1e-6))))
            times = [run_one(sessions.take(1)[0], size) for _ in range(reps)]
            t = median(times)
            prev.append((size, t))
            rows.append({"input": label, "size": size_label, "builds": reps,
                         "ms_per_build": t * 1e3, "us_per_unit": t * 1e6 / size, "unit": unit,
                         "note": ""})

    native = ProviderInfo("anthropic", "claude-sonnet-4-5")

    def tools_once(i: int, n: float) -> float:
        data = colliding_tools(int(n), i)
        return time_calls(lambda d: client_request(compiler, native, d, "anthropic"),
                          [data])[0] / 1e6

    def tools_warm(n: float) -> None:
        client_request(compiler, native, colliding_tools(16, sessions.take(1)[0]), "anthropic")

    series("MCP tools, all named read_file (native-next-gen)", "tool",
           [("1k", 1000), ("4k", 4000), ("16k", 16000)], tools_once, tools_warm)

    with tempfile.TemporaryDirectory(prefix="promptc-sidebyside-") as tmp:
        plain = ProviderInfo("openai", "gpt-4.1")
        built: dict[float, Compiler] = {}

        def comp(kb: float) -> Compiler:
            if kb not in built:
                built.clear()
                built[kb] = component_compiler(Path(tmp) / f"c{int(kb * 10)}", int(kb * 1024))
            return built[kb]

        def comp_once(i: int, kb: float) -> float:
            c = comp(kb)
            data = {"cwd": f"/srv/scale/c{i}", "date": "2026-02-03"}
            return time_calls(lambda d: client_request(c, plain, d, "openai"), [data])[0] / 1e6

        def comp_warm(kb: float) -> None:
            c = comp(kb)
            for i in sessions.take(2):
                client_request(c, plain, {"cwd": f"/srv/scale/w{i}"}, "openai")

        series("one component of N KB (from_folders, new cwd each build)", "KB",
               [("0.1 MB", 102.4), ("1 MB", 1024.0), ("3 MB", 3072.0)], comp_once, comp_warm)
    return rows


# --- report ----------------------------------------------------------------------------------

def kb(chars: int | None) -> str:
    return "—" if chars is None else f"{chars / 1024:.1f}"


def verdict(summary: dict[str, Any]) -> str:
    if summary["ok"] is None:
        return "—"
    return "ok" if summary["ok"] else "BREAKS: " + ", ".join(summary["breaks"])


def print_per_request(results: list[PairResult], missing: dict[str, str], s: Settings) -> None:
    print("Per request (context from plain data + compile + native tools payload), realistic "
          f"context, placement {s.placement or 'default'}; medians over {s.blocks} interleaved "
          f"blocks × {s.block_n} builds per side (µs)")
    headers = ["pair", "mode", "before", "after", "after/before", "reference", "× ref before",
               "× ref after", "guard"]
    rows = []
    for r in results:
        for mode in MODES:
            sm = r.modes[mode].summary(mode)
            rows.append([r.pair.name, mode, sm["before_median_us"], sm["after_median_us"],
                         ratio_text(sm["after_over_before"]), sm["reference_median_us"],
                         ratio_text(sm["x_ref_before"]), ratio_text(sm["x_ref"]), verdict(sm)])
    print(table(headers, rows))
    print(f"  equal: each request brings a new data dict equal to the first; session: a new "
          f"session (cwd, rules text, MCP server names) per request.\n"
          f"  × ref = reference median / promptc median (higher is better for promptc). Guard: "
          f"× ref at least {GUARD['equal']:g} (equal) and {GUARD['session']:g} (session), "
          f"after/before at most {SLOWER_GUARD:g}.")
    for side, why in missing.items():
        print(f"  {side} columns missing: {why}")
    print()
    print("What each pair builds (KB = characters / 1024; tools = tool definitions offered, "
          "sent natively or described as text)")
    rows = []
    for r in results:
        ref = r.reference
        cells: list[Any] = [r.pair.name]
        for side in (BEFORE, AFTER):
            d = r.described.get(side, {})
            tools = f"{d['tools']} {d['tool_mode']}" if d else "—"
            cells += [r.variant(side), kb(d.get("chars")), tools]
        cells += [ref.get("variant", "—"), kb(ref.get("chars")),
                  "—" if not ref else f"{ref.get('tool_count')} "
                  + ("native" if ref.get("native") else "text")]
        rows.append(cells)
    print(table(["pair", "before", "KB", "tools", "after", "KB", "tools", "reference", "KB",
                 "tools"], rows))
    for r in results:
        if r.variant() != r.pair.name:
            print(f"  NOTE: {r.pair.provider.provider}/{r.pair.provider.model} resolved to "
                  f"promptc variant {r.variant()!r}, expected {r.pair.name!r}")
        for side, why in r.errors.items():
            print(f"  NOTE: {side} for {r.pair.name}: {why}")
    print()


def print_subcosts(results: list[PairResult]) -> None:
    print("Sub-costs on promptc's side, each part alone (medians, µs)")
    headers = ["pair", "mode", "from_dict", "context(data)", "compile", "tools payload", "sum",
               "full request", "floor", "÷floor"]
    rows = []
    for r in results:
        for mode in MODES:
            sc = r.subcosts.get(mode, {})
            fd, cx, co, tl = (sc.get("from_dict_us"), sc.get("context_us"), sc.get("compile_us"),
                              sc.get("tools_us"))
            total = sum(x for x in (cx, co, tl) if x is not None)
            rows.append([r.pair.name, mode, fd, cx, co, tl if tl is not None else "text",
                         total, r.modes[mode].median(AFTER), sc.get("floor_us"),
                         ratio_text(r.floor_ratio(mode))])
    print(table(headers, rows))
    print("  from_dict: PromptContext.from_dict alone (no memo); context(data): the compiler's "
          "context from the same data (its memo of contexts and parts, as in a request);\n"
          "  compile: given a ready PromptContext; tools payload: on a compiled prompt; sum: "
          "context(data) + compile + tools; full request: the interleaved figure above.\n"
          "  floor: take the data in as flat record tuples + \"\".join of the final prompt's "
          "pieces + a shallow copy of each native tool definition.\n")


def print_profiles(results: list[PairResult]) -> None:
    any_profile = False
    for r in results:
        for mode, prof in r.profiles.items():
            if not any_profile:
                print("Profiles of the per-request path (this checkout), for each pair and mode "
                      "that breaks the guard (cProfile; its overhead inflates the absolute "
                      "figures)")
                any_profile = True
            full = r.modes[mode].median(AFTER)
            floor = r.subcosts.get(mode, {}).get("floor_us", math.nan)
            times_floor = full / floor if floor and floor > 0 else math.nan
            print(f"\n{r.pair.name}, {mode}: {full:,.0f} µs per request; floor {floor:,.1f} µs "
                  f"(×{times_floor:,.0f} the floor); {prof['calls']:,} calls profiled")
            for title, key in (("by own time", "by_own"), ("by cumulative time", "by_cum")):
                print(f"  {title}:")
                print(table(["function", "own µs/req", "cum µs/req", "calls/req"],
                            [[e["function"], e["own_us"], e["cum_us"],
                              f"{e['calls_per_request']:,.1f}"] for e in prof[key]],
                            indent="    "))
    if not any_profile:
        judged = any(m.summary(mode)["ok"] is not None for r in results
                     for mode, m in r.modes.items())
        why = "no pair breaks the guard" if judged else "nothing to judge: no reference, no before"
        print(f"Profiles: none printed ({why})")
    print()


def print_first_prompt(fp: dict[str, Any]) -> None:
    print("Time to the first prompt in a fresh process (wall ms from outside, medians)")
    rows = []
    for label, row in fp["rows"].items():
        rows.append([label, row["median_ms"], row["runs"], row["error"] or ""])
    print(table(["command", "median ms", "runs", "error"], rows))
    x_node = "; ".join(f"{side} {ratio_text(x)}" for side, x in fp["x_node"].items())
    print(f"  × Node = the reference's time / promptc's: {x_node}; after/before "
          f"{ratio_text(fp['after_over_before'])}. Guard: × Node at least "
          f"{FIRST_PROMPT_GUARD:g}, after/before at most {SLOWER_GUARD:g}: {verdict(fp)}")
    if fp["reference_inner_ms"] is not None:
        print(f"  the reference's own figure from process start: {fp['reference_inner_ms']:.1f} ms")
    if fp["reference_missing"]:
        print(f"  reference row missing: {fp['reference_missing']}")
    print()


def print_scaling(rows: list[dict[str, Any]]) -> None:
    print("Scaling, promptc only (every build a new session; per-unit time should stay flat)")
    print(table(["input", "size", "builds", "ms per build", "µs per unit", "unit", "note"],
                [[r["input"], r["size"], r["builds"], r["ms_per_build"], r["us_per_unit"],
                  r["unit"], r["note"]] for r in rows]))
    print()


# --- main ------------------------------------------------------------------------------------

def start_sides(script: Path | None, roots: dict[str, Path], s: Settings, progress: Progress
                ) -> tuple[Reference | None, dict[str, Checkout], dict[str, str]]:
    """The reference and a worker per promptc checkout, and why any side is missing."""
    progress("starting the reference")
    ref, why = Reference.start(script)
    missing = {REFERENCE: why} if ref is None else {}
    checkouts: dict[str, Checkout] = {}
    for side, root in roots.items():
        progress(f"starting promptc ({side}) from {root}")
        try:
            checkouts[side] = Checkout(root, s.placement)
        except (OSError, Unavailable) as exc:
            missing[side] = f"promptc from {root} did not start: {exc}"
    return ref, checkouts, missing


def restart_checkouts(checkouts: dict[str, Checkout], roots: dict[str, Path], s: Settings,
                      progress: Progress, missing: dict[str, str]) -> dict[str, Checkout]:
    """New promptc workers for the next pair. The equal-context path's largest cost is its memo
    key (the request's marshal bytes), and how long that takes depends on where the request's
    data lies in memory: 19 µs in a new process, 55-68 µs after every earlier pair's sessions
    had run, on both checkouts alike. A pair measured in a process of its own measures the pair,
    not the pairs before it (the Node reference keeps its process: its JIT needs the warm-up)."""
    for checkout in checkouts.values():
        checkout.close()
    fresh: dict[str, Checkout] = {}
    for side in checkouts:
        progress(f"restarting promptc ({side})")
        try:
            fresh[side] = Checkout(roots[side], s.placement)
        except (OSError, Unavailable) as exc:
            missing[side] = f"promptc from {roots[side]} did not start again: {exc}"
    return fresh


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--reference", type=Path, default=None,
                    help=f"path to cline-bench.mjs (default: {DEFAULT_REFERENCE} if it exists)")
    ap.add_argument("--before", type=Path, default=None, metavar="PATH",
                    help="a checkout of the older promptc, timed interleaved with this one")
    ap.add_argument("--placement", choices=("system", "message"), default=None,
                    help="compile with this dynamic= (default: the library's default placement)")
    ap.add_argument("--guard", action="store_true",
                    help="only what the guard judges: per request and the first prompt")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions, a smoke run")
    ap.add_argument("--json", type=Path, default=None, metavar="OUT",
                    help="also write every figure as JSON")
    args = ap.parse_args(argv)
    s = Settings.make(args.quick, args.placement)
    script = args.reference or (DEFAULT_REFERENCE if DEFAULT_REFERENCE.exists() else None)
    if script is not None:
        script = script.resolve()
    roots = {AFTER: ROOT, **({BEFORE: args.before.resolve()} if args.before else {})}
    progress = Progress()

    base_json = CONTEXT_FILE.read_text(encoding="utf-8")
    context: Data = json.loads(base_json)
    compiler = Compiler.default(project=False, user=False)
    sessions = Sessions()

    ref, checkouts, missing = start_sides(script, roots, s, progress)
    progress.clear()
    print(f"promptc side by side — Python {sys.version.split()[0]}, "
          f"node {ref.version if ref else '—'}, {os.cpu_count()} CPUs"
          f"{' (quick)' if s.quick else ''}")
    for side, root in roots.items():
        why = f": missing ({missing[side]})" if side in missing else ""
        print(f"promptc ({side}) from {root}{why}")
    print(f"reference: {script if ref else 'missing (' + missing[REFERENCE] + ')'}"
          f"\ncontext: {CONTEXT_FILE.name}\n")
    sys.stdout.flush()

    phases: dict[str, float] = {}
    t_phase = time.perf_counter()

    def phase_done(name: str) -> None:
        nonlocal t_phase
        now = time.perf_counter()
        phases[name] = now - t_phase
        t_phase = now

    results: list[PairResult] = []
    try:
        for i, pair in enumerate(PAIRS):
            if i:  # each pair in fresh promptc processes: see restart_checkouts
                checkouts = restart_checkouts(checkouts, roots, s, progress, missing)
            res = PairResult(pair)
            interleave(pair, res, checkouts, ref, context, s, progress)
            results.append(res)
    finally:
        for side in (ref, *checkouts.values()):
            if side is not None:
                side.close()
    phase_done("per_request")
    if not args.guard:
        for res in results:
            for mode in MODES:
                progress(f"sub-costs: {res.pair.name} {mode}")
                res.subcosts[mode] = subcosts(compiler, res.pair, base_json, mode, s, sessions)
                sm = res.modes[mode].summary(mode)
                if sm["ok"] is False:
                    progress(f"profile: {res.pair.name} {mode}")
                    res.profiles[mode] = profile(compiler, res.pair, base_json, mode,
                                                 sm["after_median_us"], s, sessions)
        phase_done("subcosts_and_profiles")
    progress.clear()
    print_per_request(results, missing, s)
    if not args.guard:
        print_subcosts(results)
        print_profiles(results)
    sys.stdout.flush()

    fp = first_prompt(script, missing.get(REFERENCE, ""), context, s, progress, roots)
    phase_done("first_prompt")
    progress.clear()
    print_first_prompt(fp)
    sys.stdout.flush()

    scale: list[dict[str, Any]] = []
    if not args.guard:
        scale = scaling(compiler, s, sessions, progress)
        phase_done("scaling")
        progress.clear()
        print_scaling(scale)
    print("wall time per part (s): " + ", ".join(f"{k} {v:.0f}" for k, v in phases.items()))

    if args.json:
        report = {
            "meta": {"python": sys.version.split()[0], "node": ref.version if ref else None,
                     "cpus": os.cpu_count(), "quick": s.quick, "placement": s.placement,
                     "roots": {side: str(root) for side, root in roots.items()},
                     "reference": str(script) if script else None, "missing": missing,
                     "context": str(CONTEXT_FILE), "blocks": s.blocks, "block_n": s.block_n,
                     "py_warmup": s.py_warmup, "ref_warmup": s.ref_warmup, "sub_n": s.sub_n,
                     "phase_seconds": phases},
            "guard": {"x_ref": GUARD, "first_prompt_x_node": FIRST_PROMPT_GUARD,
                      "after_over_before": SLOWER_GUARD},
            "pairs": [{
                "pair": r.pair.name, "provider": r.pair.provider.provider,
                "model": r.pair.provider.model, "reference_spec": r.pair.spec,
                "described": r.described, "reference": r.reference or None,
                "errors": r.errors, **{mode: r.modes[mode].summary(mode) for mode in MODES},
                "subcosts": r.subcosts, "profiles": r.profiles,
            } for r in results],
            "first_prompt": fp,
            "scaling": scale,
        }
        args.json.write_text(json.dumps(_plain(report), indent=2, allow_nan=False) + "\n",
                             encoding="utf-8")
        print(f"figures written to {args.json}")
    return 0


def _plain(o: Any) -> Any:
    """JSON-ready: NaN becomes null, tuples lists, anything else unknown its str()."""
    if isinstance(o, float):
        return None if math.isnan(o) or math.isinf(o) else o
    if isinstance(o, dict):
        return {str(k): _plain(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_plain(v) for v in o]
    if o is None or isinstance(o, (str, int, bool)):
        return o
    return str(o)


if __name__ == "__main__":
    sys.exit(main())
