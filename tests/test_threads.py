"""One compiler, many threads: no errors, and every output identical to the sequential run."""

from __future__ import annotations

import threading

import attrs
import pytest

from promptc import Compiler, PromptContext, ProviderInfo
from promptc.testing import make_context


PROVIDERS = [ProviderInfo("openai", "gpt-4.1"), ProviderInfo("anthropic", "claude-sonnet-4-5"),
             ProviderInfo("anthropic", "claude-sonnet-4-5", native_tools=False),
             ProviderInfo("openai", "gpt-5"), ProviderInfo("google", "gemini-3-pro-preview"),
             ProviderInfo("zai", "glm-4.6"), ProviderInfo("ollama", "qwen2.5-coder:7b")]


def contexts() -> list[PromptContext]:
    out = []
    for name in ("full", "no_browser", "no_mcp", "no_rules_skills", "plan", "minimal"):
        base = make_context(name)
        out += [base, attrs.evolve(base, cwd="/elsewhere", date="2027-07-07")]
    return out


@pytest.mark.scale
def test_sixteen_threads_share_one_compiler(scale: int) -> None:
    """Sixteen threads, each running a thousand compiles (ten thousand with --full-scale)
    of the same jobs from another starting point, on one shared compiler: each prompt equals
    the one a fresh compiler makes."""
    ctxs = contexts()
    jobs = [(PROVIDERS[i % len(PROVIDERS)], i % len(ctxs)) for i in range(1000 * scale)]
    # Each thread gets its own fresh (equal) context objects, as clients do.
    expected_compiler = Compiler.builtins()
    expected = {(p, k): expected_compiler.compile(p, ctxs[k]).text for p, k in set(jobs)}
    shared = Compiler.builtins()
    failures: list[str] = []
    start = threading.Barrier(16)

    def work(seed: int) -> None:
        mine = [PromptContext.from_dict(c.to_dict()) for c in ctxs]
        start.wait()
        try:
            for n, (p, k) in enumerate(jobs[seed:] + jobs[:seed]):
                text = shared.compile(p, mine[k], count_tokens=(n % 97 == 0)).text
                if text != expected[(p, k)]:
                    failures.append(f"thread {seed}: {p.model} / context {k}")
                    return
        except Exception as exc:  # noqa: BLE001 - reported as a failure
            failures.append(f"thread {seed}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=work, args=(i * 313,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
