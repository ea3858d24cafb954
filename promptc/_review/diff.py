"""Section-aware diffs between two renders, or between renders and a snapshot folder.

Token counts are not additive across section boundaries, so the per-section rows are completed by
a `(template)` row: the joins and template text between sections. The rows then sum exactly to
the total delta, which is counted on the two final texts.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .._compile.compiler import Compiler
from .._compile.result import CompiledPrompt
from .._text.tokens import TokenReport
from .snapshot import Matrix, check_dir, expected_files

__all__ = ["diff_prompts", "diff_snapshot_dir", "sessions_differ"]


def _side(p: CompiledPrompt) -> dict[str, Any]:
    return {"variant": p.variant.id, "model": f"{p.provider.provider}/{p.provider.model}",
            "tokens": p.tokens.total if p.tokens else None}


def _tokens(p: CompiledPrompt) -> TokenReport:
    if p.tokens is None:
        raise ValueError("diff_prompts needs prompts compiled with count_tokens=True")
    return p.tokens


def diff_prompts(a: CompiledPrompt, b: CompiledPrompt) -> dict[str, Any]:
    """Per-section status with char and token deltas, the static prefix, and totals (the
    prompts must be compiled with `count_tokens=True`)."""
    tokens_a, tokens_b = _tokens(a), _tokens(b)
    before = {s.id: s for s in a.sections}
    after = {s.id: s for s in b.sections}
    order = [s.id for s in a.sections] + [s.id for s in b.sections if s.id not in before]
    rows = []
    for sid in order:
        x, y = before.get(sid), after.get(sid)
        status = ("added" if x is None else "removed" if y is None else
                  "same" if x.text == y.text else "changed")
        tb, ta = (x.tokens or 0) if x else 0, (y.tokens or 0) if y else 0
        rows.append({"id": sid, "status": status,
                     "chars_before": len(x.text) if x else 0,
                     "chars_after": len(y.text) if y else 0,
                     "tokens_before": tb, "tokens_after": ta, "tokens_delta": ta - tb})
    glue_before = tokens_a.total - sum(s.tokens or 0 for s in a.sections)
    glue_after = tokens_b.total - sum(s.tokens or 0 for s in b.sections)
    rows.append({"id": "(template)", "status": "same" if glue_before == glue_after else
                 "changed", "chars_before": len(a.text) - sum(len(s.text) for s in a.sections),
                 "chars_after": len(b.text) - sum(len(s.text) for s in b.sections),
                 "tokens_before": glue_before, "tokens_after": glue_after,
                 "tokens_delta": glue_after - glue_before})
    return {
        "from": _side(a), "to": _side(b), "sections": rows,
        "chars_before": len(a.text), "chars_after": len(b.text),
        "tokens_before": tokens_a.total, "tokens_after": tokens_b.total,
        "tokens_delta": tokens_b.total - tokens_a.total,
        "static_prefix": {
            "changed": a.fingerprints["static"] != b.fingerprints["static"],
            "fingerprint_before": a.fingerprints["static"],
            "fingerprint_after": b.fingerprints["static"],
            "tokens_before": a.count_tokens(a.static_prefix),
            "tokens_after": b.count_tokens(b.static_prefix),
        },
    }


_SECTIONS_LINE = re.compile(r"^sections: (.*)$", re.M)
_TOKENS_LINE = re.compile(r"^tokens: (\d+)", re.M)


def _header_tokens(text: str) -> tuple[int, dict[str, int]]:
    total = _TOKENS_LINE.search(text)
    sections = _SECTIONS_LINE.search(text)
    per = {}
    if sections:
        for item in sections.group(1).split():
            sid, _, n = item.partition("=")
            per[sid] = int(n) if n.isdigit() else 0
    return (int(total.group(1)) if total else 0), per


def diff_snapshot_dir(compiler: Compiler, matrix: Matrix, folder: Path) -> dict[str, Any]:
    """The working tree's renders against a snapshot folder, per case and per section."""
    expected = expected_files(compiler, matrix, strict=False)
    diff = check_dir(folder, expected)
    touched = {name: sections for name, _d, sections in diff.changed}
    cases = []
    for name in sorted(set(expected) | set(diff.removed)):
        if not name.endswith(".md"):
            continue
        new = expected.get(name)
        old_path = folder / name
        old_text = old_path.read_text(encoding="utf-8") if old_path.is_file() else ""
        t_old, per_old = _header_tokens(old_text)
        t_new, per_new = _header_tokens(new.text) if new else (0, {})
        status = ("removed" if new is None else "added" if not old_text else
                  "changed" if name in touched else "same")
        cases.append({"case": name[:-3], "status": status, "tokens_before": t_old,
                      "tokens_after": t_new, "tokens_delta": t_new - t_old,
                      "sections": list(touched.get(name, ())),
                      "section_tokens": {sid: per_new.get(sid, 0) - per_old.get(sid, 0)
                                         for sid in dict.fromkeys([*per_old, *per_new])
                                         if per_new.get(sid, 0) != per_old.get(sid, 0)}})
    return {"folder": str(folder), "cases": cases,
            "changed": sum(c["status"] != "same" for c in cases)}


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
