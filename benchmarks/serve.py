"""`promptc serve`: round-trip latency per request against an in-process compile of the same
request.

Run from the repository root, in the environment the README's test command makes:

    python benchmarks/serve.py            # full run (under a minute)
    python benchmarks/serve.py --quick    # fewer requests, for a smoke check

For each case (the realistic context, `format` json — render's JSON, tokens counted — or an
anthropic payload; the same request every time, or a new cwd and rules text on every request so
no memo serves it), three sides, interleaved in blocks because the machine is shared and noisy:

* **serve**: one request written to a long-lived `promptc serve`, its answer read and decoded
  (one in flight at a time: the latency a client waits);
* **in-process**: `Compiler.compile` with the same plain data, plus building the same result
  (`render_data` or the payload), which is what a Python client pays for the same answer;
* **compile only**: `Compiler.compile` alone.

Medians and 90th percentiles in µs, and the ratio serve / in-process. Then throughput when the
requests are pipelined (all written at once, answers read as they come): µs per request. Nothing
here is asserted anywhere; compare ratios within one run.
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from promptc import Compiler, ProviderInfo  # noqa: E402
from promptc._cli.results import PayloadOptions, payload, render_data  # noqa: E402
from sidebyside import median, pct, table, time_calls  # noqa: E402

CONTEXT = json.loads((ROOT / "benchmarks" / "realistic_context.json").read_text("utf-8"))
TARGET = {"provider": "anthropic", "model": "claude-sonnet-4-5"}


def contexts(n: int, new: bool) -> list[dict[str, Any]]:
    """n context dicts: equal to the realistic one, or each with its own cwd and rules text."""
    out = []
    for i in range(n):
        ctx = copy.deepcopy(CONTEXT)
        if new:
            ctx["cwd"] = f"/home/dev/project-{i}"
            ctx["rules"] = [*ctx.get("rules", []),
                            {"name": "request", "text": f"Request number {i}."}]
        out.append(ctx)
    return out


class Client:
    """A `promptc serve` subprocess, one request in flight at a time."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "promptc", "serve",
                                      "--builtins-only"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, cwd=ROOT)
        self.next_id = 0

    def call(self, params: dict[str, Any]) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": "compile",
                           "params": params})
        self.proc.stdin.write(line.encode("utf-8") + b"\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        if "result" not in answer:
            raise SystemExit(f"serve answered an error: {answer}")
        return answer["result"]

    def pipelined(self, requests: list[dict[str, Any]]) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        data = b"".join(json.dumps({"jsonrpc": "2.0", "id": -1 - i, "method": "compile",
                                    "params": p}).encode("utf-8") + b"\n"
                        for i, p in enumerate(requests))
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        for _ in requests:
            self.proc.stdout.readline()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def in_process(compiler: Compiler, fmt: str, build: bool) -> Callable[[dict[str, Any]], Any]:
    info = ProviderInfo(TARGET["provider"], TARGET["model"])
    options = PayloadOptions()

    def run(ctx: dict[str, Any]) -> Any:
        prompt = compiler.compile(info, ctx, count_tokens=fmt == "json")
        if not build:
            return prompt
        return render_data(prompt) if fmt == "json" else payload(prompt, fmt, options)
    return run


def measure(client: Client, compiler: Compiler, fmt: str, new: bool, n: int, blocks: int
            ) -> dict[str, list[float]]:
    sides: dict[str, list[float]] = {"serve": [], "in-process": [], "compile only": []}
    for block in range(blocks):
        ctxs = contexts(n, new)
        if new:  # every block its own requests: nothing repeats across sides or blocks
            for i, ctx in enumerate(ctxs):
                ctx["cwd"] += f"-{block}"
        requests = [{**TARGET, "format": fmt, "context": c} for c in ctxs]
        for warm in requests[:3]:
            client.call(warm)
        sides["serve"] += time_calls(client.call, requests)
        for name, build in (("in-process", True), ("compile only", False)):
            fn = in_process(compiler, fmt, build)
            fresh = contexts(n, new)
            if new:
                for i, ctx in enumerate(fresh):
                    ctx["cwd"] += f"-{block}-{name}"
            fn(fresh[0])
            sides[name] += time_calls(fn, fresh)
    return sides


def pipelined(client: Client, fmt: str, n: int) -> float:
    import time
    requests = [{**TARGET, "format": fmt, "context": c} for c in contexts(n, True)]
    for r in requests:
        r["context"]["cwd"] += "-pipelined"
    t0 = time.perf_counter()
    client.pipelined(requests)
    return (time.perf_counter() - t0) * 1e6 / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer requests")
    args = ap.parse_args()
    n, blocks = (50, 2) if args.quick else (200, 5)
    compiler = Compiler.builtins()
    client = Client()
    rows = []
    try:
        for fmt in ("json", "anthropic"):
            for new in (False, True):
                sides = measure(client, compiler, fmt, new, n, blocks)
                serve, local = sides["serve"], sides["in-process"]
                rows.append([fmt, "new context" if new else "equal request",
                             median(serve), pct(serve, 0.9), median(local), pct(local, 0.9),
                             median(sides["compile only"]),
                             f"{median(serve) / median(local):.1f}×"])
        through = [[fmt, pipelined(client, fmt, n * 2)] for fmt in ("json", "anthropic")]
    finally:
        client.close()
    print(f"promptc serve: round trip per request vs in-process ({n * blocks} requests a "
          "case, µs)\n")
    print(table(["format", "requests", "serve median", "serve p90", "in-process median",
                 "in-process p90", "compile only", "serve / in-process"], rows))
    print(f"\npipelined ({n * 2} new-context requests written at once), µs per request:\n")
    print(table(["format", "µs / request"], through))


if __name__ == "__main__":
    main()
