"""Token budgets: shorten, then drop optional sections, lowest priority first, until it fits.

A loop over stages 3–4 of the request path (sections, assemble), before anything is wrapped. Each
attempt is counted through the compiler's token memo, cut at section boundaries where counts add
up exactly, so text that did not change between attempts is not tokenized again.

A budget limits what a request sends before any message: the prompt's text plus, for a variant
that sends its tools natively, the tool definitions (`tools_tokens`, counted once: sections come
and go, the tools stay). So a budget means the same for a text variant, whose tool catalogue is
part of its text, and a native one.
"""

from __future__ import annotations

from collections.abc import Mapping

from .._base.errors import BudgetExceededError
from .._model.diagnostics import Reporter
from .._model.provider import encoding_for
from .._model.request import Request
from .._text.tokens import TokenCounter
from .plan import Plan
from .result import Dropped, Section
from .steps import Form

# Sections that hold the user's own instructions: dropping one is a warning, not an info.
USER_SECTIONS = frozenset({"user_instructions"})

__all__ = ["fit_budget"]

Placed = list[tuple[Section, tuple[int, int]]]
Attempt = tuple[list[Section | None], str, Placed, Mapping[str, str], int]


def fit_budget(plan: Plan, request: Request, counter: TokenCounter, budget: int,
               report: Reporter, tools_tokens: int = 0
               ) -> tuple[str, Placed, Mapping[str, str], tuple[Dropped, ...]]:
    """Sections that fit `budget` tokens together with `tools_tokens` of native tool JSON (and
    the text they make), or BudgetExceededError."""
    if budget < 0:
        raise BudgetExceededError(f"budget must be ≥ 0, got {budget}", field="budget")
    encoding, _ = encoding_for(plan.provider)
    forms: dict[str, Form] = {}
    dropped: set[str] = set()
    quiet = Reporter(False)  # later attempts repeat what the first one reported

    def attempt(into: Reporter) -> Attempt:
        sections = plan.sections(request, into, forms, frozenset(dropped))
        text, placed, layers = plan.assemble(sections, request)
        cuts = [span[0] for _section, span in placed]
        return sections, text, placed, layers, counter.total(text, cuts, encoding) + tools_tokens

    current = attempt(report)
    if current[4] <= budget:
        return current[1], current[2], current[3], ()
    order = {step.cid: step.index for step in plan.steps}
    steps = {step.cid: step for step in plan.steps}
    log: list[Dropped] = []

    def candidates() -> list[Section]:
        return sorted((s for s, _span in current[2] if s.id in order),
                      key=lambda s: (s.priority, -order[s.id]))

    for section in candidates():  # 1. shorter forms, least important first
        if steps[section.id].short is None:
            continue
        before = current[4]
        forms[section.id] = "short"
        current = attempt(quiet)
        log.append(Dropped(section.id, section.priority, before - current[4],
                           f"over budget ({before} > {budget}): used the shorter form",
                           "shortened"))
        if current[4] <= budget:
            break
    if current[4] > budget:
        for section in candidates():  # 2. drop optional sections, least important first
            if section.required:
                continue
            before = current[4]
            dropped.add(section.id)
            current = attempt(quiet)
            log.append(Dropped(section.id, section.priority, before - current[4],
                               f"over budget ({before} > {budget}): optional, priority "
                               f"{section.priority}"))
            if current[4] <= budget:
                break
    if current[4] > budget:
        present = [s for s, _span in current[2]]
        counts = {s.id: counter.count(s.text, encoding) for s in present}
        rows = [{"id": s.id, "tokens": counts[s.id], "required": s.required,
                 "priority": s.priority, "form": s.form} for s in present]
        required = sum(counts[s.id] for s in present if s.required)
        parts = [f"{required} in required sections"]
        if tools_tokens:
            parts.append(f"{tools_tokens} of native tool definitions")
        rest = current[4] - required - tools_tokens
        if rest > 0:
            parts.append(f"{rest} in the template's own text")
        raise BudgetExceededError(
            f"the prompt needs at least {current[4]} tokens ({', '.join(parts)}); the budget "
            f"is {budget}",
            report={"sections": rows, "total": current[4], "budget": budget,
                    "tools": tools_tokens, "dropped": [d.to_dict() for d in log]},
            field="budget")
    for d in log:
        if d.id in USER_SECTIONS and d.action != "shortened":  # the user's own words: loud
            report("warning", "budget-dropped-user-rules",
                   f"section {d.id!r} (the user's rules files) dropped to fit the budget "
                   f"(saved {d.tokens} tokens): {d.reason}; the model does not see them", d.id)
            continue
        report("info", "budget-" + ("shortened" if d.action == "shortened" else "dropped"),
               f"section {d.id!r} {d.action} (priority {d.priority}, saved {d.tokens} tokens): "
               f"{d.reason}", d.id)
    return current[1], current[2], current[3], tuple(log)
