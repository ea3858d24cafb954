"""How a review is printed (see `promptc._review.diff`): as text on a terminal (per changed
section: the changed lines, unified, with word-level highlighting when colour is on), or as
markdown for a pull request comment (`html.py` makes the self-contained HTML page). The same
change in several snapshot cases (one component edited, every variant using it re-rendered) is
printed once, and named in the others.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

from .format import (Styled, change_block, clean, clean_line, paint, table, use_colour,
                     word_diff)

if TYPE_CHECKING:
    from .._review.diff import CaseReview, Hunk, SectionChange

__all__ = ["render_text", "render_snapshot_text", "render_markdown", "write_sections",
           "hunk_lines", "signed", "prefix_note"]


# --- text ----------------------------------------------------------------------------------------

def signed(n: int) -> str:
    return f"+{n:,}" if n > 0 else f"{n:,}"


def _pairs(lines: Sequence[tuple[str, str]]) -> list[tuple[str, str, str | None]]:
    """(tag, line, the line it replaces or is replaced by) — a run of `-` lines followed by a
    run of `+` lines is paired line by line, for word-level highlighting."""
    out: list[tuple[str, str, str | None]] = []
    i = 0
    while i < len(lines):
        if lines[i][0] != "-":
            out.append((lines[i][0], lines[i][1], None))
            i += 1
            continue
        j, k = change_block(lines, i)
        minus, plus = lines[i:j], lines[j:k]
        for n, (_, text) in enumerate(minus):
            out.append(("-", text, plus[n][1] if n < len(plus) else None))
        for n, (_, text) in enumerate(plus):
            out.append(("+", text, minus[n][1] if n < len(minus) else None))
        i = k
    return out


def _diff_line(tag: str, text: str, other: str | None, colour: bool) -> str:
    if not colour:
        return tag + clean_line(text)
    base = "red" if tag == "-" else "green" if tag == "+" else None
    if base is None:
        return " " + clean_line(text)
    if other is None:
        return paint(tag + clean_line(text), base, sys.stdout)
    old, new = (text, other) if tag == "-" else (other, text)
    runs = word_diff(old, new)[0 if tag == "-" else 1]
    body = "".join(paint(clean_line(t), base + "-word" if changed else base, sys.stdout)
                   for t, changed in runs)
    return paint(tag, base, sys.stdout) + body


def hunk_lines(hunks: Sequence[Hunk], colour: bool) -> list[str]:
    out: list[str] = []
    for h in hunks:
        out.append(paint(h.header, "cyan", sys.stdout) if colour else h.header)
        out.extend(_diff_line(tag, text, other, colour) for tag, text, other in _pairs(h.lines))
    return out


def _section_title(s: SectionChange) -> str:
    cache = f"{s.cache} · " if s.cache else ""
    return f"{clean(s.id)} · {cache}{s.status} · {signed(s.tokens_delta)} tokens"


def prefix_note(case: CaseReview) -> str:
    if case.prefix_moved is None:
        return ""
    tokens = ""
    if case.prefix_tokens and case.prefix_tokens[0] != case.prefix_tokens[1]:
        tokens = f" ({case.prefix_tokens[0]:,} → {case.prefix_tokens[1]:,} tokens)"
    return "moved" + tokens if case.prefix_moved else "unchanged"


def write_sections(out: IO[str], case: CaseReview, lines: int | None, indent: str,
                   seen: dict[Any, str], colour: bool) -> None:
    """Each changed section of a case: a title, then its changed lines (at most `lines`)."""
    first = True
    for s in case.changes:
        if not s.hunks:
            continue
        title = _section_title(s)
        key = s.signature()
        if key in seen:
            out.write(f"{indent}{title}: the same change as in {clean(seen[key])}\n")
            continue
        seen[key] = case.name
        if not first and not indent:
            out.write("\n")
        first = False
        out.write(indent + (paint(title, "bold", sys.stdout) if colour else title) + "\n")
        body = hunk_lines(s.hunks, colour)
        if lines is not None and len(body) > lines:
            more = len(body) - lines
            body = body[:lines] + [f"… {more:,} more line(s) (--lines all shows them; "
                                   "--format html puts them side by side)"]
        for line in body:
            out.write(f"{indent}  {line}\n")


def render_text(out: IO[str], cases: Sequence[CaseReview], lines: int | None,
                seen: dict[Any, str] | None = None) -> None:
    """A two-render diff: the section table, the cached prefix, then the changed lines."""
    colour = use_colour(out)
    seen = {} if seen is None else seen
    for case in cases:
        out.write(f"from {clean(case.before)}\n  to {clean(case.after)}\n\n")
        rows: list[list[Any]] = []
        for s in case.sections:
            colour_of = {"added": "green", "removed": "red", "changed": "yellow"}.get(s.status)
            rows.append([s.id, Styled(s.status, colour_of), s.cache, f"{s.tokens_before:,}",
                         f"{s.tokens_after:,}", signed(s.tokens_delta)])
        rows.append(["total", "", "", f"{case.tokens_before:,}", f"{case.tokens_after:,}",
                     signed(case.tokens_delta)])
        out.write(table(["section", "status", "cache", "tokens", "→ tokens", "delta"], rows,
                        "lllrrr") + "\n\n")
        prefix = prefix_note(case)
        if prefix:
            out.write("cached prefix (the static block): " + paint(
                prefix, "yellow" if case.prefix_moved else "green", out) + "\n")
        if lines != 0 and any(s.hunks for s in case.changes):
            out.write("\n")
            write_sections(out, case, lines, "", seen, colour)


def render_snapshot_text(out: IO[str], cases: Sequence[CaseReview], lines: int | None) -> None:
    """`snapshot --check`: one line per added, removed or changed file, then per changed
    section its changed lines (the same change in several files is printed once)."""
    colour = use_colour(out)
    seen: dict[Any, str] = {}
    for case in cases:
        name = clean(case.name)
        if case.status == "added":
            out.write(paint(f"added:   {name}", "green", out) +
                      " (not in the snapshot folder yet)\n")
        elif case.status == "removed":
            out.write(paint(f"removed: {name}", "red", out) + " (no longer rendered)\n")
        elif case.status == "changed":
            out.write(paint(f"changed: {name}", "yellow", out) +
                      f" ({'; '.join(_change_facts(case))})\n")
            if lines != 0:
                write_sections(out, case, lines, "  ", seen, colour)


def _change_facts(case: CaseReview) -> list[str]:
    """What changed in a file: its sections and tokens (or its tool definitions), and whether
    the cached prefix moved."""
    if case.name.endswith(".json"):  # native tool definitions: no sections, no tokens
        facts = ["tool definitions"]
    else:
        ids = [clean(s.id) for s in case.changes]
        facts = [f"sections: {', '.join(ids)}"] if ids else []
        facts.append(f"{signed(case.tokens_delta)} tokens")
    if case.prefix_moved is not None:
        facts.append("cached prefix " + ("moved" if case.prefix_moved else "unchanged"))
    return facts


# --- markdown ------------------------------------------------------------------------------------

def _md(text: str) -> str:
    """Text for markdown prose or a table cell: escaped, never interpreted."""
    out = clean(text)
    for ch in "\\`*_[]<>|#":
        out = out.replace(ch, "\\" + ch)
    return out


def _code(text: str) -> str:
    """A name as inline code (safe in a table cell too)."""
    body = clean(text).replace("|", "\\|")
    ticks = "``" if "`" in body else "`"
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


def _fence(lines: Sequence[str]) -> str:
    """A code fence longer than any run of backticks in the block (prompts quote code)."""
    ticks = 3
    for line in lines:
        run = 0
        for ch in line:
            run = run + 1 if ch == "`" else 0
            ticks = max(ticks, run + 1)
    return "`" * ticks


def _md_diff(s: SectionChange, lines: int | None) -> list[str]:
    body = hunk_lines(s.hunks, colour=False)
    if lines is not None and len(body) > lines:
        body = body[:lines] + [f"… {len(body) - lines:,} more line(s)"]
    fence = _fence(body)
    return [fence + "diff", *body, fence, ""]


def render_markdown(cases: Sequence[CaseReview], lines: int | None, title: str) -> str:
    """A review for a pull request comment: a summary, the prompts that changed, then each
    distinct change once as a `diff` block with the prompts it appears in (folded with
    <details> when there are several)."""
    changed = [c for c in cases if c.status != "same"]
    out = [f"### {_md(title)}", ""]
    if not changed:
        out.append(f"No prompt changed ({len(cases)} compared).")
        return "\n".join(out) + "\n"
    out += _md_summary(changed, len(cases))
    out += _md_prompts_table(changed)
    groups = _md_groups(changed)
    fold = len(groups) > 1 or len(changed) > 1
    for s, names in groups.values():
        out += _md_change(s, names, lines, fold)
    return "\n".join(out) + "\n"


def _md_summary(changed: Sequence[CaseReview], compared: int) -> list[str]:
    delta = sum(c.tokens_delta for c in changed)
    moved = sum(bool(c.prefix_moved) for c in changed)
    return [f"**{len(changed)} of {compared} prompt(s) changed** · {signed(delta)} tokens "
            f"in total · cached prefix moved in {moved}", ""]


def _md_prompts_table(changed: Sequence[CaseReview]) -> list[str]:
    """One row per changed prompt (folded away when there are more than ten)."""
    rows = ["| prompt | status | tokens | Δ tokens | cached prefix | sections |",
            "|---|---|---:|---:|---|---|"]
    for c in changed:
        ids = ", ".join(_code(s.id) for s in c.changes)
        rows.append(f"| {_code(c.name)} | {c.status} | {c.tokens_before:,} → "
                    f"{c.tokens_after:,} | {signed(c.tokens_delta)} | "
                    f"{prefix_note(c) or '–'} | {ids} |")
    if len(changed) > 10:
        return [f"<details><summary>The {len(changed)} prompts that changed</summary>", "",
                *rows, "", "</details>", ""]
    return [*rows, ""]


def _md_groups(changed: Sequence[CaseReview]) -> dict[Any, tuple[SectionChange, list[str]]]:
    """Each distinct section change once, with every prompt it appears in."""
    groups: dict[Any, tuple[SectionChange, list[str]]] = {}
    for c in changed:
        for s in c.changes:
            if s.hunks:
                groups.setdefault(s.signature(), (s, []))[1].append(c.name)
    return groups


def _md_change(s: SectionChange, names: Sequence[str], lines: int | None, fold: bool
               ) -> list[str]:
    """One distinct change: its title, where it appears, its diff (folded if `fold`)."""
    head = f"{_code(s.id)} · {s.cache + ' · ' if s.cache else ''}{s.status} · " \
           f"{signed(s.tokens_delta)} tokens"
    where = f"in {_code(names[0])}" if len(names) == 1 else f"in {len(names)} prompts"
    body = [f"**{head}** {where}", "", *_md_prompt_list(names), *_md_diff(s, lines)]
    if not fold:
        return body
    return [f"<details><summary>{_md(s.id)}: {s.status}, {signed(s.tokens_delta)} "
            f"tokens, {where}</summary>", "", *body, "</details>", ""]


def _md_prompt_list(names: Sequence[str]) -> list[str]:
    """`Prompts: a, b and 3 more` when a change appears in several prompts."""
    if len(names) < 2:
        return []
    shown = ", ".join(_code(n) for n in names[:12])
    more = f" and {len(names) - 12} more" if len(names) > 12 else ""
    return [f"Prompts: {shown}{more}", ""]
