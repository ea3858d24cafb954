"""Token budgets: shorter forms first, then optional sections, lowest priority first.

A budget limits what is sent before any message: the prompt's text, plus the native tool
definitions of a variant that sends them (gpt-4.1 on generic calls tools natively).
"""

from __future__ import annotations

import pytest

from promptc import (BudgetExceededError, Compiler, ProviderInfo, StrictModeError,
                     count_tokens)
from promptc._cli import main
from promptc.testing import make_context

from .conftest import CONTEXTS

GPT = ProviderInfo("openai", "gpt-4.1")


@pytest.fixture(scope="module")
def full_tokens(builtins: Compiler) -> int:
    return builtins.compile(GPT, make_context("full"), count_tokens=True, dynamic="system").tokens.with_tools


@pytest.fixture(scope="module")
def floor_tokens(builtins: Compiler) -> int:
    """The least the full prompt can be: every shorter form, every optional section dropped."""
    with pytest.raises(BudgetExceededError) as info:
        builtins.compile(GPT, make_context("full"), budget=1)
    total: int = info.value.report["total"]
    return total


@pytest.fixture(scope="module")
def tight(full_tokens: int, floor_tokens: int) -> int:
    """A budget halfway between the floor and the whole prompt: some sections must go."""
    assert floor_tokens < full_tokens
    return floor_tokens + (full_tokens - floor_tokens) // 2


def test_a_budget_that_fits_changes_nothing(builtins: Compiler, full_tokens: int) -> None:
    out = builtins.compile(GPT, make_context("full"), budget=full_tokens, dynamic="system")
    assert out.dropped == () and out.tokens.with_tools == full_tokens
    assert out.budget == full_tokens


def test_a_tight_budget_drops_optional_sections_with_a_log(builtins: Compiler,
                                                           tight: int) -> None:
    budget = tight
    out = builtins.compile(GPT, make_context("full"), budget=budget)
    assert out.tokens.with_tools <= budget
    assert out.dropped
    kept = {s.id for s in out.sections}
    for d in out.dropped:
        assert d.tokens > 0 and d.reason
        if d.action == "dropped":
            assert d.id not in kept
    # required sections are all still there
    full = builtins.compile(GPT, make_context("full"))
    assert {s.id for s in full.sections if s.required} <= kept
    # every drop is also a diagnostic (info level: a report, not a failure in strict mode)
    assert {d.source for d in out.diagnostics if d.code.startswith("budget-")} == \
        {d.id for d in out.dropped}
    assert "user_instructions" in kept
    strict = builtins.compile(GPT, make_context("full"), budget=budget, strict=True)
    assert strict.text == out.text


def test_the_users_rules_are_dropped_last_and_never_quietly(builtins: Compiler,
                                                           floor_tokens: int) -> None:
    """At the floor every optional section is gone, the user's rules last of all; that drop
    is a warning (strict mode refuses it), the others are infos."""
    out = builtins.compile(GPT, make_context("full"), budget=floor_tokens)
    dropped = [d.id for d in out.dropped if d.action == "dropped"]
    assert dropped[-1] == "user_instructions"
    [warning] = [d for d in out.diagnostics if d.level == "warning"]
    assert warning.code == "budget-dropped-user-rules" and warning.source == "user_instructions"
    with pytest.raises(StrictModeError) as info:
        builtins.compile(GPT, make_context("full"), budget=floor_tokens, strict=True)
    assert "the user's rules files" in str(info.value)


def test_what_documents_a_tool_or_guards_the_model_is_never_dropped(
        builtins: Compiler, floor_tokens: int) -> None:
    """The required core (role, safety, the mode rule, the tool-call format) and every section
    that documents offered tools survive any budget that can be met."""
    out = builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False),
                           make_context("full"), budget=10**6)
    floor = builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False),
                             make_context("full"), budget=_floor(builtins, False))
    kept = {s.id for s in floor.sections}
    assert {"agent_role", "safety", "act_vs_plan_mode", "tool_use", "tools", "session_tools",
            "editing_files", "mcp_servers", "skills", "task_progress"} <= kept
    assert {s.id for s in out.sections} - kept  # and something optional did go


def _floor(builtins: Compiler, native: bool) -> int:
    with pytest.raises(BudgetExceededError) as info:
        builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=native),
                         make_context("full"), budget=1)
    total: int = info.value.report["total"]
    return total


def test_lowest_priority_goes_first(builtins: Compiler, tight: int) -> None:
    out = builtins.compile(GPT, make_context("full"), budget=tight)
    dropped = [d for d in out.dropped if d.action == "dropped"]
    assert [d.priority for d in dropped] == sorted(d.priority for d in dropped)
    shortened = [d for d in out.dropped if d.action == "shortened"]
    assert out.dropped[:len(shortened)] == tuple(shortened)  # shorter forms are tried first


def test_required_sections_alone_over_budget_raise(builtins: Compiler) -> None:
    with pytest.raises(BudgetExceededError) as info:
        builtins.compile(GPT, make_context("full"), budget=500)
    report = info.value.report
    assert report["budget"] == 500 and report["total"] > 500
    assert all(row["required"] for row in report["sections"])
    assert isinstance(info.value, ValueError)


def test_cli_budget_exit_codes(capsys: pytest.CaptureFixture[str], tight: int) -> None:
    ctx = str(CONTEXTS / "full.json")
    args = ["render", "--builtins-only", "--provider", "openai", "--model", "gpt-4.1",
            "--context", ctx, "--format", "json"]
    assert main([*args, "--budget", str(tight)]) == 0
    import json
    data = json.loads(capsys.readouterr().out)
    assert data["tokens"]["with_tools"] <= tight and data["dropped"]
    assert main([*args, "--budget", "100"]) == 3
    assert "budget" in capsys.readouterr().err


def test_native_tool_json_counts_against_the_budget(builtins: Compiler) -> None:
    """The same budget means the same for a native and a text request: the native one's tool
    definitions are counted (in the model's encoding), the text one's catalogue is its text."""
    ctx = make_context("full")
    native = builtins.compile(GPT, ctx, count_tokens=True, dynamic="system")
    text = builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False), ctx,
                            count_tokens=True, dynamic="system")
    assert native.tools.mode == "native" and text.tools.mode == "text"
    assert native.tokens.tools == count_tokens(native.tools.json_text("openai")) > 1000
    assert native.tokens.tools_format == "openai"
    assert text.tokens.tools == 0 and text.tokens.with_tools == text.tokens.total
    budget = native.tokens.with_tools - 100  # text + tools fit only once something goes
    out = builtins.compile(GPT, ctx, budget=budget, dynamic="system")
    assert out.dropped and out.tokens.with_tools <= budget
    assert out.tokens.tools == native.tokens.tools  # sections go, the tools stay
    with pytest.raises(BudgetExceededError) as info:
        builtins.compile(GPT, ctx, budget=native.tokens.tools, dynamic="system")
    assert info.value.report["tools"] == native.tokens.tools
    assert "native tool definitions" in str(info.value)


def test_anthropic_tools_are_counted_in_anthropic_shape(builtins: Compiler) -> None:
    out = builtins.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"), make_context("full"),
                           count_tokens=True)
    assert out.tokens.tools_format == "anthropic"
    assert out.tokens.tools == count_tokens(out.tools.json_text("anthropic"))
    assert out.tokens.to_dict()["with_tools"] == out.tokens.total + out.tokens.tools


def test_a_budget_holds_what_the_split_sends_too(builtins: Compiler) -> None:
    """With the split (the default) the note and the details' tags are sent besides the
    prompt's text: a budget that the text and the tools fit exactly is too small for the
    split, which shortens or drops a section to fit, and the refusal names the part."""
    ctx = make_context("full")
    whole = builtins.compile(GPT, ctx, count_tokens=True, dynamic="system")
    assert builtins.compile(GPT, ctx, budget=whole.tokens.with_tools,
                            dynamic="system").dropped == ()
    budget = builtins.compile(GPT, ctx, count_tokens=True).tokens.with_tools  # text + tools
    split = builtins.compile(GPT, ctx, budget=budget)
    assert split.dynamic == "message" and split.dropped
    with pytest.raises(BudgetExceededError) as info:
        builtins.compile(GPT, ctx, budget=split.tokens.tools)
    assert info.value.report["placement"] > 80 and "split's note" in str(info.value)
