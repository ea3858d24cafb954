"""What an LLM client pays per request, timed in one promptc checkout (sidebyside.py's worker).

The definitions the side-by-side benchmark times live here, apart from any promptc import, so
that a process of its own can time an older checkout with the very same harness:

    python benchmarks/per_request.py ROOT CONTEXT_FILE [PLACEMENT]

imports promptc from ROOT (a checkout: this one, or e.g. the commit before a change) and
answers one JSON request per stdin line with one JSON line:

    {"op": "describe", "pair": PAIR}                             -> what the request gives
    {"op": "block", "pair": PAIR, "mode": M, "n": N, "warmup": W} -> {"samples_us": [...]}

where PAIR is {"provider": ..., "model": ..., "native_tools": ..., "fmt": ...}.
"""

from __future__ import annotations

import gc
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Data = dict[str, Any]


def client_request(compiler: Any, provider: Any, data: Data, fmt: str | None,
                   placement: str | None = None) -> tuple[Any, Any]:
    """What an LLM client pays per request: context from plain data, compile, native tools payload.

    The client hands promptc its plain context data (the context-file shape); the compiler
    builds the PromptContext from it (through its own memo of contexts and parts, keyed by the
    data's typed bytes), compiles, and the client takes the native tools payload. `placement`:
    the compile's `dynamic=` (None: the library's default placement).
    """
    if placement is None:
        prompt = compiler.compile(provider, data)
    else:
        prompt = compiler.compile(provider, data, dynamic=placement)
    tools = getattr(prompt.tools, fmt)() if fmt and prompt.tools.mode == "native" else None
    return prompt, tools


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


def tool_names(prompt: Any) -> tuple[str, ...]:
    """The offered tools' names (a method in older checkouts, a property now)."""
    names = prompt.tools.names
    return tuple(names() if callable(names) else names)


def serve(root: Path, context_file: Path, placement: str | None) -> None:
    """Answer describe/block requests on stdin with promptc imported from `root`."""
    sys.path.insert(0, str(root))
    from promptc import Compiler, ProviderInfo

    base_json = context_file.read_text(encoding="utf-8")
    compiler = Compiler.default(project=False, user=False)
    sessions = Sessions()

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        pair = request["pair"]
        provider = ProviderInfo(pair["provider"], pair["model"],
                                native_tools=pair["native_tools"])
        fmt = pair["fmt"]
        if request["op"] == "describe":
            prompt, tools = client_request(compiler, provider, equal_data(base_json), fmt,
                                           placement)
            return {"variant": prompt.variant.id, "chars": len(prompt.text),
                    "tool_mode": str(prompt.tools.mode), "tools": len(tool_names(prompt)),
                    "payload_len": None if tools is None else len(tools)}
        mode = request["mode"]
        for d in prepare(base_json, mode, request["warmup"], sessions):
            client_request(compiler, provider, d, fmt, placement)
        data = prepare(base_json, mode, request["n"], sessions)
        return {"samples_us": time_calls(
            lambda d: client_request(compiler, provider, d, fmt, placement), data)}

    print(json.dumps({"ready": str(root)}), flush=True)
    for line in sys.stdin:
        try:
            result = answer(json.loads(line))
        except Exception as exc:  # reported to the driver, which names the checkout
            result = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    serve(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
