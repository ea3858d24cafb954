"""Token budgets: shorter forms first, then optional sections, lowest priority first.

A budget limits what is sent before any message: the prompt's text, plus the native tool
definitions of a variant that sends them (gpt-4.1 on generic calls tools natively).
"""

from __future__ import annotations

import pytest

from promptc import BudgetExceededError, Compiler, ProviderInfo, count_tokens
from promptc._cli import main

from .conftest import CONTEXTS, load_context

GPT = ProviderInfo("openai", "gpt-4.1")


@pytest.fixture(scope="module")
def full_tokens(builtins: Compiler) -> int:
    return builtins.compile(GPT, load_context("full"), count_tokens=True).tokens.with_tools


def test_a_budget_that_fits_changes_nothing(builtins: Compiler, full_tokens: int) -> None:
    out = builtins.compile(GPT, load_context("full"), budget=full_tokens)
    assert out.dropped == () and out.tokens.with_tools == full_tokens
    assert out.budget == full_tokens


def test_sixty_percent_drops_optional_sections_with_a_log(builtins: Compiler,
                                                          full_tokens: int) -> None:
    budget = int(full_tokens * 0.6)
    out = builtins.compile(GPT, load_context("full"), budget=budget)
    assert out.tokens.with_tools <= budget
    assert out.dropped
    kept = {s.id for s in out.sections}
    for d in out.dropped:
        assert d.tokens > 0 and d.reason
        if d.action == "dropped":
            assert d.id not in kept
    # required sections are all still there
    full = builtins.compile(GPT, load_context("full"))
    assert {s.id for s in full.sections if s.required} <= kept
    # every drop is also a diagnostic (info level: a report, not a failure in strict mode)
    assert {d.source for d in out.diagnostics if d.code.startswith("budget-")} == \
        {d.id for d in out.dropped}
    strict = builtins.compile(GPT, load_context("full"), budget=budget, strict=True)
    assert strict.text == out.text


def test_lowest_priority_goes_first(builtins: Compiler, full_tokens: int) -> None:
    out = builtins.compile(GPT, load_context("full"), budget=int(full_tokens * 0.6))
    dropped = [d for d in out.dropped if d.action == "dropped"]
    assert [d.priority for d in dropped] == sorted(d.priority for d in dropped)
    shortened = [d for d in out.dropped if d.action == "shortened"]
    assert out.dropped[:len(shortened)] == tuple(shortened)  # shorter forms are tried first


def test_required_sections_alone_over_budget_raise(builtins: Compiler) -> None:
    with pytest.raises(BudgetExceededError) as info:
        builtins.compile(GPT, load_context("full"), budget=500)
    report = info.value.report
    assert report["budget"] == 500 and report["total"] > 500
    assert all(row["required"] for row in report["sections"])
    assert isinstance(info.value, ValueError)


def test_cli_budget_exit_codes(capsys: pytest.CaptureFixture[str], full_tokens: int) -> None:
    ctx = str(CONTEXTS / "full.json")
    args = ["render", "--builtins-only", "--provider", "openai", "--model", "gpt-4.1",
            "--context", ctx, "--format", "json"]
    assert main([*args, "--budget", str(int(full_tokens * 0.6))]) == 0
    import json
    data = json.loads(capsys.readouterr().out)
    assert data["tokens"]["with_tools"] <= int(full_tokens * 0.6) and data["dropped"]
    assert main([*args, "--budget", "100"]) == 3
    assert "budget" in capsys.readouterr().err


def test_native_tool_json_counts_against_the_budget(builtins: Compiler) -> None:
    """The same budget means the same for a native and a text request: the native one's tool
    definitions are counted (in the model's encoding), the text one's catalogue is its text."""
    ctx = load_context("full")
    native = builtins.compile(GPT, ctx, count_tokens=True)
    text = builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False), ctx,
                            count_tokens=True)
    assert native.tools.mode == "native" and text.tools.mode == "text"
    assert native.tokens.tools == count_tokens(native.tools.json_text("openai")) > 1000
    assert native.tokens.tools_format == "openai"
    assert text.tokens.tools == 0 and text.tokens.with_tools == text.tokens.total
    budget = native.tokens.with_tools - 100  # text + tools fit only once something goes
    out = builtins.compile(GPT, ctx, budget=budget)
    assert out.dropped and out.tokens.with_tools <= budget
    assert out.tokens.tools == native.tokens.tools  # sections go, the tools stay
    with pytest.raises(BudgetExceededError) as info:
        builtins.compile(GPT, ctx, budget=native.tokens.tools)
    assert info.value.report["tools"] == native.tokens.tools
    assert "native tool definitions" in str(info.value)


def test_anthropic_tools_are_counted_in_anthropic_shape(builtins: Compiler) -> None:
    out = builtins.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"), load_context("full"),
                           count_tokens=True)
    assert out.tokens.tools_format == "anthropic"
    assert out.tokens.tools == count_tokens(out.tools.json_text("anthropic"))
    assert out.tokens.to_dict()["with_tools"] == out.tokens.total + out.tokens.tools
