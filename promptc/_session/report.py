"""A replayed session for people: the request table, the summary, and the Markdown for a PR
comment (the CLI prints the same table and summary as text; `to_dict` is the JSON)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .result import Gate, RequestResult, SessionReport
from .billing import MARKED, rules_for

__all__ = ["HEADERS", "ALIGN", "request_rows", "summary", "notes", "markdown"]

HEADERS = ("#", "session", "request", "model", "input", "read", "write", "uncached", "cost",
           "break")
ALIGN = "rrllrrrrrl"


def _usd(value: float | None) -> str:
    return "n/a" if value is None else f"${value:.4f}"


def _break_cell(r: RequestResult) -> str:
    if r.rejected:
        return f"REJECTED: {r.rejected}"
    if r.brk is None:
        return ""
    b = r.brk
    where = f"{b.where} ({b.cache})" if b.cache else b.where
    return f"{'STATIC-CLASS BREAK: ' if b.static else ''}{where}: {b.cause}"


def request_rows(report: SessionReport) -> list[list[str]]:
    return [[str(r.index), str(r.session), r.label, r.model, f"{r.input:,}",
             f"{r.cache_read:,}", f"{r.cache_write:,}", f"{r.uncached:,}", _usd(r.cost),
             _break_cell(r)] for r in report.requests]


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "0.0%"


def summary(report: SessionReport, gates: Sequence[Gate]) -> list[str]:
    """The lines under the table: what was replayed, the totals, the cost, the gates."""
    s, t = report.script, report.totals
    sources = sorted({f"{p.source}, {p.date}" for p in report.prices})
    head = f"{s.title or s.source}: {s.provider} {s.model}, placement {report.dynamic}"
    targets = [(s.provider, s.model), *((r.provider, r.model) for r in report.requests)]
    if any(rules_for(p, m) in MARKED for p, m in targets):
        head += f", {report.breakpoints} promptc + {s.client_markers} client cache markers"
    if report.script.ttl != "5m" and "cache markers" in head:
        head += f" ({report.script.ttl} lifetime on promptc's)"
    lines = [f"{head}; {t.requests} requests in {t.sessions} session(s)",
             f"input {t.input:,} tokens: {_share(t.cache_read, t.input)} read from the cache, "
             f"{_share(t.cache_write, t.input)} written to it, "
             f"{_share(t.uncached, t.input)} uncached",
             f"cost {_usd(t.cost)} (input at cache-read, cache-write and input prices"
             + (f", {t.output:,} output tokens" if t.output else "")
             + f"; prices: {'; '.join(sources) or 'none in the price table'})",
             f"breaks: {t.breaks} ({t.static_breaks} inside the static class)"]
    floor = report.conversation_floor
    if floor is not None and t.cost:
        share = report.prompt_share or 0.0
        lines.append(f"the conversation's own floor {_usd(floor)} (its cost with a prompt that "
                     f"never changes); the prompt's share above it {_usd(share)} "
                     f"({share / t.cost:.1%} of the session)")
    return lines + [_gate_line(g) for g in gates]


def _gate_line(g: Gate) -> str:
    bound = "≥" if g.name == "min-cached-share" else "≤"
    return f"gate {g.name} {bound} {g.limit}: {'ok' if g.ok else 'FAILED'} ({g.value})"


def notes(report: SessionReport) -> list[str]:
    """Per-request notes (a marker under the minimum, a prompt too short to cache)."""
    return [f"#{r.index}: {note}" for r in report.requests for note in r.notes]


_MD_UNSAFE = re.compile(r"[|\\`*_<>\[\]]")


def _md(text: str) -> str:
    """A table cell: Markdown's own characters escaped, one line."""
    return _MD_UNSAFE.sub(lambda m: "\\" + m.group(), " ".join(text.split()))


def markdown(report: SessionReport, gates: Sequence[Gate]) -> str:
    """A PR comment: the summary as a list, the table, the notes."""
    lines = summary(report, gates)
    out = [f"**promptc session** — {_md(lines[0])}", ""]
    out += [f"- {_md(line)}" for line in lines[1:]]
    out += ["", "| " + " | ".join(HEADERS) + " |",
            "|" + "|".join("---:" if a == "r" else "---" for a in ALIGN) + "|"]
    out += ["| " + " | ".join(_md(c) for c in row) + " |" for row in request_rows(report)]
    extra = notes(report)
    if extra:
        out += ["", *(f"- {_md(n)}" for n in extra)]
    return "\n".join(out) + "\n"
