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

from typing import Literal

import attrs

from .._base.errors import BudgetExceededError
from .._model.diagnostics import Reporter
from .._model.provider import encoding_for
from .._model.request import Request
from .._text.tokens import TokenCounter
from .base import Assembled
from .plan import Plan
from .compiled import Dropped, Section
from .steps import Form

# Sections that hold the user's own instructions: dropping one is a warning, not an info.
USER_SECTIONS = frozenset({"user_instructions"})

__all__ = ["fit_budget"]

Cut = Literal["shortened", "dropped"]


@attrs.frozen(eq=False)
class _Attempt:
    laid: Assembled
    total: int  # tokens: the text's and the native tool definitions'


class _Search:
    """One budget search over a bound request: the forms and drops chosen so far."""

    def __init__(self, plan: Plan, request: Request, counter: TokenCounter, budget: int,
                 tools_tokens: int, reserved: int = 0) -> None:
        self.plan = plan
        self.request = request
        self.counter = counter
        self.budget = budget
        self.tools_tokens = tools_tokens
        self.reserved = reserved
        self.encoding = encoding_for(plan.provider)[0]
        self.forms: dict[str, Form] = {}
        self.dropped: set[str] = set()
        self.log: list[Dropped] = []
        self.order = {step.cid: step.index for step in plan.steps}
        self.steps = {step.cid: step for step in plan.steps}

    def attempt(self, report: Reporter) -> _Attempt:
        plan = self.plan
        sections = plan.sections(self.request, report, self.forms, frozenset(self.dropped))
        laid = plan.assemble(sections, self.request)
        cuts = [span[0] for _section, span in laid.placed]
        return _Attempt(laid, self.counter.total(laid.text, cuts, self.encoding) +
                        self.tools_tokens + self.reserved)

    def candidates(self, current: _Attempt) -> list[Section]:
        """The placed sections, least important first (later in the order first)."""
        order = self.order
        return sorted((s for s, _span in current.laid.placed if s.id in order),
                      key=lambda s: (s.priority, -order[s.id]))

    def cut(self, current: _Attempt, action: Cut) -> _Attempt:
        """Shorten (or drop) the sections that allow it, least important first, one at a
        time, until the attempt fits."""
        quiet = Reporter(False)  # later attempts repeat what the first one reported
        for section in self.candidates(current):
            if current.total <= self.budget:
                break
            if not self._allows(section, action):
                continue
            before = current.total
            if action == "shortened":
                self.forms[section.id] = "short"
            else:
                self.dropped.add(section.id)
            current = self.attempt(quiet)
            why = "used the shorter form" if action == "shortened" else \
                f"optional, priority {section.priority}"
            self.log.append(Dropped(section.id, section.priority, before - current.total,
                                    f"over budget ({before} > {self.budget}): {why}", action))
        return current

    def _allows(self, section: Section, action: Cut) -> bool:
        if action == "shortened":
            return self.steps[section.id].short is not None
        return not section.required

    def refusal(self, current: _Attempt) -> BudgetExceededError:
        """What the smallest attempt still needs, part by part."""
        present = [s for s, _span in current.laid.placed]
        counts = {s.id: self.counter.count(s.text, self.encoding) for s in present}
        rows = [{"id": s.id, "tokens": counts[s.id], "required": s.required,
                 "priority": s.priority, "form": s.form} for s in present]
        required = sum(counts[s.id] for s in present if s.required)
        parts = [f"{required} in required sections"]
        if self.tools_tokens:
            parts.append(f"{self.tools_tokens} of native tool definitions")
        if self.reserved:
            parts.append(f"{self.reserved} for the split's note and the details' tags")
        rest = current.total - required - self.tools_tokens - self.reserved
        if rest > 0:
            parts.append(f"{rest} in the template's own text")
        return BudgetExceededError(
            f"the prompt needs at least {current.total} tokens ({', '.join(parts)}); the "
            f"budget is {self.budget}",
            report={"sections": rows, "total": current.total, "budget": self.budget,
                    "tools": self.tools_tokens, "placement": self.reserved,
                    "dropped": [d.to_dict() for d in self.log]},
            field="budget")


def _report_cuts(log: list[Dropped], report: Reporter) -> None:
    for d in log:
        if d.id in USER_SECTIONS and d.action != "shortened":  # the user's own words: loud
            report("warning", "budget-dropped-user-rules",
                   f"section {d.id!r} (the user's rules files) dropped to fit the budget "
                   f"(saved {d.tokens} tokens): {d.reason}; the model does not see them", d.id)
            continue
        report("info", "budget-" + ("shortened" if d.action == "shortened" else "dropped"),
               f"section {d.id!r} {d.action} (priority {d.priority}, saved {d.tokens} tokens): "
               f"{d.reason}", d.id)


def fit_budget(plan: Plan, request: Request, counter: TokenCounter, budget: int,
               report: Reporter, tools_tokens: int = 0, reserved: int = 0) -> Assembled:
    """Sections that fit `budget` tokens together with `tools_tokens` of native tool JSON and
    `reserved` more that are sent with them (the split's note and tags), or
    BudgetExceededError."""
    if budget < 0:
        raise BudgetExceededError(f"budget must be ≥ 0, got {budget}", field="budget")
    search = _Search(plan, request, counter, budget, tools_tokens, reserved)
    current = search.attempt(report)
    # 1. shorter forms, least important first; 2. optional sections dropped, likewise
    current = search.cut(search.cut(current, "shortened"), "dropped")
    if current.total > budget:
        raise search.refusal(current)
    _report_cuts(search.log, report)
    return attrs.evolve(current.laid, dropped=tuple(search.log))
