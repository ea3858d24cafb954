"""Section-aware diffs between two renders, or between renders and a snapshot folder.

A review is a list of `CaseReview`s (one per compared pair of prompts), each holding, per section,
its status, cache class, token counts and the changed lines as unified-diff hunks. The command
line prints it as text, markdown or an HTML page; `--json` gets the same data as plain dicts.

Token counts are not additive across section boundaries, so the per-section rows are completed by
a `(template)` row: the joins and template text between sections. The rows then sum exactly to
the total delta, which is counted on the two final texts.

Against a snapshot folder the old side is only a file: its sections are found by aligning it
with the new render line by line (each run of changed lines belongs to the new section it falls
in; lines deleted at a section's edge belong to that section, never to the blank glue). Whether
the cached prefix moved is judged from the new render's static prefix and the per-section token
counts in both files' headers.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from .._base.errors import ConfigError
from .._base.files import read_text_file
from .._compile.compiler import Compiler
from .._compile.result import CompiledPrompt
from .._text.tokens import TokenReport
from .snapshot import Matrix, Rendered, _header_len, check_dir, expected_files

__all__ = ["diff_prompts", "diff_snapshot_dir", "sessions_differ", "review_prompts",
           "review_snapshots", "review_file", "line_hunks", "Hunk", "SectionChange",
           "CaseReview", "TEMPLATE", "LAYOUT", "TOOLS"]

TEMPLATE = "(template)"  # the base template's own text and the joins between sections
LAYOUT = "(layout)"      # the same, in a snapshot file (where sections are found by alignment)
TOOLS = "(tool definitions)"  # a snapshot of native tool JSON: one piece
CONTEXT_LINES = 2


@attrs.frozen
class Hunk:
    """One run of changed lines with a little context, as in `diff -u`."""

    old_start: int  # 1-based line numbers in the old and new text
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[tuple[str, str], ...]  # (" " | "-" | "+", line)

    @property
    def header(self) -> str:
        return f"@@ -{self.old_start},{self.old_count} +{self.new_start},{self.new_count} @@"


@attrs.frozen
class SectionChange:
    """One section of a compared pair: what happened to it and what it costs now."""

    id: str
    status: str  # "same" | "changed" | "added" | "removed"
    cache: str   # "static" | "session" | "request"; "" for the template/layout and unknowns
    tokens_before: int
    tokens_after: int
    hunks: tuple[Hunk, ...] = ()

    @property
    def tokens_delta(self) -> int:
        return self.tokens_after - self.tokens_before

    def unified(self) -> str:
        """The section's changed lines as plain unified-diff text."""
        out: list[str] = []
        for h in self.hunks:
            out.append(h.header)
            out.extend(tag + line for tag, line in h.lines)
        return "\n".join(out)

    def signature(self) -> tuple[Any, ...]:
        """What the change is, without where: equal for the same edit in two cases."""
        return (self.id, self.status, self.tokens_delta,
                tuple(h.lines for h in self.hunks))

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "cache": self.cache,
                "tokens_before": self.tokens_before, "tokens_after": self.tokens_after,
                "tokens_delta": self.tokens_delta, "diff": self.unified()}


Bar = tuple[tuple[str, int, str], ...]  # (section id, tokens, cache class) in prompt order


@attrs.frozen
class CaseReview:
    """Two versions of one prompt (two renders, or a snapshot file and its new render)."""

    name: str
    status: str  # "same" | "changed" | "added" | "removed"
    before: str  # what the old side is ("generic (openai/gpt-4.1)", "snapshots/x.md")
    after: str
    tokens_before: int
    tokens_after: int
    sections: tuple[SectionChange, ...]  # every section of either side, in prompt order
    prefix_moved: bool | None = None  # None: not known (a file added or removed, tool JSON)
    prefix_tokens: tuple[int, int] | None = None
    bar_before: Bar = ()
    bar_after: Bar = ()

    @property
    def tokens_delta(self) -> int:
        return self.tokens_after - self.tokens_before

    @property
    def changes(self) -> tuple[SectionChange, ...]:
        return tuple(s for s in self.sections if s.status != "same")


# --- lines and hunks -----------------------------------------------------------------------------

def line_hunks(old: Sequence[str], new: Sequence[str], old_first: int = 1, new_first: int = 1,
               context: int = CONTEXT_LINES) -> tuple[Hunk, ...]:
    """The unified-diff hunks between two lists of lines (numbered from `*_first`)."""
    if list(old) == list(new):
        return ()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    out = []
    for group in matcher.get_grouped_opcodes(context):
        lines: list[tuple[str, str]] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [(" ", line) for line in old[i1:i2]]
            else:
                lines += [("-", line) for line in old[i1:i2]]
                lines += [("+", line) for line in new[j1:j2]]
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(Hunk(old_first + i1, i2 - i1, new_first + j1, j2 - j1, tuple(lines)))
    return tuple(out)


def _lines(text: str) -> list[str]:
    return text.split("\n") if text else []


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


def review_prompts(a: CompiledPrompt, b: CompiledPrompt) -> CaseReview:
    """Two renders, section by section (compiled with `count_tokens=True`)."""
    tokens_a, tokens_b = _tokens(a), _tokens(b)
    before = {s.id: (s, span) for s, span in zip(a.sections, a.spans)}
    after = {s.id: (s, span) for s, span in zip(b.sections, b.spans)}
    order = [s.id for s in a.sections] + [s.id for s in b.sections if s.id not in before]
    rows = []
    for sid in order:
        x, y = before.get(sid), after.get(sid)
        status = ("added" if x is None else "removed" if y is None else
                  "same" if x[0].text == y[0].text else "changed")
        hunks: tuple[Hunk, ...] = ()
        if status != "same":
            old = _lines(x[0].text) if x else []
            new = _lines(y[0].text) if y else []
            old_first = a.text.count("\n", 0, x[1][0]) + 1 if x else 0  # 0: no such side
            new_first = b.text.count("\n", 0, y[1][0]) + 1 if y else 0
            hunks = line_hunks(old, new, old_first, new_first)
        pick = y if y is not None else x
        cache = pick[0].cache if pick is not None else ""
        rows.append(SectionChange(sid, status, cache, (x[0].tokens or 0) if x else 0,
                                  (y[0].tokens or 0) if y else 0, hunks))
    glue_before = tokens_a.total - sum(s.tokens or 0 for s in a.sections)
    glue_after = tokens_b.total - sum(s.tokens or 0 for s in b.sections)
    (glue_a, masked_a), (glue_b, masked_b) = _glue(a), _glue(b)
    hunks = line_hunks(_lines(masked_a), _lines(masked_b)) if glue_a != glue_b else ()
    rows.append(SectionChange(TEMPLATE, "same" if glue_a == glue_b and glue_before == glue_after
                              else "changed", "", glue_before, glue_after, hunks))
    status = "same" if a.text == b.text else "changed"
    moved = a.fingerprints["static"] != b.fingerprints["static"]
    return CaseReview(
        name=f"{a.variant.id} → {b.variant.id}" if a.variant.id != b.variant.id else a.variant.id,
        status=status, before=f"{a.variant.id} ({a.provider.provider}/{a.provider.model})",
        after=f"{b.variant.id} ({b.provider.provider}/{b.provider.model})",
        tokens_before=tokens_a.total, tokens_after=tokens_b.total, sections=tuple(rows),
        prefix_moved=moved,
        prefix_tokens=(a.count_tokens(a.static_prefix), b.count_tokens(b.static_prefix)),
        bar_before=_bar(a, glue_before), bar_after=_bar(b, glue_after))


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


# --- a snapshot folder ---------------------------------------------------------------------------

_SECTIONS_LINE = re.compile(r"^sections: (.*)$", re.M)
_TOKENS_LINE = re.compile(r"^tokens: (\d+)", re.M)


def _header_tokens(text: str) -> tuple[int, dict[str, int]]:
    """(total, {section: tokens}) from a snapshot file's header (zeros when it has none)."""
    head = text[:text.find("-->")] if text.startswith("<!-- promptc snapshot") else ""
    total = _TOKENS_LINE.search(head)
    sections = _SECTIONS_LINE.search(head)
    per = {}
    if sections:
        for item in sections.group(1).split():
            sid, _, n = item.partition("=")
            per[sid] = int(n) if n.isdigit() else 0
    return (int(total.group(1)) if total else 0), per


def _old_index(ops: Sequence[tuple[str, int, int, int, int]], j: int, n_new: int, n_old: int,
               deletions_before: bool) -> int:
    """The old line index that new line boundary `j` aligns with. Lines deleted exactly at `j`
    fall before it when `deletions_before` (they join the span that ends at j), else after."""
    if j >= n_new:
        return n_old
    for tag, i1, i2, j1, j2 in ops:
        if j1 == j2 == j:  # a pure deletion sitting on the boundary
            return i2 if deletions_before else i1
        if j1 <= j < j2:
            if tag == "equal":
                return i1 + (j - j1)
            return i1 if j == j1 else i2  # a replacement cut by a boundary stays in its first span
    return n_old


def review_file(name: str, old: str | None, new: Rendered | None) -> CaseReview:
    """A snapshot file against its new render: per section, the changed lines (found by
    aligning the two), token deltas from the headers, and whether the cached prefix moved."""
    label = name[:-3] if name.endswith(".md") else name
    t_old, per_old = _header_tokens(old) if old is not None else (0, {})
    t_new, per_new = _header_tokens(new.text) if new is not None else (0, {})
    if old is None or new is None:
        # a whole prompt as one added or removed block would bury the review: sections only
        status = "added" if old is None else "removed"
        caches = dict(zip((s[0] for s in new.sections), new.caches)) if new is not None else {}
        sections = tuple(SectionChange(sid, status, caches.get(sid, ""),
                                       n if old is not None else 0, n if old is None else 0)
                         for sid, n in (per_new or per_old).items())
        bar = tuple((s.id, s.tokens_before or s.tokens_after, s.cache) for s in sections)
        return CaseReview(label, status, "(none)" if old is None else name,
                          name if new is not None else "(none)", t_old, t_new, sections,
                          bar_before=bar if old is not None else (),
                          bar_after=bar if new is not None else ())
    old_lines, new_lines = _lines(old), _lines(new.text)
    old_skip, new_skip = _header_len(old_lines), _header_len(new_lines)
    old_body, new_body = old_lines[old_skip:], new_lines[new_skip:]
    if not new.sections:  # tool JSON: the whole file is one piece
        hunks = line_hunks(old_body, new_body, old_skip + 1, new_skip + 1)
        status = "changed" if hunks else "same"
        return CaseReview(label, status, name, name, t_old, t_new,
                          (SectionChange(TOOLS, status, "", 0, 0, hunks),))
    caches = dict(zip((s[0] for s in new.sections), new.caches))
    # the new body as consecutive spans: each section's lines, and the glue between them
    spans: list[tuple[str | None, int, int]] = []  # (section id or None for glue, start, end)
    pos = 0
    for sid, first, last in sorted(new.sections, key=lambda s: s[1]):
        a, b = max(first - 1 - new_skip, pos), last - new_skip
        if a > pos:
            spans.append((None, pos, a))
        if b > a:
            spans.append((sid, a, b))
            pos = b
    if pos < len(new_body):
        spans.append((None, pos, len(new_body)))
    ops = difflib.SequenceMatcher(None, old_body, new_body, autojunk=False).get_opcodes()
    old_order = list(per_old)
    gone = {sid for sid in old_order if sid not in caches}

    def neighbour_gone(sid: str, step: int) -> bool:
        i = old_order.index(sid) + step if sid in old_order else -1
        return 0 <= i < len(old_order) and old_order[i] in gone

    # Lines deleted on a boundary join the section beside it, never the glue, unless a section
    # that is gone sat there: then the glue holds them (and is reported as that section).
    before: list[bool] = [False]
    for (p_id, _, _), (n_id, _, _) in zip(spans, spans[1:]):
        if p_id is not None:
            before.append(not neighbour_gone(p_id, 1) or n_id is not None)
        else:
            before.append(n_id is not None and neighbour_gone(n_id, -1))
    before.append(True)
    hunks_of: dict[str, list[Hunk]] = {}
    for k, (span_id, a, b) in enumerate(spans):
        start = _old_index(ops, a, len(new_body), len(old_body), before[k]) if k else 0
        end = _old_index(ops, b, len(new_body), len(old_body), before[k + 1])
        start = min(start, end)
        hunks = line_hunks(old_body[start:end], new_body[a:b], old_skip + start + 1,
                           new_skip + a + 1)
        if not hunks:
            continue
        owner = span_id
        if owner is None:  # glue that changed: a section that is gone sat here, or the layout
            prev = next((s for s, _, _ in reversed(spans[:k]) if s is not None), None)
            after = next((s for s, _, _ in spans[k + 1:] if s is not None), None)
            lo = old_order.index(prev) + 1 if prev in old_order else 0
            hi = old_order.index(after) if after in old_order else len(old_order)
            here = [s for s in old_order[lo:hi] if s in gone]
            owner = here[0] if here else LAYOUT
        hunks_of.setdefault(owner, []).extend(hunks)
    order = [s[0] for s in sorted(new.sections, key=lambda s: s[1])]
    for sid in old_order:  # sections that are gone, where they used to be
        if sid not in order:
            idx = old_order.index(sid)
            prev = next((s for s in reversed(old_order[:idx]) if s in order), None)
            order.insert(order.index(prev) + 1 if prev is not None else 0, sid)
    if LAYOUT in hunks_of:
        order.append(LAYOUT)
    rows = []
    for sid in order:
        hunks = tuple(hunks_of.get(sid, ()))
        tb, ta = per_old.get(sid, 0), per_new.get(sid, 0)
        status = ("added" if sid not in per_old and sid != LAYOUT and sid in caches else
                  "removed" if sid not in caches and sid != LAYOUT else
                  "changed" if hunks or tb != ta else "same")
        rows.append(SectionChange(sid, status, caches.get(sid, ""), tb, ta, hunks))
    moved, prefix = _prefix_moved(old_body, new_body, new, per_old, per_new)
    status = "changed" if old != new.text else "same"
    bar_old = tuple((sid, n, caches.get(sid, "")) for sid, n in per_old.items())
    bar_new = tuple((sid, n, caches.get(sid, "")) for sid, n in per_new.items())
    return CaseReview(label, status, name, name, t_old, t_new, tuple(rows), moved, prefix,
                      bar_old, bar_new)


def _prefix_moved(old_body: list[str], new_body: list[str], new: Rendered,
                  per_old: Mapping[str, int], per_new: Mapping[str, int]
                  ) -> tuple[bool | None, tuple[int, int] | None]:
    """Whether the static (cached) prefix differs, and its sections' tokens before and after.

    Exact for every change that adds, removes or edits text in a static section. A section
    that is gone has no known class: when one sat right after the old static run, the prefix
    counts as moved (it may have been static) and the token numbers are left out."""
    if not new.static_chars:
        return None, None
    caches = dict(zip((s[0] for s in new.sections), new.caches))

    def leading_static(ids: Sequence[str]) -> tuple[list[str], bool]:
        out: list[str] = []
        for sid in ids:
            if caches.get(sid) != "static":
                return out, sid not in caches
            out.append(sid)
        return out, False
    static_new, _ = leading_static(list(per_new))
    static_old, unknown = leading_static(list(per_old))
    tokens = (sum(per_old.get(s, 0) for s in static_old),
              sum(per_new.get(s, 0) for s in static_new))
    prefix = "\n".join(new_body)[:new.static_chars]
    moved = (unknown or static_old != static_new or tokens[0] != tokens[1]
             or not "\n".join(old_body).startswith(prefix))
    return moved, None if unknown else tokens


def review_snapshots(folder: Path, expected: Mapping[str, Rendered]) -> list[CaseReview]:
    """Every file of a snapshot folder against the new renders (unchanged ones included)."""
    diff = check_dir(folder, expected)
    changed = {name for name, _d, _s in diff.changed}
    out = []
    for name in sorted(set(expected) | set(diff.removed)):
        new = expected.get(name)
        if name in diff.added:
            out.append(review_file(name, None, new))
        elif new is None:
            out.append(review_file(name, read_text_file(folder / name, ConfigError), None))
        elif name in changed:
            out.append(review_file(name, diff.old[name], new))
        else:
            t, per = _header_tokens(new.text)
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
    cases = []
    for r in reviews:
        if r.name.endswith(".json"):
            continue
        changes = r.changes
        cases.append({"case": r.name, "status": r.status, "tokens_before": r.tokens_before,
                      "tokens_after": r.tokens_after, "tokens_delta": r.tokens_delta,
                      "sections": [s.id for s in changes if r.status == "changed"],
                      "section_tokens": {s.id: s.tokens_delta for s in changes
                                         if s.tokens_delta},
                      "static_prefix_moved": r.prefix_moved,
                      "changes": [s.to_dict() for s in changes]})
    return {"folder": str(folder), "cases": cases,
            "changed": sum(c["status"] != "same" for c in cases),
            "files": [{"file": r.name, "status": r.status} for r in reviews
                      if r.name.endswith(".json")]}


def sessions_differ(compiler: Compiler, provider: Any, first: Any, second: Any,
                    variant: str | None = None) -> dict[str, Any]:
    """Render two sessions (e.g. two cwds, dates or OSes) and report which sections differ.

    The metamorphic check behind "the static part depends on neither cwd nor date": sections
    listed under `differ` must all be session- or request-class.
    """
    a = compiler.compile(provider, first, variant=variant)
    b = compiler.compile(provider, second, variant=variant)
    sa = {s.id: s for s in a.sections}
    sb = {s.id: s for s in b.sections}
    differ = sorted(i for i in sa.keys() | sb.keys()
                    if (sa[i].text if i in sa else None) != (sb[i].text if i in sb else None))
    return {"differ": differ,
            "classes": {i: (sa[i] if i in sa else sb[i]).cache for i in differ},
            "static_prefix_equal": a.static_prefix == b.static_prefix,
            "fingerprints": (a.fingerprints, b.fingerprints)}
