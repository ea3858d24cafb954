"""docs/caching.md's loop runs as written, through the real anthropic SDK against a local fake
server: a mode switch and a new day send the same system prompt and tools, what was sent is sent
again unchanged, and each change reaches the model as an update of its own."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import attrs
import pytest

from promptc import Compiler, PromptContext, ProviderInfo

from .fakeserver import FakeServer

PAGE = Path(__file__).resolve().parent.parent / "docs" / "caching.md"


def test_the_loop_on_the_caching_page(builtins: Compiler, full_context: PromptContext) -> None:
    anthropic = pytest.importorskip("anthropic")
    [code] = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    scope: dict[str, Any] = {}
    exec(compile(code, "docs/caching.md", "exec"), scope)  # noqa: S102
    plan = attrs.evolve(full_context, mode="plan")
    turns = [(full_context, "Add a health check."), (plan, "Plan the next step."),
             (attrs.evolve(plan, date="2026-01-16"), "Go on.")]
    provider = ProviderInfo("anthropic", "claude-sonnet-4-5")
    with FakeServer() as server:
        client = anthropic.Anthropic(api_key="sk-ant-test", base_url=server.url, max_retries=0)
        scope["run_session"](client, builtins, provider, turns)
        bodies = server.bodies("anthropic")
    assert len(bodies) == 3
    assert bodies[0]["system"] == bodies[1]["system"] == bodies[2]["system"]
    assert bodies[0]["tools"] == bodies[1]["tools"] == bodies[2]["tools"]
    for earlier, later in zip(bodies, bodies[1:]):
        assert later["messages"][:len(earlier["messages"])] == earlier["messages"]
    prompts = [builtins.compile(provider, ctx) for ctx, _text in turns]
    assert bodies[1]["messages"][-1]["content"][0]["text"] == prompts[1].message_update(prompts[0])
    assert bodies[2]["messages"][-1]["content"][0]["text"] == prompts[2].message_update(prompts[1])
