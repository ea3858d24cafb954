"""promptc benchmarks: the per-request path, cold start, scaling, threads.

Run from the repository root, in the environment the README's test command makes:

    python benchmarks/bench.py            # full run (about two minutes)
    python benchmarks/bench.py --quick    # fewer repetitions, for a smoke check

On a terminal a progress line on stderr says which part is running (`--quiet` turns it off; it is
off anyway when stderr is not a terminal, so logs and pipes get the tables only).

Everything is reported as medians measured in this one run, with ratios to the "join floor"
(`"".join` of the final prompt's pieces, the least any builder must do per request). These machines
are shared and noisy: compare ratios within a run, not absolute numbers across runs. Nothing here
asserts a time; tests/ checks behaviour only. The comparison with the TypeScript reference,
measured side by side in one run, is benchmarks/sidebyside.py.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from promptc import Compiler, PromptContext, ProviderInfo  # noqa: E402
from sidebyside import Progress  # noqa: E402  (benchmarks/ is this script's folder)

FULL = json.loads((ROOT / "promptc/_data/snapshot/contexts/full.json").read_text("utf-8"))
VARIANTS = [
    ("generic", ProviderInfo("openai", "gpt-4.1")),
    ("next-gen", ProviderInfo("anthropic", "claude-sonnet-4-5", native_tools=False)),
    ("native-next-gen", ProviderInfo("anthropic", "claude-sonnet-4-5")),
    ("gpt-5", ProviderInfo("openai", "gpt-5")),
    ("gemini-3", ProviderInfo("google", "gemini-3-pro-preview")),
    ("glm", ProviderInfo("zai", "glm-4.6")),
    ("compact", ProviderInfo("ollama", "qwen2.5-coder:7b")),
]

PROGRESS = Progress(quiet=True)  # replaced in main() once the options are read


def median_us(fn: Callable[[Any], Any], inputs: list[Any]) -> float:
    """Median wall time of fn(x) over the inputs, in µs (GC off while timing)."""
    times = []
    gc.collect()
    gc.disable()
    try:
        for x in inputs:
            t = time.perf_counter()
            fn(x)
            times.append(time.perf_counter() - t)
    finally:
        gc.enable()
    return statistics.median(times) * 1e6


def fresh_session(i: int, base: dict[str, Any] | None = None) -> dict[str, Any]:
    """A context equal to the full fixture but for its session: cwd, rules, MCP, skills."""
    d = copy.deepcopy(base or FULL)
    d["cwd"] = f"/home/dev/projects/p{i}"
    d["rules"][0]["text"] += f"\nSession {i}."
    d["mcp_servers"][0]["name"] = f"github-{i}"
    d["skills"][1]["description"] += f" ({i})"
    return d


def table(headers: list[str], rows: list[list[Any]]) -> str:
    cells = [headers] + [[f"{c:,.1f}" if isinstance(c, float) else str(c) for c in r]
                         for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                       enumerate(zip(row, widths))) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def per_variant(compiler: Compiler, n: int) -> list[list[Any]]:
    rows = []
    for k, (vid, provider) in enumerate(VARIANTS):
        PROGRESS(f"per request: {vid} ({k + 1}/{len(VARIANTS)})")
        warm = compiler.compile(provider, PromptContext.from_dict(FULL), variant=vid,
                                count_tokens=True)
        pieces = _pieces(warm)
        floor = median_us(lambda _: "".join(pieces), list(range(n)))
        # Each request builds a new context equal to the last, as a client does.
        equal = [PromptContext.from_dict(FULL) for _ in range(n)]
        t_equal = median_us(lambda c: compiler.compile(provider, c, variant=vid), equal)
        sessions = [PromptContext.from_dict(fresh_session(i)) for i in range(n)]
        t_session = median_us(lambda c: compiler.compile(provider, c, variant=vid), sessions)
        cold = [PromptContext.from_dict(fresh_session(10**6 + i)) for i in range(max(n // 4,
                                                                                        200))]
        t_tokens = median_us(lambda c: compiler.compile(provider, c, variant=vid,
                                                        count_tokens=True), cold)
        kb = len(warm.text.encode()) / 1024
        rows.append([vid, round(kb, 1), warm.tokens.total, floor, t_equal,
                     t_equal / floor, t_session, t_tokens])
    return rows


def _pieces(prompt: Any) -> list[str]:
    """The final prompt as the pieces a builder joins: glue and section texts."""
    out, pos = [], 0
    for a, b in prompt.spans:
        out += [prompt.text[pos:a], prompt.text[a:b]]
        pos = b
    out.append(prompt.text[pos:])
    return [p for p in out if p]


def cold_start(runs: int) -> list[list[Any]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    bare = [sys.executable, "-c", "pass"]
    load = [sys.executable, "-c", "import promptc; promptc.Compiler.default()"]
    render = [sys.executable, "-m", "promptc", "render", "--provider", "anthropic", "--model",
              "claude-sonnet-4-5", "--date", "2026-01-01"]

    def wall(cmd: list[str]) -> float:
        times = []
        for run in range(runs):
            PROGRESS(f"startup: {' '.join(cmd[1:3])} … run {run + 1}/{runs}")
            t = time.perf_counter()
            subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, check=True)
            times.append(time.perf_counter() - t)
        return statistics.median(times) * 1e3
    t_bare, t_load, t_render = wall(bare), wall(load), wall(render)
    return [["python -c pass (interpreter alone)", t_bare, ""],
            ["import promptc + Compiler.default()", t_load, t_load - t_bare],
            ["promptc render (end to end)", t_render, t_render - t_bare]]


def scaling(compiler: Compiler, reps: int) -> list[list[Any]]:
    """Compile cost against input size, each build on a new session (nothing memoized)."""
    provider = ProviderInfo("openai", "gpt-4.1")
    rows = []

    def measure(label: str, size: str, make: Callable[[int], dict[str, Any]], k: int) -> None:
        PROGRESS(f"scaling: {label} {size}")
        inputs = [PromptContext.from_dict(make(i)) for i in range(k)]
        t = median_us(lambda c: compiler.compile(provider, c, variant="generic"), inputs)
        chars = len(compiler.compile(provider, inputs[0], variant="generic").text)
        rows.append([label, size, k, t / 1000, chars])

    def rules(n_bytes: int) -> Callable[[int], dict[str, Any]]:
        line = "Prefer small, reviewed changes; name things for what they do.\n"
        text = (line * (n_bytes // len(line) + 1))[:n_bytes]
        return lambda i: {**FULL, "cwd": f"/p{i}",
                          "rules": [{"name": "big", "text": f"{i}\n" + text}]}

    def mcp(n_tools: int) -> Callable[[int], dict[str, Any]]:
        def make(i: int) -> dict[str, Any]:
            tools = [{"name": f"tool_{i}_{t}", "description": f"Tool number {t}.",
                      "input_schema": {"type": "object", "properties": {
                          "x": {"type": "string"}}}} for t in range(n_tools)]
            return {**FULL, "mcp_servers": [{"name": f"big{i}", "tools": tools}]}
        return make

    def skills(n: int) -> Callable[[int], dict[str, Any]]:
        return lambda i: {**FULL, "skills": [{"name": f"s{i}-{k}", "description": "A skill."}
                                             for k in range(n)]}

    def nested(depth: int) -> Callable[[int], dict[str, Any]]:
        def make(i: int) -> dict[str, Any]:
            schema: dict[str, Any] = {"type": "object", "description": f"v{i}"}
            node = schema
            for _ in range(depth):
                node["properties"] = {"x": {"type": "object"}}
                node = node["properties"]["x"]
            return {**FULL, "mcp_servers": [{"name": "deep", "tools": [
                {"name": "t", "input_schema": schema}]}]}
        return make

    for size, n in (("1 KB", 1024), ("100 KB", 100 * 1024), ("1 MB", 1024 * 1024)):
        measure("rules text", size, rules(n), reps if n < 10**6 else max(reps // 5, 5))
    for n in (10, 100, 1000, 10000):
        measure("MCP tools", str(n), mcp(n), reps if n <= 100 else max(reps // 10, 5))
    for n in (100, 10000):
        measure("skills", str(n), skills(n), reps if n <= 100 else max(reps // 10, 5))
    measure("rules: one line of '='", "100,000 chars",
            lambda i: {**FULL, "rules": [{"name": "eq", "text": f"{i}\n" + "=" * 100_000}]},
            max(reps // 5, 5))
    measure("rules: blank lines", "100,000", lambda i: {**FULL, "rules": [
        {"name": "blank", "text": f"{i}" + "\n" * 100_000 + "end"}]}, max(reps // 5, 5))
    measure("MCP schema nesting", "500 deep", nested(500), max(reps // 5, 5))
    return rows


def threads(compiler: Compiler, n_threads: int, per_thread: int) -> list[list[Any]]:
    providers = [p for _, p in VARIANTS]
    sessions = [fresh_session(i) for i in range(7)]
    jobs = [(providers[i % len(providers)], (i // 3) % len(sessions)) for i in range(per_thread)]
    expected = [compiler.compile(p, PromptContext.from_dict(sessions[k])).text
                for p, k in jobs]
    mismatches = []
    errors: list[BaseException] = []
    # Each thread builds its own equal context objects, as separate clients would.
    per_thread_contexts = [[PromptContext.from_dict(s) for s in sessions]
                           for _ in range(n_threads)]

    def work(mine: list[PromptContext]) -> None:
        try:
            for k, (p, c) in enumerate(jobs):
                if compiler.compile(p, mine[c]).text != expected[k]:
                    mismatches.append(k)
        except BaseException as exc:  # noqa: BLE001 - reported in the table
            errors.append(exc)
    PROGRESS(f"threads: {n_threads} × {per_thread} builds")
    t = time.perf_counter()
    ts = [threading.Thread(target=work, args=(per_thread_contexts[i],))
          for i in range(n_threads)]
    for th in ts:
        th.start()
    for th in ts:
        th.join()
    elapsed = time.perf_counter() - t
    total = n_threads * per_thread
    return [[n_threads, total, elapsed * 1e6 / total, len(mismatches), len(errors)]]


def memory(compiler: Compiler, n: int) -> list[list[Any]]:
    provider = ProviderInfo("openai", "gpt-4.1")
    PROGRESS(f"memory: {n} builds")
    contexts = [PromptContext.from_dict(fresh_session(20_000 + i)) for i in range(n)]
    tracemalloc.start()
    for c in contexts:
        compiler.compile(provider, c)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    import resource
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return [[f"{n} new-session builds", peak / 2**20, rss]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke check)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress line on stderr")
    args = ap.parse_args()
    global PROGRESS
    PROGRESS = Progress(quiet=args.quiet)
    n = 200 if args.quick else 2000
    compiler = Compiler.default(project=False, user=False)
    print(f"promptc benchmarks — Python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
          f"{' (quick)' if args.quick else ''}\n")

    print(f"Per request, full context, medians over {n} builds (µs)", flush=True)
    rows = per_variant(compiler, n)
    PROGRESS.clear()
    print(table(["variant", "KB", "tokens", "join floor", "equal ctx", "× floor",
                 "new session", "new session + tokens"], rows))
    print("\n  equal ctx: each request builds a new PromptContext equal to the last.\n"
          "  new session: cwd, rules, MCP servers and skills change on every request.\n")

    print("Startup (ms, median of subprocess runs)")
    rows = cold_start(5 if args.quick else 15)
    PROGRESS.clear()
    print(table(["what", "wall", "minus interpreter"], rows))

    print("\nScaling (each build a new session: nothing served from memos)")
    rows = scaling(compiler, 20 if args.quick else 50)
    PROGRESS.clear()
    print(table(["input", "size", "builds", "median ms", "prompt chars"], rows))

    print("\nThreads: concurrent builds compared with the sequential output")
    rows = threads(compiler, 16, 300 if args.quick else 5000)
    PROGRESS.clear()
    print(table(["threads", "builds", "µs per build", "mismatches", "errors"], rows))

    print("\nMemory")
    rows = memory(compiler, 100 if args.quick else 1000)
    PROGRESS.clear()
    print(table(["what", "traced peak MB", "process max RSS MB"], rows))


if __name__ == "__main__":
    main()
