"""What a token budget did to a prompt, as the command line shows it: a sentence, a table of
the sections it kept, shortened or dropped (on stderr), and the same as JSON; and the exit-3
report when the required sections cannot fit."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from .._base.errors import BudgetExceededError
from .._compile.compiled import CompiledPrompt
from .args import print_json
from .format import Styled, bound, clean, table

__all__ = ["budget_rows", "budget_table", "budget_summary", "budget_failure", "report_budget",
           "report_budget_failure"]


def budget_rows(present: Sequence[dict[str, Any]], dropped: Sequence[dict[str, Any]]
                ) -> list[dict[str, Any]]:
    """One row per section a budget touched or kept: what is left (in prompt order), then
    what was dropped (in the order it went)."""
    saved: dict[str, int] = {}
    for d in dropped:
        saved[d["id"]] = saved.get(d["id"], 0) + d["tokens"]
    rows = [{"id": s["id"], "status": "shortened" if s.get("form") == "short" else "kept",
             "required": bool(s.get("required")), "priority": s.get("priority"),
             "tokens": s.get("tokens") or 0, "saved": saved.get(s["id"], 0)} for s in present]
    gone = {d["id"]: d for d in dropped if d["action"] == "dropped"}
    rows += [{"id": sid, "status": "dropped", "required": False, "priority": d["priority"],
              "tokens": 0, "saved": saved[sid]} for sid, d in gone.items()]
    return rows


def budget_table(rows: Sequence[dict[str, Any]]) -> str:
    colour = {"dropped": "red", "shortened": "yellow"}
    return table(["section", "status", "priority", "tokens", "saved"],
                 [[r["id"], Styled(r["status"] + (" (required)" if r["required"] else ""),
                                   colour.get(r["status"])),
                   r["priority"], r["tokens"] if r["status"] != "dropped" else "",
                   r["saved"] or ""] for r in rows], "llrrr", stream=sys.stderr)


def _names(ids: Sequence[str], most: int = 6) -> str:
    shown = ", ".join(clean(i) for i in ids[:most])
    return shown + (f" and {len(ids) - most} more" if len(ids) > most else "")


def budget_summary(prompt: CompiledPrompt) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """(the sentence, the rows, the JSON report) for a prompt that a budget changed."""
    after, tools = (prompt.tokens.with_tools, prompt.tokens.tools) if prompt.tokens is not None \
        else (0, 0)
    before = after + sum(d.tokens for d in prompt.dropped)
    rows = budget_rows([s.to_dict() for s in prompt.sections],
                       [d.to_dict() for d in prompt.dropped])
    sentence = (f"the prompt needed {before:,} tokens, over the budget of {prompt.budget:,}: "
                f"{_what_it_did(prompt, rows)}; it now has {after:,}"
                f"{f' ({tools:,} of them native tool definitions)' if tools else ''}.")
    report = {"budget": prompt.budget, "tokens_before": before, "tokens_after": after,
              "sections": rows}
    return sentence, rows, report


def _what_it_did(prompt: CompiledPrompt, rows: Sequence[dict[str, Any]]) -> str:
    """`shortened 2 section(s) and dropped 1 (rules)`."""
    shortened = list(dict.fromkeys(d.id for d in prompt.dropped if d.action == "shortened"))
    dropped = [r["id"] for r in rows if r["status"] == "dropped"]
    did = []
    if shortened:
        did.append(f"shortened {len(shortened)} section(s)")
    if dropped:
        did.append(f"dropped {len(dropped)} ({_names(dropped)})")
    return " and ".join(did)


def budget_failure(exc: BudgetExceededError) -> tuple[str, list[dict[str, Any]]]:
    """(the sentence, the rows) for a budget the required sections cannot meet."""
    report = exc.report if isinstance(exc.report, dict) else None
    if report is None:
        return bound(clean(exc.message)), []
    rows = budget_rows(report.get("sections", []), report.get("dropped", []))
    required = [r for r in rows if r["required"]]
    need = sum(r["tokens"] for r in required)
    total = report.get("total", 0)
    tools = report.get("tools", 0)
    split = report.get("placement", 0)
    rest = ""
    if tools:
        rest += f", {tools:,} of native tool definitions"
    if split:
        rest += f", {split:,} for the split's note and the details' tags"
    if total > need + tools + split:
        rest += f", {total - need - tools - split:,} outside any section"
    sentence = (f"the prompt cannot fit the budget of {report.get('budget', 0):,} tokens: with "
                f"every shorter form used and every optional section dropped it still needs "
                f"{total:,}: {need:,} in the required sections "
                f"({_names([r['id'] for r in required])}){rest}.")
    return sentence, rows


def report_budget(prompt: CompiledPrompt) -> None:
    """On stderr, what the budget shortened or dropped (nothing when it changed nothing)."""
    if not prompt.dropped:
        return
    sentence, rows, _ = budget_summary(prompt)
    sys.stderr.write(f"promptc: budget: {sentence}\n{budget_table(rows)}\n")


def report_budget_failure(exc: BudgetExceededError, args: argparse.Namespace) -> int:
    """A budget the required sections cannot meet: the sentence and the table (JSON too with
    --json); exit 3."""
    sentence, rows = budget_failure(exc)
    if getattr(args, "json", False) or getattr(args, "format", None) == "json":
        report = exc.report if isinstance(exc.report, dict) else {}
        print_json({"error": "budget", "message": sentence, "budget": report.get("budget"),
                    "tokens": report.get("total"), "sections": rows})
        sys.stderr.write(f"promptc: budget: {sentence}\n")
    else:
        sys.stderr.write(f"promptc: budget: {sentence}\n")
        if rows:
            sys.stderr.write(budget_table(rows) + "\n")
    return 3
