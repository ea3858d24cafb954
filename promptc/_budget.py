"""Token budgets: shorten, then drop optional sections, lowest priority first, until it fits."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ._errors import BudgetExceededError
from ._result import CompiledPrompt, Dropped, Reporter, Section
from ._tokens import TokenReport, count_tokens, count_total, encoding_for

if TYPE_CHECKING:
    from ._compiler import Compiler
    from ._context import PromptContext
    from ._plan import Plan

__all__ = ["with_token_counts", "token_report", "fit_budget"]


def with_token_counts(prompt: CompiledPrompt) -> CompiledPrompt:
    """Count each section (memoized by text) and the final text as a whole."""
    if prompt.tokens is not None:
        return prompt
    encoding, estimated = encoding_for(prompt.provider)
    sections = tuple(s if s.tokens is not None else
                     attrs.evolve(s, tokens=count_tokens(s.text, encoding))
                     for s in prompt.sections)
    # Counted on the final text, in pieces cut where counts add up exactly (before sections).
    total = count_total(prompt.text, [a for a, _b in prompt.spans], encoding)
    return attrs.evolve(prompt, sections=sections,
                        tokens=TokenReport(total, encoding, estimated))


def token_report(prompt: CompiledPrompt) -> TokenReport:
    """The token counts of a prompt already counted (by `with_token_counts`, `count_tokens=True`
    or a budget): callers that made sure of that read them without a None check."""
    tokens = prompt.tokens
    if tokens is None:
        raise RuntimeError("internal error: the prompt's tokens were never counted")
    return tokens


def _total(prompt: CompiledPrompt) -> int:
    return token_report(prompt).total


def _rebuild(plan: Plan, prompt: CompiledPrompt, ctx: PromptContext,
             runtime_values: Any, forms: dict[str, str], dropped: set[str],
             report: Reporter) -> CompiledPrompt:
    sections: list[Section | None] = []
    for step in plan.steps:
        if step.cid in dropped:
            sections.append(None)
        else:
            sections.append(plan.section(step, ctx, runtime_values, Reporter(False),
                                         forms.get(step.cid, "full")))
    text, spans, layers = plan.assemble(sections, ctx, runtime_values)
    kept = [(s, sp) for s, sp in zip(sections, spans) if s is not None and sp is not None]
    return attrs.evolve(prompt, text=text, sections=tuple(s for s, _ in kept),
                        spans=tuple(sp for _, sp in kept), placeholders=layers, tokens=None,
                        _memo={})


def fit_budget(compiler: Compiler, plan: Plan, prompt: CompiledPrompt, ctx: PromptContext,
               runtime_values: Any, budget: int, report: Reporter) -> CompiledPrompt:
    """Return a prompt whose counted tokens are ≤ budget, or raise BudgetExceededError."""
    if budget < 0:
        raise BudgetExceededError(f"budget must be ≥ 0, got {budget}", field="budget")
    current = with_token_counts(prompt)
    if _total(current) <= budget:
        return attrs.evolve(current, budget=budget)
    forms: dict[str, str] = {}
    dropped: set[str] = set()
    log: list[Dropped] = []
    order = {step.cid: step.index for step in plan.steps}
    steps = {step.cid: step for step in plan.steps}

    def attempt() -> CompiledPrompt:
        return with_token_counts(_rebuild(plan, prompt, ctx, runtime_values, forms, dropped,
                                          report))

    # 1. shorter forms, least important first
    for section in sorted(current.sections, key=lambda s: (s.priority, -order[s.id])):
        step = steps[section.id]
        if step.short is None:
            continue
        before = _total(current)
        forms[section.id] = "short"
        current = attempt()
        saved = before - _total(current)
        log.append(Dropped(section.id, section.priority, saved,
                           f"over budget ({before} > {budget}): used the shorter form",
                           "shortened"))
        if _total(current) <= budget:
            break
    # 2. drop optional sections, least important first
    if _total(current) > budget:
        for section in sorted(current.sections, key=lambda s: (s.priority, -order[s.id])):
            if section.required:
                continue
            before = _total(current)
            dropped.add(section.id)
            current = attempt()
            log.append(Dropped(section.id, section.priority, before - _total(current),
                               f"over budget ({before} > {budget}): optional, priority "
                               f"{section.priority}"))
            if _total(current) <= budget:
                break
    if _total(current) > budget:
        rows = [{"id": s.id, "tokens": s.tokens, "required": s.required,
                 "priority": s.priority, "form": s.form} for s in current.sections]
        required = sum(s.tokens or 0 for s in current.sections if s.required)
        raise BudgetExceededError(
            f"required sections need {_total(current)} tokens (required sections alone: "
            f"{required}); the budget is {budget}", report={"sections": rows,
                                                          "total": _total(current),
                                                          "budget": budget,
                                                          "dropped": [d.to_dict() for d in log]},
            field="budget")
    for d in log:
        report("info", "budget-" + ("shortened" if d.action == "shortened" else "dropped"),
               f"section {d.id!r} {d.action} (priority {d.priority}, saved {d.tokens} tokens): "
               f"{d.reason}", d.id)
    return attrs.evolve(current, dropped=tuple(log), budget=budget,
                        diagnostics=tuple(report.items))
