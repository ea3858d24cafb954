"""promptc side by side with the TypeScript reference builder, on a realistic context.

Run from the repository root, in the environment the README's test command makes:

    python benchmarks/sidebyside.py                        # full run (about 3-5 minutes)
    python benchmarks/sidebyside.py --quick                # fewer repetitions (under a minute)
    python benchmarks/sidebyside.py --reference PATH/cline-bench.mjs --json out.json

What is measured (DESIGN.md §6):

* **Per request**, for seven variant pairs (a promptc provider and the reference spec that selects
  the same family): what an LLM client pays on every call, i.e. building the `PromptContext` from
  plain data, compiling, and taking the native tools payload (`client_request` below, the one place
  that defines it). Two modes, as the reference defines them: "equal" (every request brings a new
  data dict equal to the first) and "session" (every request a new cwd, new rules text and new MCP
  server names; no session ever repeats). Inputs are prepared before timing on both sides; only the
  build is timed (`time.perf_counter_ns` around each call, GC off during a block, warm-up calls
  first; the reference gets more warm-up builds per block because its JIT needs them, and no
  warm-up is ever timed).
* The reference runs as one long-lived `node cline-bench.mjs --serve` subprocess, and blocks of the
  two sides alternate (promptc, reference, promptc, ...), because the machine is shared and noisy:
  interleaving spreads any slow period over both sides. Each side's figure is the median over all
  its samples; the comparison is the ratio reference median / promptc median ("x faster").
* Sub-costs on promptc's side (context from data alone, compile alone, tools payload alone) and a
  "floor" (the least any builder must do per request: take the data in as records and join the
  final prompt's pieces), so a reader sees where the time goes; for every pair that misses its
  target, a cProfile of the per-request path.
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
import gc
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

from promptc import Compiler, PromptContext, ProviderInfo  # noqa: E402  (after the path)

CONTEXT_FILE = Path(__file__).resolve().parent / "realistic_context.json"
DEFAULT_REFERENCE = ROOT.parent / "shared" / "bench" / "cline" / "cline-bench.mjs"
MODES = ("equal", "session")
TARGET = {"equal": 5.0, "session": 1.0}    # reference median / promptc median, at least
FLOOR_GOAL = 4.0                            # promptc median / floor, at most (a goal)
FIRST_PROMPT_TARGET = 1.0                   # promptc at least as fast to its first prompt

Data = dict[str, Any]


def client_request(compiler: Compiler, provider: ProviderInfo, data: Data,
                   fmt: str | None) -> tuple[Any, Any]:
    """What an LLM client pays per request: context from plain data, compile, native tools payload.

    The client hands promptc its plain context data (the context-file shape); the compiler
    builds the PromptContext from it (through its own memo of contexts and parts, keyed by the
    data's typed bytes), compiles, and the client takes the native tools payload.
    """
    prompt = compiler.compile(provider, data)
    tools = getattr(prompt.tools, fmt)() if fmt and prompt.tools.mode == "native" else None
    return prompt, tools


# --- the pairs -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Pair:
    """A promptc provider and the reference spec that should select the same variant family."""

    name: str                 # the promptc variant this provider should resolve to
    provider: ProviderInfo
    fmt: str                  # the native tools format a client of this provider sends
    spec: dict[str, Any]      # the reference's spec (provider/model/native/custom_prompt/expect)


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

    @classmethod
    def make(cls, quick: bool) -> Settings:
        if quick:
            return cls(True, blocks=3, block_n=60, py_warmup=10, ref_warmup=40, sub_n=60,
                       profile_seconds=0.4, profile_min=50, profile_max=3000, cold_runs=3,
                       scale_budget_s=5.0, scale_max_reps=2)
        return cls(False, blocks=5, block_n=300, py_warmup=20, ref_warmup=100, sub_n=300,
                   profile_seconds=4.0, profile_min=500, profile_max=3000, cold_runs=10,
                   scale_budget_s=40.0, scale_max_reps=6)


# --- inputs ----------------------------------------------------------------------------------

class Sessions:
    """Session numbers handed out once each, so no session repeats anywhere in the run."""

    def __init__(self, start: int = 1) -> None:
        self.next = start

    def take(self, n: int) -> range:
        r = range(self.next, self.next + n)
        self.next += n
        return r


def equal_data(base_json: str) -> Data:
    """A new data dict equal to the base (a deep copy: no object shared with any other)."""
    d: Data = json.loads(base_json)
    return d


def session_data(base_json: str, i: int) -> Data:
    """The base with a new session: new cwd, new rules text, new MCP server names."""
    d: Data = json.loads(base_json)
    d["cwd"] = f"{d.get('cwd') or '/work'}/s{i}"
    for rule in d.get("rules", ()):
        rule["text"] = f"{rule['text']}\nsession {i}"
    for server in d.get("mcp_servers", ()):
        server["name"] = f"{server['name']}-s{i}"
    return d


def prepare(base_json: str, mode: str, n: int, sessions: Sessions) -> list[Data]:
    if mode == "equal":
        return [equal_data(base_json) for _ in range(n)]
    return [session_data(base_json, i) for i in sessions.take(n)]


# --- timing helpers --------------------------------------------------------------------------

def time_calls(fn: Callable[[Any], Any], inputs: Sequence[Any]) -> list[float]:
    """µs per call of fn(x) for each input; GC off, results kept until the end (no frees timed).

    Only the young generations are collected first: a full collection walks every object the
    process holds (memos included) and would cost more than the block itself.
    """
    out: list[int] = []
    keep: list[Any] = []
    clock = time.perf_counter_ns
    gc.collect(1)
    gc.disable()
    try:
        for x in inputs:
            t0 = clock()
            r = fn(x)
            t1 = clock()
            out.append(t1 - t0)
            keep.append(r)
    finally:
        gc.enable()
    del keep
    return [t / 1000.0 for t in out]


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
    return "—" if r is None or math.isnan(r) else f"{r:.1f}×"


# --- the reference, driven as a subprocess ---------------------------------------------------

class ReferenceUnavailable(Exception):
    """The reference cannot run (no node, no file, it died, or it rejected a spec)."""


class Reference:
    """`node cline-bench.mjs --serve`: one JSON spec per stdin line -> one JSON result line."""

    def __init__(self, script: Path, node: str) -> None:
        self.script = script
        self.node = node
        self.version = ""
        self._err: IO[bytes] = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            [node, str(script), "--serve"], cwd=script.parent, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._err, text=True, encoding="utf-8", bufsize=1)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
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
        except (OSError, ReferenceUnavailable) as exc:
            return None, f"reference did not start: {exc}"

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _stderr_tail(self) -> str:
        self._err.seek(0)
        return self._err.read().decode("utf-8", "replace").strip()[-300:]

    def run(self, spec: dict[str, Any], timeout: float = 600.0) -> dict[str, Any]:
        if self._proc.poll() is not None or self._proc.stdin is None:
            raise ReferenceUnavailable(f"process exited ({self._proc.returncode}) "
                                       f"{self._stderr_tail()}")
        try:
            self._proc.stdin.write(json.dumps(spec) + "\n")
            self._proc.stdin.flush()
        except OSError as exc:
            raise ReferenceUnavailable(f"cannot write to it: {exc} {self._stderr_tail()}") from exc
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise ReferenceUnavailable(f"no answer within {timeout:.0f} s") from None
        if line is None:
            raise ReferenceUnavailable(f"process ended: {self._stderr_tail()}")
        result: dict[str, Any] = json.loads(line)
        if "error" in result:
            raise ReferenceUnavailable(str(result["error"]))
        return result

    def block(self, pair: Pair, context: Data, mode: str, n: int, warmup: int
              ) -> dict[str, Any]:
        spec = {**pair.spec, "context": context, "modes": [mode], "n": n, "warmup": warmup,
                "samples": True, "offset": self.offset}
        self.offset += n + warmup
        return self.run(spec)

    def close(self) -> None:
        try:
            if self._proc.stdin:
                self._proc.stdin.close()
            self._proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self._proc.kill()
            self._proc.wait()
        self._err.close()


# --- per request, interleaved ----------------------------------------------------------------

@dataclass
class ModeResult:
    promptc_us: list[float] = field(default_factory=list)
    reference_us: list[float] = field(default_factory=list)
    reference_error: str = ""

    def summary(self, target: float) -> dict[str, Any]:
        p = median(self.promptc_us)
        r = median(self.reference_us) if self.reference_us else math.nan
        ratio = r / p if self.reference_us and p > 0 else math.nan
        return {"promptc_median_us": p, "promptc_p90_us": pct(self.promptc_us, 0.9),
                "promptc_n": len(self.promptc_us),
                "reference_median_us": None if math.isnan(r) else r,
                "reference_p90_us": pct(self.reference_us, 0.9) if self.reference_us else None,
                "reference_n": len(self.reference_us),
                "ratio": None if math.isnan(ratio) else ratio, "target": target,
                "ok": None if math.isnan(ratio) else ratio >= target,
                "reference_error": self.reference_error or None}


@dataclass
class PairResult:
    pair: Pair
    variant: str
    chars: int
    tool_mode: str
    tool_names: int
    payload_len: int | None
    reference: dict[str, Any] = field(default_factory=dict)
    reference_error: str = ""
    modes: dict[str, ModeResult] = field(default_factory=dict)
    subcosts: dict[str, dict[str, float]] = field(default_factory=dict)
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def variant_ok(self) -> bool:
        return self.variant == self.pair.name

    def floor_ratio(self, mode: str) -> float:
        """promptc's median over the floor's, for one mode (NaN before the floor is timed)."""
        floor = self.subcosts.get(mode, {}).get("floor_us", math.nan)
        return median(self.modes[mode].promptc_us) / floor if floor and floor > 0 else math.nan


def tool_names(prompt: Any) -> tuple[str, ...]:
    names = prompt.tools.names
    return tuple(names() if callable(names) else names)


def describe(compiler: Compiler, pair: Pair, base_json: str) -> PairResult:
    prompt, tools = client_request(compiler, pair.provider, equal_data(base_json), pair.fmt)
    return PairResult(pair, prompt.variant.id, len(prompt.text), str(prompt.tools.mode),
                      len(tool_names(prompt)), None if tools is None else len(tools))


def promptc_block(compiler: Compiler, pair: Pair, base_json: str, mode: str, s: Settings,
                  sessions: Sessions) -> list[float]:
    warm = prepare(base_json, mode, s.py_warmup, sessions)
    data = prepare(base_json, mode, s.block_n, sessions)
    for d in warm:
        client_request(compiler, pair.provider, d, pair.fmt)
    del warm
    provider, fmt = pair.provider, pair.fmt
    return time_calls(lambda d: client_request(compiler, provider, d, fmt), data)


def interleave(compiler: Compiler, pair: Pair, res: PairResult, base_json: str, context: Data,
               ref: Reference | None, s: Settings, sessions: Sessions,
               progress: Progress) -> None:
    for mode in MODES:
        m = res.modes.setdefault(mode, ModeResult())
        for b in range(s.blocks):
            progress(f"per request: {pair.name} {mode} block {b + 1}/{s.blocks} (promptc)")
            m.promptc_us += promptc_block(compiler, pair, base_json, mode, s, sessions)
            if ref is None or res.reference_error:
                continue
            progress(f"per request: {pair.name} {mode} block {b + 1}/{s.blocks} (reference)")
            try:
                out = ref.block(pair, context, mode, s.block_n, s.ref_warmup)
            except ReferenceUnavailable as exc:
                res.reference_error = str(exc)
                continue
            if not res.reference:
                res.reference = {k: out.get(k) for k in
                                 ("variant", "chars", "tool_count", "tools_json_chars", "native")}
            m.reference_us += [float(x) for x in out[mode]["samples_us"]]
        m.reference_error = res.reference_error


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
        client_request(compiler, provider, d, fmt)

    data = prepare(base_json, mode, s.sub_n, sessions)
    out["from_dict_us"] = median(time_calls(PromptContext.from_dict, data))
    data = prepare(base_json, mode, s.sub_n, sessions)
    out["context_us"] = median(time_calls(compiler.context, data))

    contexts = [PromptContext.from_dict(d) for d in prepare(base_json, mode, s.sub_n, sessions)]
    prompts: list[Any] = []
    times = time_calls(lambda c: prompts.append(compiler.compile(provider, c)), contexts)
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
            client_request(compiler, provider, d, fmt)
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

def first_prompt(ref_script: Path | None, ref_missing: str, context: Data, s: Settings,
                 progress: Progress) -> dict[str, Any]:
    """Fresh processes, wall time from outside; commands rotated so none always runs first."""
    py = sys.executable
    promptc_code = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from promptc import Compiler, PromptContext, ProviderInfo\n"
        f"data = json.load(open({str(CONTEXT_FILE)!r}, encoding='utf-8'))\n"
        "prompt = Compiler.default().compile(ProviderInfo('anthropic', 'claude-sonnet-4-5'),"
        " data)\n"
        "tools = prompt.tools.anthropic() if prompt.tools.mode == 'native' else None\n"
        "print(len(prompt.text))\n")
    promptc_label = "promptc: import, Compiler.default(), first prompt"
    commands: dict[str, list[str]] = {
        "python -c pass": [py, "-c", "pass"],
        "python -c 'import attrs'": [py, "-c", "import attrs"],
        promptc_label: [py, "-c", promptc_code],
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
    pc: float | None = rows[promptc_label]["median_ms"]
    ref: float | None = rows.get(node_label, {}).get("median_ms")
    ratio = ref / pc if pc and ref else None
    if node_label not in rows:
        node_missing = node_missing or "node not found on PATH"
    return {"rows": rows, "ratio": ratio, "target": FIRST_PROMPT_TARGET,
            "ok": None if ratio is None else ratio >= FIRST_PROMPT_TARGET,
            "reference_missing": node_missing or None,
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


def print_per_request(results: list[PairResult], ref_missing: str, s: Settings) -> None:
    print("Per request (context from plain data + compile + native tools payload), realistic "
          f"context; medians over {s.blocks} interleaved blocks × {s.block_n} builds per side (µs)")
    headers = ["pair", "promptc variant", "KB pc/ref", "tools pc/ref",
               "eq pc", "eq ref", "eq ×", "tgt", "ok?", "÷floor",
               "ses pc", "ses ref", "ses ×", "tgt", "ok?", "÷floor"]
    rows = []
    for r in results:
        ref = r.reference
        variant = r.variant if r.variant_ok else f"{r.variant} (≠ {r.pair.name}!)"
        pc_tools = str(r.tool_names) if r.tool_mode == "native" else "text"
        ref_tools = ("—" if not ref else str(ref.get("tool_count"))
                     if ref.get("native") else "text")
        row: list[Any] = [r.pair.name, variant, f"{kb(r.chars)}/{kb(ref.get('chars'))}",
                          f"{pc_tools}/{ref_tools}"]
        for mode in MODES:
            sm = r.modes[mode].summary(TARGET[mode])
            ok = sm["ok"]
            row += [sm["promptc_median_us"], sm["reference_median_us"], ratio_text(sm["ratio"]),
                    f"{TARGET[mode]:.0f}×", "—" if ok is None else ("ok" if ok else "MISS"),
                    ratio_text(r.floor_ratio(mode))]
        rows.append(row)
    print(table(headers, rows))
    print("  eq: each request brings a new data dict equal to the first; ses: a new session "
          "(cwd, rules text, MCP server names) per request.\n"
          "  × = reference median / promptc median (higher is better for promptc); "
          "KB = characters / 1024; tools = native tool definitions sent;\n"
          f"  ÷floor = promptc median / the floor below (the least any builder must do; goal: "
          f"at most {FLOOR_GOAL:.0f}×).")
    if ref_missing:
        print(f"  reference columns missing: {ref_missing}")
    for r in results:
        if not r.variant_ok:
            print(f"  NOTE: {r.pair.provider.provider}/{r.pair.provider.model} resolved to "
                  f"promptc variant {r.variant!r}, expected {r.pair.name!r}")
        if r.reference_error:
            print(f"  NOTE: reference for {r.pair.name} ({r.pair.spec}): {r.reference_error}")
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
                         total, median(r.modes[mode].promptc_us), sc.get("floor_us"),
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
                print("Profiles of the per-request path, for each pair and mode that missed "
                      "its target (cProfile; its overhead inflates the absolute figures)")
                any_profile = True
            full = median(r.modes[mode].promptc_us)
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
        judged = any(m.reference_us for r in results for m in r.modes.values())
        print("Profiles: none printed (" + ("no pair missed its target" if judged else
                                             "no ratio to judge: the reference is missing") + ")")
    print()


def print_first_prompt(fp: dict[str, Any]) -> None:
    print("Time to the first prompt in a fresh process (wall ms from outside, medians)")
    rows = []
    for label, row in fp["rows"].items():
        rows.append([label, row["median_ms"], row["runs"], row["error"] or ""])
    print(table(["command", "median ms", "runs", "error"], rows))
    print(f"  × = reference / promptc: {ratio_text(fp['ratio'])} (target ≥ "
          f"{fp['target']:.0f}×: " + ("—" if fp["ok"] is None else "ok" if fp["ok"] else "MISS")
          + ")")
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

def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--reference", type=Path, default=None,
                    help=f"path to cline-bench.mjs (default: {DEFAULT_REFERENCE} if it exists)")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions, a smoke run")
    ap.add_argument("--json", type=Path, default=None, metavar="OUT",
                    help="also write every figure as JSON")
    args = ap.parse_args(argv)
    s = Settings.make(args.quick)
    script = args.reference or (DEFAULT_REFERENCE if DEFAULT_REFERENCE.exists() else None)
    if script is not None:
        script = script.resolve()
    progress = Progress()

    base_json = CONTEXT_FILE.read_text(encoding="utf-8")
    context: Data = json.loads(base_json)
    compiler = Compiler.default(project=False, user=False)
    sessions = Sessions()

    progress("starting the reference")
    ref, ref_missing = Reference.start(script)
    print(f"promptc side by side — Python {sys.version.split()[0]}, "
          f"node {ref.version if ref else '—'}, {os.cpu_count()} CPUs"
          f"{' (quick)' if s.quick else ''}")
    print(f"promptc from {ROOT}; reference: {script if ref else 'missing (' + ref_missing + ')'}"
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
        for pair in PAIRS:
            res = describe(compiler, pair, base_json)
            interleave(compiler, pair, res, base_json, context, ref, s, sessions, progress)
            for mode in MODES:
                progress(f"sub-costs: {pair.name} {mode}")
                res.subcosts[mode] = subcosts(compiler, pair, base_json, mode, s, sessions)
            results.append(res)
    finally:
        if ref is not None:
            ref.close()
    phase_done("per_request_and_subcosts")
    for res in results:
        for mode in MODES:
            sm = res.modes[mode].summary(TARGET[mode])
            if sm["ok"] is False:
                progress(f"profile: {res.pair.name} {mode}")
                res.profiles[mode] = profile(compiler, res.pair, base_json, mode,
                                             sm["promptc_median_us"], s, sessions)
    phase_done("profiles")
    progress.clear()
    print_per_request(results, ref_missing, s)
    print_subcosts(results)
    print_profiles(results)
    sys.stdout.flush()

    fp = first_prompt(script, ref_missing, context, s, progress)
    phase_done("first_prompt")
    progress.clear()
    print_first_prompt(fp)
    sys.stdout.flush()

    scale = scaling(compiler, s, sessions, progress)
    phase_done("scaling")
    progress.clear()
    print_scaling(scale)
    print("wall time per part (s): " + ", ".join(f"{k} {v:.0f}" for k, v in phases.items()))

    if args.json:
        report = {
            "meta": {"python": sys.version.split()[0], "node": ref.version if ref else None,
                     "cpus": os.cpu_count(), "quick": s.quick, "promptc_root": str(ROOT),
                     "reference": str(script) if script else None,
                     "reference_missing": ref_missing or None,
                     "context": str(CONTEXT_FILE), "blocks": s.blocks, "block_n": s.block_n,
                     "py_warmup": s.py_warmup, "ref_warmup": s.ref_warmup, "sub_n": s.sub_n,
                     "phase_seconds": phases},
            "pairs": [{
                "pair": r.pair.name, "provider": r.pair.provider.provider,
                "model": r.pair.provider.model, "reference_spec": r.pair.spec,
                "promptc_variant": r.variant, "variant_ok": r.variant_ok,
                "promptc_chars": r.chars, "promptc_tool_mode": r.tool_mode,
                "promptc_tools": r.tool_names, "promptc_payload_len": r.payload_len,
                "reference": r.reference or None, "reference_error": r.reference_error or None,
                **{mode: r.modes[mode].summary(TARGET[mode]) for mode in MODES},
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
