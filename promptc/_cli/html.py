"""A prompt review as one self-contained HTML page (`--format html`), for CI to publish.

Per case: the status, the token delta, whether the cached prefix moved, a bar of the prompt's
sections before and after (width by tokens, colour by cache class, changed sections marked),
then each changed section side by side with word-level highlighting. No script, no external
resource: the page is one file that opens anywhere, also from a CI artifact. Every value from a
prompt, a file name or a section id is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from itertools import zip_longest
from typing import TYPE_CHECKING, Any

from .format import change_block, clean, clean_line, word_diff

if TYPE_CHECKING:
    from .._review.diff import Bar, CaseReview, Hunk, SectionChange

__all__ = ["render_html"]

_CSS = """
:root { --fg:#1f2328; --muted:#59636e; --bg:#fff; --panel:#f6f8fa; --line:#d1d9e0;
  --del:#ffebe9; --del-w:#ffb3ad; --ins:#dafbe1; --ins-w:#8ce99a; --hunk:#ddf4ff;
  --static:#6cb6ff; --session:#e3b341; --request:#f47067; --other:#c9d1d9; --warn:#bc4c00; }
@media (prefers-color-scheme: dark) { :root { --fg:#e6edf3; --muted:#9198a1; --bg:#0d1117;
  --panel:#151b23; --line:#3d444d; --del:#3c1618; --del-w:#8e1519; --ins:#12261e;
  --ins-w:#1a7f37; --hunk:#0c2d6b; --other:#59636e; --warn:#f0883e; } }
* { box-sizing: border-box; }
body { margin:0; padding:24px 32px 48px; font:14px/1.45 system-ui,-apple-system,"Segoe UI",
  sans-serif; color:var(--fg); background:var(--bg); }
h1 { font-size:20px; margin:0 0 4px; } h2 { font-size:16px; margin:0; }
h3 { font-size:14px; margin:18px 0 6px; font-weight:600; }
code, .sbs td { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:12px; }
.muted { color:var(--muted); }
.summary { margin:4px 0 12px; }
.legend span { display:inline-block; margin-right:14px; }
.sw { display:inline-block; width:11px; height:11px; border-radius:2px; margin-right:4px;
  vertical-align:-1px; }
table.overview { border-collapse:collapse; margin:10px 0 18px; }
table.overview th, table.overview td { text-align:left; padding:3px 12px 3px 0;
  border-bottom:1px solid var(--line); }
table.overview td.num { text-align:right; font-variant-numeric:tabular-nums; }
.case { border:1px solid var(--line); border-radius:8px; margin:18px 0; background:var(--bg); }
.case > summary { cursor:pointer; list-style:none; padding:10px 14px; background:var(--panel);
  border-radius:8px; }
.case[open] > summary { border-bottom:1px solid var(--line); border-radius:8px 8px 0 0; }
.case .body { padding:6px 14px 14px; }
.badge { display:inline-block; font-size:12px; padding:0 7px; border-radius:10px;
  border:1px solid var(--line); margin-left:6px; font-weight:500; }
.badge.changed { border-color:#d4a72c; } .badge.added { border-color:#1a7f37; }
.badge.removed { border-color:#cf222e; } .badge.moved { color:var(--warn);
  border-color:var(--warn); }
.pos { color:#cf222e; } .neg { color:#1a7f37; }
.bars { margin:10px 0 4px; }
.barrow { display:flex; align-items:center; gap:10px; margin:3px 0; }
.barrow .label { width:150px; flex:none; font-size:12px; text-align:right;
  font-variant-numeric:tabular-nums; }
.bar { display:flex; height:20px; flex:1 1 auto; }
.seg { height:100%; overflow:hidden; white-space:nowrap; font-size:10px; line-height:20px;
  padding-left:3px; color:#1f2328; border-right:1px solid var(--bg); }
.seg.static { background:var(--static); } .seg.session { background:var(--session); }
.seg.request { background:var(--request); } .seg.other { background:var(--other); }
.seg.touched { outline:2px solid var(--fg); outline-offset:-2px; }
.sbs { width:100%; border-collapse:collapse; table-layout:fixed; border:1px solid var(--line); }
.sbs td { vertical-align:top; padding:1px 6px; white-space:pre-wrap; word-break:break-word; }
.sbs td.n { width:48px; text-align:right; color:var(--muted); user-select:none; }
.sbs tr.hunk td { background:var(--hunk); color:var(--muted); }
.sbs td.del { background:var(--del); } .sbs td.ins { background:var(--ins); }
.sbs td.del del { background:var(--del-w); text-decoration:none; border-radius:2px; }
.sbs td.ins ins { background:var(--ins-w); text-decoration:none; border-radius:2px; }
.sbs td.empty { background:var(--panel); }
.same { margin:6px 0; }
details.sections { margin:4px 0 8px; } details.sections > summary { cursor:pointer; }
table.keys { border-collapse:collapse; margin:4px 0; font-size:12px; }
table.keys th, table.keys td { text-align:left; padding:1px 10px 1px 0; }
table.keys td.num { text-align:right; font-variant-numeric:tabular-nums; }
.legend .sw { height:11px; width:11px; padding:0; border:0; }
footer { margin-top:28px; font-size:12px; }
"""

_CACHE = ("static", "session", "request")


def _e(text: Any) -> str:
    return html.escape(clean(text), quote=True)


def _signed(n: int) -> str:
    return f"+{n:,}" if n > 0 else f"{n:,}"


def _delta(n: int) -> str:
    cls = "pos" if n > 0 else "neg" if n < 0 else "muted"
    return f'<span class="{cls}">{_signed(n)} tokens</span>'


def _bar(bar: Bar, scale: int, touched: set[str]) -> str:
    """One bar: a segment per section, width by tokens, colour by cache class. A segment is
    labelled only where its name fits (about 1% of the width per character); the key below
    the bars names every section."""
    segs = []
    for sid, tokens, cache in bar:
        if tokens <= 0:
            continue
        width = 100.0 * tokens / scale
        cls = cache if cache in _CACHE else "other"
        mark = " touched" if sid in touched else ""
        tip = f"{sid}: {tokens:,} tokens" + (f" ({cache})" if cache else "")
        label = _e(sid) if width >= _LABEL_WIDTH * len(clean(sid)) else ""
        segs.append(f'<span class="seg {cls}{mark}" style="width:{width:.3f}%" '
                    f'title="{_e(tip)}">{label}</span>')
    return "".join(segs)


_LABEL_WIDTH = 1.0  # percent of the bar per label character, so a label is never cut


def _key(case: CaseReview, touched: set[str]) -> str:
    """Every section of both bars in prompt order: its colour, tokens before and after."""
    before = {sid: (n, c) for sid, n, c in case.bar_before}
    after = {sid: (n, c) for sid, n, c in case.bar_after}
    ids = list(before) + [sid for sid in after if sid not in before]
    rows = ['<table class="keys"><tr><th></th><th>section</th><th>before</th><th>after</th>'
            "<th>Δ</th></tr>"]
    rows += [_key_row(sid, before.get(sid), after.get(sid), sid in touched) for sid in ids]
    rows.append("</table>")
    return "\n".join(rows)


def _key_row(sid: str, old: tuple[int, str] | None, new: tuple[int, str] | None,
             touched: bool) -> str:
    cache = (new or old or (0, ""))[1]
    cls = (cache if cache in _CACHE else "other") + (" touched" if touched else "")
    delta = (new[0] if new else 0) - (old[0] if old else 0)
    label = f"<code>{_e(sid)}</code>" + (f" · {_e(cache)}" if cache else "")
    return (f'<tr><td><i class="sw seg {cls}"></i></td><td class="key">{label}</td>'
            f'<td class="num">{_count(old)}</td><td class="num">{_count(new)}</td>'
            f'<td class="num">{_delta(delta) if delta else ""}</td></tr>')


def _count(entry: tuple[int, str] | None) -> str:
    return "–" if entry is None else f"{entry[0]:,}"


def _words(text: str, other: str | None, tag: str) -> str:
    if other is None:
        return html.escape(clean_line(text))
    old, new = (text, other) if tag == "-" else (other, text)
    runs = word_diff(old, new)[0 if tag == "-" else 1]
    wrap = "del" if tag == "-" else "ins"
    return "".join(f"<{wrap}>{html.escape(clean_line(t))}</{wrap}>" if changed else
                   html.escape(clean_line(t)) for t, changed in runs)


def _side_by_side(hunks: Sequence[Hunk]) -> str:
    rows = ['<table class="sbs"><colgroup><col style="width:48px"><col>'
            '<col style="width:48px"><col></colgroup>']
    for h in hunks:
        rows.append(f'<tr class="hunk"><td colspan="4">{_e(h.header)}</td></tr>')
        rows.extend(_hunk_rows(h))
    rows.append("</table>")
    return "\n".join(rows)


def _hunk_rows(h: Hunk) -> list[str]:
    """A hunk's lines side by side: context on both sides, each run of removals beside the
    additions that replace it, line numbers counted on each side."""
    rows: list[str] = []
    old_no, new_no = h.old_start, h.new_start
    lines = h.lines
    i = 0
    while i < len(lines):
        tag, text = lines[i]
        if tag == " ":
            cell = html.escape(clean_line(text))
            rows.append(f'<tr><td class="n">{old_no}</td><td>{cell}</td>'
                        f'<td class="n">{new_no}</td><td>{cell}</td></tr>')
            old_no, new_no, i = old_no + 1, new_no + 1, i + 1
            continue
        j, k = change_block(lines, i)
        for left, right in zip_longest([t for _, t in lines[i:j]], [t for _, t in lines[j:k]]):
            rows.append(f"<tr>{_side(left, right, old_no, '-')}{_side(right, left, new_no, '+')}"
                        "</tr>")
            old_no += left is not None
            new_no += right is not None
        i = k
    return rows


def _side(text: str | None, other: str | None, number: int, tag: str) -> str:
    """One side of a changed row: the line (its changed words marked), or an empty cell."""
    if text is None:
        return '<td class="n"></td><td class="empty"></td>'
    kind = "del" if tag == "-" else "ins"
    return f'<td class="n">{number}</td><td class="{kind}">{_words(text, other, tag)}</td>'


def _prefix_badge(case: CaseReview) -> str:
    if case.prefix_moved:
        tokens = ""
        if case.prefix_tokens and case.prefix_tokens[0] != case.prefix_tokens[1]:
            tokens = f" {case.prefix_tokens[0]:,} → {case.prefix_tokens[1]:,}"
        return f'<span class="badge moved">cached prefix moved{tokens}</span>'
    if case.prefix_moved is False:
        return '<span class="badge">cached prefix unchanged</span>'
    return ""


def _case(case: CaseReview, index: int, seen: dict[Any, tuple[str, str]], open_: bool) -> str:
    out = [f'<details class="case" id="case-{index}"{" open" if open_ else ""}><summary>',
           f'<h2><code>{_e(case.name)}</code><span class="badge {_e(case.status)}">'
           f'{_e(case.status)}</span> {_prefix_badge(case)} &nbsp;{_delta(case.tokens_delta)}'
           '</h2>', '</summary><div class="body">']
    if case.before != case.after:
        out.append(f'<p class="muted">{_e(case.before)} → {_e(case.after)}</p>')
    out += _case_bars(case)
    for s in case.changes:
        out += _section_change(s, case, f"case-{index}", seen)
    out.append("</div></details>")
    return "\n".join(out)


def _case_bars(case: CaseReview) -> list[str]:
    """The before and after bars of a case's sections, and the table of every section."""
    if not (case.bar_before or case.bar_after):
        return []
    touched = {s.id for s in case.changes}
    scale = max(case.tokens_before, case.tokens_after,
                sum(t for _, t, _ in case.bar_before), sum(t for _, t, _ in case.bar_after), 1)
    out = ['<div class="bars">']
    for label, bar, total in (("before", case.bar_before, case.tokens_before),
                              ("after", case.bar_after, case.tokens_after)):
        out.append(f'<div class="barrow"><span class="label">{label} · {total:,} tokens'
                   f'</span><div class="bar">{_bar(bar, scale, touched)}</div></div>')
    out.append("</div>")
    out.append(f"<details class=\"sections\"><summary class=\"muted\">every section's "
               f"tokens</summary>{_key(case, touched)}</details>")
    return out


def _section_change(s: SectionChange, case: CaseReview, anchor: str,
                    seen: dict[Any, tuple[str, str]]) -> list[str]:
    """A changed section: its title, then its lines side by side (or, for a change shown in an
    earlier case, a link there)."""
    cache = (f' <span class="badge">{_e(s.cache)}</span>' if s.cache else "")
    out = [f'<h3><code>{_e(s.id)}</code>{cache} <span class="muted">{_e(s.status)}'
           f'</span> · {s.tokens_before:,} → {s.tokens_after:,} · '
           f'{_delta(s.tokens_delta)}</h3>']
    if not s.hunks:
        return out
    key = s.signature()
    if key in seen:
        name, first = seen[key]
        out.append(f'<p class="same muted">The same change as in '
                   f'<a href="#{first}">{_e(name)}</a>.</p>')
        return out
    seen[key] = (case.name, anchor)
    out.append(_side_by_side(s.hunks))
    return out


def render_html(cases: Sequence[CaseReview], title: str) -> str:
    """The whole page. Unchanged cases are counted, not shown."""
    changed = [c for c in cases if c.status != "same"]
    out = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{_e(title)}</h1>", *_summary(changed, len(cases))]
    seen: dict[Any, tuple[str, str]] = {}
    for i, c in enumerate(changed):
        out.append(_case(c, i, seen, open_=i < 10))
    out.append('<footer class="muted">Made by <code>promptc</code>. Token counts per section '
               "come from the renders (and from the snapshot headers); the cached prefix is "
               "the static block a provider can cache.</footer></body></html>")
    return "\n".join(out) + "\n"


def _summary(changed: Sequence[CaseReview], compared: int) -> list[str]:
    """What changed in total, the colour key, and (for several prompts) an overview table."""
    if not changed:
        return [f'<p class="summary">No prompt changed ({compared} compared).</p>']
    delta = sum(c.tokens_delta for c in changed)
    moved = sum(bool(c.prefix_moved) for c in changed)
    out = [f'<p class="summary"><b>{len(changed)} of {compared} prompt(s) '
           f'changed</b> · {_delta(delta)} in total · cached prefix moved in {moved}</p>',
           '<p class="legend muted">'
           + "".join(f'<span><i class="sw seg {c}"></i>{c}</span>' for c in _CACHE)
           + '<span><i class="sw seg other"></i>template and layout</span>'
           + '<span><i class="sw seg other touched"></i>changed section</span></p>']
    if len(changed) > 1:
        out += _overview(changed)
    return out


def _overview(changed: Sequence[CaseReview]) -> list[str]:
    out = ['<table class="overview"><tr><th>prompt</th><th>status</th>'
           '<th>tokens</th><th>Δ</th><th>cached prefix</th><th>sections</th></tr>']
    for i, c in enumerate(changed):
        prefix = "moved" if c.prefix_moved else "unchanged" if c.prefix_moved is False else "–"
        ids = ", ".join(_e(s.id) for s in c.changes)
        out.append(f'<tr><td><a href="#case-{i}"><code>{_e(c.name)}</code></a></td>'
                   f"<td>{_e(c.status)}</td><td class=\"num\">{c.tokens_before:,} → "
                   f'{c.tokens_after:,}</td><td class="num">{_delta(c.tokens_delta)}'
                   f"</td><td>{prefix}</td><td>{ids}</td></tr>")
    out.append("</table>")
    return out
