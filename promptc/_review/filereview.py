"""A snapshot file against its new render, section by section.

A snapshot's header records each section's tokens (`sections:`) and, since the review learnt to
file every line under its own section, where its lines are and its cache class (`spans:`,
body-relative line ranges). With both sides' spans the review is exact: each section's old
lines against its new lines, and the text outside every section (the template's headers and
separators) as one `(layout)` row whose tokens are the rest of the total, so the rows add up.

A header without spans (a folder written by an older promptc) falls back to aligning the old
body with the new render line by line; that guesses at boundaries, and says so in the docs:
update the folder once to make its reviews exact.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence

from .hunks import (LAYOUT, TOOLS, Bar, CaseReview, Hunk, SectionChange, line_hunks,
                    text_lines)
from .snapshot import Rendered, _header_len

__all__ = ["review_file", "header_tokens", "header_spans", "Spans"]

Spans = dict[str, tuple[int, int, str]]  # section id -> (first, last body line, cache class)

_SECTIONS_LINE = re.compile(r"^sections: (.*)$", re.M)
_TOKENS_LINE = re.compile(r"^tokens: (\d+)", re.M)
_SPANS_LINE = re.compile(r"^spans: (.*)$", re.M)
_SPAN = re.compile(r"([^=\s]+)=(\d+)-(\d+)/([a-z]*)")


def _head(text: str) -> str:
    return text[:text.find("-->")] if text.startswith("<!-- promptc snapshot") else ""


def header_tokens(text: str) -> tuple[int, dict[str, int]]:
    """(total, {section: tokens}) from a snapshot file's header (zeros when it has none)."""
    head = _head(text)
    total = _TOKENS_LINE.search(head)
    sections = _SECTIONS_LINE.search(head)
    per = {}
    if sections:
        for item in sections.group(1).split():
            sid, _, n = item.partition("=")
            per[sid] = int(n) if n.isdigit() else 0
    return (int(total.group(1)) if total else 0), per


def header_spans(text: str, body_lines: int) -> Spans | None:
    """{section: (first, last, cache)} from the header's `spans:` line, or None when it has
    none or it does not describe this body (ranges out of order, overlapping or past its end:
    a hand-edited header is not trusted)."""
    line = _SPANS_LINE.search(_head(text))
    if line is None:
        return None
    spans: Spans = {}
    last_end = 0
    for item in line.group(1).split():
        m = _SPAN.fullmatch(item)
        if m is None:
            return None
        first, last = int(m.group(2)), int(m.group(3))
        if not last_end < first <= last <= body_lines or m.group(1) in spans:
            return None
        spans[m.group(1)] = (first, last, m.group(4))
        last_end = last
    return spans


def review_file(name: str, old: str | None, new: Rendered | None) -> CaseReview:
    """A snapshot file against its new render: per section, the changed lines, token deltas
    from the headers, and whether the cached prefix moved."""
    if old is None or new is None:
        return _whole_file(name, old, new)
    label = name[:-3] if name.endswith(".md") else name
    old_lines, new_lines = text_lines(old), text_lines(new.text)
    old_skip, new_skip = _header_len(old_lines), _header_len(new_lines)
    old_body, new_body = old_lines[old_skip:], new_lines[new_skip:]
    if not new.sections:  # tool JSON: the whole file is one piece
        hunks = line_hunks(old_body, new_body, old_skip + 1, new_skip + 1)
        status = "changed" if hunks else "same"
        return CaseReview(label, status, name, name, 0, 0,
                          (SectionChange(TOOLS, status, "", 0, 0, hunks),))
    new_spans = {sid: (first - new_skip, last - new_skip, cache)
                 for (sid, first, last), cache in zip(new.sections, new.caches)}
    old_spans = header_spans(old, len(old_body))
    if old_spans is None:
        rows = _aligned_rows(old, old_body, new_body, old_skip, new_skip, new)
        old_caches = {sid: s[2] for sid, s in new_spans.items()}
    else:
        rows = _exact_rows(old, new.text, (old_body, new_body), (old_skip, new_skip),
                           (old_spans, new_spans))
        old_caches = {sid: s[2] for sid, s in old_spans.items()}
    return _case(label, name, old, new, rows, (old_body, new_body), old_caches)


def _case(label: str, name: str, old: str, new: Rendered, rows: list[SectionChange],
          bodies: tuple[list[str], list[str]], old_caches: Mapping[str, str]) -> CaseReview:
    t_old, per_old = header_tokens(old)
    t_new, per_new = header_tokens(new.text)
    caches = dict(zip((s[0] for s in new.sections), new.caches))
    moved, prefix = _prefix_moved(bodies, new, (per_old, per_new), (old_caches, caches))
    glue = next((row for row in rows if row.id == LAYOUT), None)
    bar_old = _bar(per_old, old_caches, glue.tokens_before if glue else 0)
    bar_new = _bar(per_new, caches, glue.tokens_after if glue else 0)
    status = "changed" if old != new.text else "same"
    return CaseReview(label, status, name, name, t_old, t_new, tuple(rows), moved, prefix,
                      bar_old, bar_new)


def _bar(tokens: Mapping[str, int], caches: Mapping[str, str], glue: int) -> Bar:
    """A prompt's sections for the HTML bar, then the layout's tokens (when it has any)."""
    tail = ((LAYOUT, glue, ""),) if glue > 0 else ()
    return tuple((sid, n, caches.get(sid, "")) for sid, n in tokens.items()) + tail


def _whole_file(name: str, old: str | None, new: Rendered | None) -> CaseReview:
    """A file added or removed: its sections are named, but a whole prompt as one block of
    changed lines would bury the review."""
    label = name[:-3] if name.endswith(".md") else name
    if new is not None:
        return _added_file(label, name, new)
    return _removed_file(label, name, old or "")


def _added_file(label: str, name: str, new: Rendered) -> CaseReview:
    total, per = header_tokens(new.text)
    caches = dict(zip((s[0] for s in new.sections), new.caches))
    sections = tuple(SectionChange(sid, "added", caches.get(sid, ""), 0, n)
                     for sid, n in per.items())
    bar = tuple((s.id, s.tokens_after, s.cache) for s in sections)
    return CaseReview(label, "added", "(none)", name, 0, total, sections, bar_after=bar)


def _removed_file(label: str, name: str, old: str) -> CaseReview:
    total, per = header_tokens(old)
    spans = header_spans(old, len(text_lines(old))) or {}
    sections = tuple(SectionChange(sid, "removed", spans[sid][2] if sid in spans else "", n, 0)
                     for sid, n in per.items())
    bar = tuple((s.id, s.tokens_before, s.cache) for s in sections)
    return CaseReview(label, "removed", name, "(none)", total, 0, sections, bar_before=bar)


# --- both sides know their sections --------------------------------------------------------------

def _merged_order(old_ids: Sequence[str], new_ids: Sequence[str]) -> list[str]:
    """The new sections in order, each section that is gone placed after the one it followed."""
    order = list(new_ids)
    for idx, sid in enumerate(old_ids):
        if sid in order:
            continue
        prev = next((s for s in reversed(old_ids[:idx]) if s in order), None)
        order.insert(order.index(prev) + 1 if prev is not None else 0, sid)
    return order


def _exact_rows(old: str, new: str, bodies: tuple[list[str], list[str]],
                skips: tuple[int, int], spans: tuple[Spans, Spans]) -> list[SectionChange]:
    tokens = (header_tokens(old), header_tokens(new))
    rows = [_section_row(sid, bodies, skips, spans, (tokens[0][1], tokens[1][1]))
            for sid in _merged_order(list(spans[0]), list(spans[1]))]
    rows.append(_layout_row(bodies, skips, spans, tokens))
    return rows


def _section_row(sid: str, bodies: tuple[list[str], list[str]], skips: tuple[int, int],
                 spans: tuple[Spans, Spans], per: tuple[Mapping[str, int], Mapping[str, int]]
                 ) -> SectionChange:
    """One section: its old lines against its new lines (either side may be missing)."""
    o, n = spans[0].get(sid), spans[1].get(sid)
    hunks = line_hunks(_span_lines(bodies[0], o), _span_lines(bodies[1], n),
                       _first_line(skips[0], o), _first_line(skips[1], n))
    tb, ta = per[0].get(sid, 0), per[1].get(sid, 0)
    status = _status(o is not None, n is not None, bool(hunks) or tb != ta)
    return SectionChange(sid, status, (n or o or (0, 0, ""))[2], tb, ta, hunks)


def _span_lines(body: list[str], span: tuple[int, int, str] | None) -> list[str]:
    return body[span[0] - 1:span[1]] if span else []


def _first_line(skip: int, span: tuple[int, int, str] | None) -> int:
    return skip + span[0] if span else 0  # 0: the side has no such section


def _status(before: bool, after: bool, differs: bool) -> str:
    if not before:
        return "added"
    if not after:
        return "removed"
    return "changed" if differs else "same"


def _layout_row(bodies: tuple[list[str], list[str]], skips: tuple[int, int],
                spans: tuple[Spans, Spans],
                tokens: tuple[tuple[int, dict[str, int]], tuple[int, dict[str, int]]]
                ) -> SectionChange:
    """The text outside every section, and the tokens the sections' own do not account for
    (so the rows add up to the total)."""
    masked = [_masked(body, side, skip) for body, side, skip in zip(bodies, spans, skips)]
    hunks = line_hunks([m[0] for m in masked[0]], [m[0] for m in masked[1]],
                       numbers=([m[1] for m in masked[0]], [m[1] for m in masked[1]]))
    glue = [total - sum(per.values()) for total, per in tokens]
    status = "changed" if hunks or glue[0] != glue[1] else "same"
    return SectionChange(LAYOUT, status, "", glue[0], glue[1], hunks)


def _masked(body: Sequence[str], spans: Spans, skip: int) -> list[tuple[str, int]]:
    """The body's lines outside every section, each section shown as one `{{id}}` line, with
    each line's number in the file."""
    starts = {first: (sid, last) for sid, (first, last, _c) in spans.items()}
    out: list[tuple[str, int]] = []
    i = 1
    while i <= len(body):
        if i in starts:
            sid, last = starts[i]
            out.append(("{{" + sid + "}}", skip + i))
            i = last + 1
            continue
        out.append((body[i - 1], skip + i))
        i += 1
    return out


# --- an old header without spans: align the bodies -----------------------------------------------

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


def _new_spans(new: Rendered, new_skip: int, n_body: int) -> list[tuple[str | None, int, int]]:
    """The new body as consecutive spans: each section's lines, and the glue between them
    (section id or None for glue, start, end; 0-based, end exclusive)."""
    spans: list[tuple[str | None, int, int]] = []
    pos = 0
    for sid, first, last in sorted(new.sections, key=lambda s: s[1]):
        a, b = max(first - 1 - new_skip, pos), last - new_skip
        if a > pos:
            spans.append((None, pos, a))
        if b > a:
            spans.append((sid, a, b))
            pos = b
    if pos < n_body:
        spans.append((None, pos, n_body))
    return spans


def _aligned_rows(old: str, old_body: list[str], new_body: list[str], old_skip: int,
                  new_skip: int, new: Rendered) -> list[SectionChange]:
    """Rows for an old header that does not say where its sections are: each run of changed
    lines belongs to the new section it falls in; lines deleted at a section's edge belong to
    that section, never to the blank glue."""
    _t_old, per_old = header_tokens(old)
    _t_new, per_new = header_tokens(new.text)
    caches = dict(zip((s[0] for s in new.sections), new.caches))
    alignment = _Alignment((old_body, new_body), (old_skip, new_skip), new, list(per_old),
                           {sid for sid in per_old if sid not in caches})
    hunks_of = alignment.hunks_by_owner()
    order = _merged_order(alignment.old_order,
                          [s[0] for s in sorted(new.sections, key=lambda s: s[1])])
    if LAYOUT in hunks_of:
        order.append(LAYOUT)
    rows = []
    for sid in order:
        hunks = tuple(hunks_of.get(sid, ()))
        tb, ta = per_old.get(sid, 0), per_new.get(sid, 0)
        status = _aligned_status(sid, per_old, caches, bool(hunks) or tb != ta)
        rows.append(SectionChange(sid, status, caches.get(sid, ""), tb, ta, hunks))
    return rows


def _aligned_status(sid: str, before: Mapping[str, int], caches: Mapping[str, str],
                    differs: bool) -> str:
    """A row's status when only the new side's sections are known (`caches`)."""
    if sid == LAYOUT:
        return "changed" if differs else "same"
    if sid not in caches:
        return "removed"
    if sid not in before:
        return "added"
    return "changed" if differs else "same"


class _Alignment:
    """The old body aligned with the new one line by line, cut where the new sections are."""

    def __init__(self, bodies: tuple[list[str], list[str]], skips: tuple[int, int],
                 new: Rendered, old_order: list[str], gone: set[str]) -> None:
        self.old_body, self.new_body = bodies
        self.old_skip, self.new_skip = skips
        self.old_order = old_order  # the old header's sections, in order
        self.gone = gone  # those of them the new render no longer has
        self.spans = _new_spans(new, self.new_skip, len(self.new_body))
        self.ops = difflib.SequenceMatcher(None, self.old_body, self.new_body,
                                           autojunk=False).get_opcodes()

    def hunks_by_owner(self) -> dict[str, list[Hunk]]:
        """Each new span's changed lines, filed under its section (glue: see `_glue_owner`)."""
        hunks_of: dict[str, list[Hunk]] = {}
        before = self._deletions_before()
        for k, (span_id, a, b) in enumerate(self.spans):
            hunks = self._span_hunks(k, a, b, before)
            if hunks:
                owner = span_id if span_id is not None else self._glue_owner(k)
                hunks_of.setdefault(owner, []).extend(hunks)
        return hunks_of

    def _span_hunks(self, k: int, a: int, b: int, before: list[bool]) -> tuple[Hunk, ...]:
        """New lines a..b against the old lines aligned with them."""
        n_new, n_old = len(self.new_body), len(self.old_body)
        start = _old_index(self.ops, a, n_new, n_old, before[k]) if k else 0
        end = _old_index(self.ops, b, n_new, n_old, before[k + 1])
        start = min(start, end)
        return line_hunks(self.old_body[start:end], self.new_body[a:b],
                          self.old_skip + start + 1, self.new_skip + a + 1)

    def _deletions_before(self) -> list[bool]:
        """Per boundary between spans: whether lines deleted on it join the span before it.
        They join the section beside them, never the glue, unless a section that is gone sat
        there: then the glue holds them (and is reported as that section)."""
        before: list[bool] = [False]
        for (p_id, _, _), (n_id, _, _) in zip(self.spans, self.spans[1:]):
            if p_id is not None:
                before.append(not self._neighbour_gone(p_id, 1) or n_id is not None)
            else:
                before.append(n_id is not None and self._neighbour_gone(n_id, -1))
        before.append(True)
        return before

    def _neighbour_gone(self, sid: str, step: int) -> bool:
        i = self.old_order.index(sid) + step if sid in self.old_order else -1
        return 0 <= i < len(self.old_order) and self.old_order[i] in self.gone

    def _glue_owner(self, k: int) -> str:
        """Whose is glue that changed: a gone section that sat between its neighbours, else
        the layout."""
        prev = next((s for s, _, _ in reversed(self.spans[:k]) if s is not None), None)
        after = next((s for s, _, _ in self.spans[k + 1:] if s is not None), None)
        order = self.old_order
        lo = order.index(prev) + 1 if prev in order else 0
        hi = order.index(after) if after in order else len(order)
        here = [s for s in order[lo:hi] if s in self.gone]
        return here[0] if here else LAYOUT


# --- the cached prefix ---------------------------------------------------------------------------

def _prefix_moved(bodies: tuple[list[str], list[str]], new: Rendered,
                  tokens: tuple[Mapping[str, int], Mapping[str, int]],
                  caches: tuple[Mapping[str, str], Mapping[str, str]]
                  ) -> tuple[bool | None, tuple[int, int] | None]:
    """Whether the static (cached) prefix differs, and its sections' tokens before and after.

    Exact for every change that adds, removes or edits text in a static section. A section
    whose class is not known (gone, from a header without spans): when one sat right after the
    old static run, the prefix counts as moved (it may have been static) and the token numbers
    are left out."""
    if not new.static_chars:
        return None, None

    def leading_static(ids: Sequence[str], classes: Mapping[str, str]) -> tuple[list[str], bool]:
        out: list[str] = []
        for sid in ids:
            if classes.get(sid) != "static":
                return out, sid not in classes
            out.append(sid)
        return out, False
    per_old, per_new = tokens
    static_new, _ = leading_static(list(per_new), caches[1])
    static_old, unknown = leading_static(list(per_old), caches[0])
    counts = (sum(per_old.get(s, 0) for s in static_old),
              sum(per_new.get(s, 0) for s in static_new))
    prefix = "\n".join(bodies[1])[:new.static_chars]
    moved = (unknown or static_old != static_new or counts[0] != counts[1]
             or not "\n".join(bodies[0]).startswith(prefix))
    return moved, None if unknown else counts
