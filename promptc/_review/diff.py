"""Section-aware diffs between two renders, or between renders and a snapshot folder.

A review is a list of `CaseReview`s (one per compared pair of prompts), each holding, per section,
its status, cache class, token counts and the changed lines as unified-diff hunks. The command
line prints it as text, markdown or an HTML page; `--json` gets the same data as plain dicts.

Token counts are not additive across section boundaries, so the per-section rows are completed by
a `(template)` row: the joins and template text between sections. The rows then sum exactly to
the total delta, which is counted on the two final texts.

Against a snapshot folder the old side is a file whose header records where each section's
lines are (see `filereview`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._base.errors import ConfigError
from .._base.files import read_text_file
from .._compile.compiler import Compiler
from .._compile.compiled import CompiledPrompt, Section
from .._text.tokens import TokenReport
from .filereview import header_tokens, review_file
from .hunks import (LAYOUT, TEMPLATE, TOOLS, Bar, CaseReview, Hunk, SectionChange, line_hunks,
                    text_lines)
from .snapshot import Matrix, Rendered, check_dir, expected_files

__all__ = ["diff_prompts", "diff_snapshot_dir", "sessions_differ", "review_prompts",
           "review_snapshots", "review_file", "line_hunks", "Hunk", "SectionChange",
           "CaseReview", "Bar", "TEMPLATE", "LAYOUT", "TOOLS"]

# --- two renders ---------------------------------------------------------------------------------

def _side(p: CompiledPrompt) -> dict[str, Any]:
    return {"variant": p.variant.id, "model": f"{p.provider.provider}/{p.provider.model}",
            "tokens": p.tokens.total if p.tokens else None}


def _tokens(p: CompiledPrompt) -> TokenReport:
    if p.tokens is None:
        raise ValueError("diff_prompts needs prompts compiled with count_tokens=True")
    return p.tokens


def _glue(p: CompiledPrompt) -> tuple[str, str]:
    """(the text between sections, the text with each section shown as `{{id}}`)."""
    glue, masked, pos = [], [], 0
    for section, (start, end) in zip(p.sections, p.spans):
        glue.append(p.text[pos:start])
        masked += [p.text[pos:start], "{{" + section.id + "}}"]
        pos = end
    glue.append(p.text[pos:])
    masked.append(p.text[pos:])
    return "".join(glue), "".join(masked)


# a section of a render and its (start, end) in the render's text; None: the render lacks it
_Placed = tuple[Section, tuple[int, int]] | None


def review_prompts(a: CompiledPrompt, b: CompiledPrompt) -> CaseReview:
    """Two renders, section by section (compiled with `count_tokens=True`)."""
    tokens_a, tokens_b = _tokens(a), _tokens(b)
    glue_before = tokens_a.total - sum(s.tokens or 0 for s in a.sections)
    glue_after = tokens_b.total - sum(s.tokens or 0 for s in b.sections)
    rows = (*_section_rows(a, b), _template_row(a, b, glue_before, glue_after))
    return CaseReview(
        name=f"{a.variant.id} → {b.variant.id}" if a.variant.id != b.variant.id else a.variant.id,
        status="same" if a.text == b.text else "changed", before=_label(a), after=_label(b),
        tokens_before=tokens_a.total, tokens_after=tokens_b.total, sections=rows,
        prefix_moved=a.fingerprints["static"] != b.fingerprints["static"],
        prefix_tokens=(a.count_tokens(a.static_prefix), b.count_tokens(b.static_prefix)),
        bar_before=_bar(a, glue_before), bar_after=_bar(b, glue_after))


def _label(p: CompiledPrompt) -> str:
    return f"{p.variant.id} ({p.provider.provider}/{p.provider.model})"


def _section_rows(a: CompiledPrompt, b: CompiledPrompt) -> list[SectionChange]:
    """A row per section of either render: the first's order, then the second's new ones."""
    before = {s.id: (s, span) for s, span in zip(a.sections, a.spans)}
    after = {s.id: (s, span) for s, span in zip(b.sections, b.spans)}
    order = [s.id for s in a.sections] + [s.id for s in b.sections if s.id not in before]
    return [_section_row(sid, (a, before.get(sid)), (b, after.get(sid))) for sid in order]


def _section_row(sid: str, old: tuple[CompiledPrompt, _Placed],
                 new: tuple[CompiledPrompt, _Placed]) -> SectionChange:
    """One section of two renders (either may lack it): its status, cost and changed lines."""
    x, y = old[1], new[1]
    status = _pair_status(x, y)
    hunks: tuple[Hunk, ...] = ()
    if status != "same":
        hunks = line_hunks(_placed_lines(x), _placed_lines(y), _first_line(*old),
                           _first_line(*new))
    pick = y if y is not None else x
    cache = pick[0].cache if pick is not None else ""
    return SectionChange(sid, status, cache, _placed_tokens(x), _placed_tokens(y), hunks)


def _pair_status(x: _Placed, y: _Placed) -> str:
    if x is None:
        return "added"
    if y is None:
        return "removed"
    return "same" if x[0].text == y[0].text else "changed"


def _placed_lines(placed: _Placed) -> list[str]:
    return text_lines(placed[0].text) if placed else []


def _placed_tokens(placed: _Placed) -> int:
    return (placed[0].tokens or 0) if placed else 0


def _first_line(p: CompiledPrompt, placed: _Placed) -> int:
    """The section's first line number in the render (0: the render has no such section)."""
    return p.text.count("\n", 0, placed[1][0]) + 1 if placed else 0


def _template_row(a: CompiledPrompt, b: CompiledPrompt, glue_before: int,
                  glue_after: int) -> SectionChange:
    """The template's own text and the joins between sections, as one row."""
    (glue_a, masked_a), (glue_b, masked_b) = _glue(a), _glue(b)
    hunks = line_hunks(text_lines(masked_a), text_lines(masked_b)) if glue_a != glue_b else ()
    same = glue_a == glue_b and glue_before == glue_after
    return SectionChange(TEMPLATE, "same" if same else "changed", "", glue_before, glue_after,
                         hunks)


def _bar(p: CompiledPrompt, glue: int) -> Bar:
    return tuple((s.id, s.tokens or 0, s.cache) for s in p.sections) + ((TEMPLATE, glue, ""),)


def diff_prompts(a: CompiledPrompt, b: CompiledPrompt,
                 review: CaseReview | None = None) -> dict[str, Any]:
    """Per-section status with char and token deltas and the changed lines, the static prefix,
    and totals (the prompts must be compiled with `count_tokens=True`)."""
    review = review or review_prompts(a, b)
    chars_a = {s.id: len(s.text) for s in a.sections}
    chars_b = {s.id: len(s.text) for s in b.sections}
    glue_a, glue_b = len(a.text) - sum(chars_a.values()), len(b.text) - sum(chars_b.values())
    rows = []
    for s in review.sections:
        rows.append({"id": s.id, "status": s.status, "cache": s.cache,
                     "chars_before": glue_a if s.id == TEMPLATE else chars_a.get(s.id, 0),
                     "chars_after": glue_b if s.id == TEMPLATE else chars_b.get(s.id, 0),
                     "tokens_before": s.tokens_before, "tokens_after": s.tokens_after,
                     "tokens_delta": s.tokens_delta, "diff": s.unified()})
    prefix = review.prefix_tokens or (0, 0)
    return {
        "from": _side(a), "to": _side(b), "sections": rows,
        "chars_before": len(a.text), "chars_after": len(b.text),
        "tokens_before": review.tokens_before, "tokens_after": review.tokens_after,
        "tokens_delta": review.tokens_delta,
        "static_prefix": {
            "changed": bool(review.prefix_moved),
            "fingerprint_before": a.fingerprints["static"],
            "fingerprint_after": b.fingerprints["static"],
            "tokens_before": prefix[0],
            "tokens_after": prefix[1],
        },
    }


def review_snapshots(folder: Path, expected: Mapping[str, Rendered]) -> list[CaseReview]:
    """Every file of a snapshot folder against the new renders (unchanged ones included)."""
    diff = check_dir(folder, expected)
    changed = {name for name, _d, _s in diff.changed}
    out = []
    for name in sorted(set(expected) | set(diff.removed)):
        new = expected.get(name)
        if name in diff.added or name in diff.blocked:  # blocked: a user's file stands there
            out.append(review_file(name, None, new))
        elif new is None:
            out.append(review_file(name, read_text_file(folder / name, ConfigError), None))
        elif name in changed:
            out.append(review_file(name, diff.old[name], new))
        else:
            t, per = header_tokens(new.text)
            caches = dict(zip((s[0] for s in new.sections), new.caches))
            bar = tuple((sid, n, caches.get(sid, "")) for sid, n in per.items())
            out.append(CaseReview(name[:-3] if name.endswith(".md") else name, "same", name,
                                  name, t, t, (), False if new.static_chars else None,
                                  None, bar, bar))
    return out


def diff_snapshot_dir(compiler: Compiler, matrix: Matrix, folder: Path,
                      progress: Callable[[int, str], None] | None = None,
                      reviews: list[CaseReview] | None = None) -> dict[str, Any]:
    """The working tree's renders against a snapshot folder, per case and per section."""
    if reviews is None:
        expected = expected_files(compiler, matrix, strict=False, progress=progress)
        reviews = review_snapshots(folder, expected)
    return snapshot_report(folder, reviews)


def snapshot_report(folder: Path, reviews: Sequence[CaseReview]) -> dict[str, Any]:
    """The JSON form of a snapshot review (`promptc diff --snapshots DIR --json`)."""
    cases = [_case_report(r) for r in reviews if not r.name.endswith(".json")]
    return {"folder": str(folder), "cases": cases,
            "changed": sum(c["status"] != "same" for c in cases),
            "files": [{"file": r.name, "status": r.status} for r in reviews
                      if r.name.endswith(".json")]}


def _case_report(r: CaseReview) -> dict[str, Any]:
    changes = r.changes
    return {"case": r.name, "status": r.status, "tokens_before": r.tokens_before,
            "tokens_after": r.tokens_after, "tokens_delta": r.tokens_delta,
            "sections": [s.id for s in changes if r.status == "changed"],
            "section_tokens": {s.id: s.tokens_delta for s in changes if s.tokens_delta},
            "static_prefix_moved": r.prefix_moved,
            "changes": [s.to_dict() for s in changes]}


def sessions_differ(compiler: Compiler, provider: Any, first: Any, second: Any,
                    variant: str | None = None) -> dict[str, Any]:
    """Render two sessions (e.g. two cwds, dates or OSes) and report which sections differ.

    The metamorphic check behind "the static part depends on neither cwd nor date": sections
    listed under `differ` must all be session- or request-class.
    """
    a = compiler.compile(provider, first, variant=variant, strict=False)
    b = compiler.compile(provider, second, variant=variant, strict=False)
    sa = {s.id: s for s in a.sections}
    sb = {s.id: s for s in b.sections}
    differ = sorted(i for i in sa.keys() | sb.keys()
                    if (sa[i].text if i in sa else None) != (sb[i].text if i in sb else None))
    return {"differ": differ,
            "classes": {i: (sa[i] if i in sa else sb[i]).cache for i in differ},
            "static_prefix_equal": a.static_prefix == b.static_prefix,
            "fingerprints": (a.fingerprints, b.fingerprints)}
