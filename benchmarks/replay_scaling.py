"""How long `promptc session` takes as a conversation grows: one context, N repeated requests.

A request costs the same however long its conversation (issue 34: 10,000 requests of one
context in under 5 s on these machines, two shared cores). Run from the repository root:

    python benchmarks/replay_scaling.py              # 2,500, 5,000 and 10,000 requests
    python benchmarks/replay_scaling.py 1000 20000   # other sizes

Each size is replayed once per provider's rules with promptc's real prompts (the benchmarks'
realistic context, built-in variants), after one warm-up replay; the table gives the seconds
and the microseconds per request, which stay flat when the replay is linear. Nothing is
asserted: tests/test_session_replay.py checks linearity by counting operations.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from promptc import Compiler  # noqa: E402
from promptc.session import SessionScript, replay  # noqa: E402

TARGETS = (("anthropic", "claude-sonnet-4-5"), ("openai", "gpt-5"), ("openai", "gpt-5.6"),
           ("gemini", "gemini-2.5-flash"))
CONTEXT = json.loads((ROOT / "benchmarks" / "realistic_context.json").read_text("utf-8"))


def seconds(compiler: Compiler, provider: str, model: str, requests: int) -> float:
    script = SessionScript.from_dict({
        "provider": provider, "model": model, "turn_tokens": 900,
        "context": {**CONTEXT, "date": "2026-02-03"},
        "request": [{}, {"repeat": requests - 1}]})
    start = time.perf_counter()
    replay(script, compiler=compiler)
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or [2500, 5000, 10000]
    compiler = Compiler.builtins()
    print("| rules | model | requests | seconds | µs per request |")
    print("|---|---|---:|---:|---:|")
    for provider, model in TARGETS:
        seconds(compiler, provider, model, 100)  # warm-up: the prompt compiled and memoized
        for n in sizes:
            took = seconds(compiler, provider, model, n)
            print(f"| {provider} | {model} | {n:,} | {took:.2f} | {took / n * 1e6:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
