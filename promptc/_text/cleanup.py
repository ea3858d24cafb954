"""Post-processing: drop empty sections, dangling headers and separators, collapse blank runs.

It works on rendered pieces (literal template text and opaque atoms), line by line, in linear time:
- only literal template text is ever classified as a header, separator or blank line;
- atoms (inserted values, finished sections) are content, verbatim, whatever they contain;
- fenced code blocks and SEARCH/REPLACE diff blocks in template text are content, verbatim;
- the diff marker `=======` is never a separator.
The result is idempotent: cleaning clean text changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any


__all__ = ["clean", "clean_pieces", "clean_text", "is_separator"]

_HEADER = re.compile(r"#{1,6}(?=[ \t])")
_SEARCH = re.compile(r"-{3,} ?SEARCH\s*$")
_REPLACE = re.compile(r"\+{3,} ?REPLACE\s*$")

_BLANK, _SEP, _HEAD, _CONTENT = 0, 1, 2, 3


def is_separator(line: str) -> bool:
    """A section separator: a line of three or more `=`, except the 7-wide diff marker."""
    s = line.strip()
    return len(s) >= 3 and len(s) != 7 and s.count("=") == len(s)


def _lines(pieces: Iterable[Any]) -> list[list[Any]]:
    """Split pieces into lines; each line is a list of str parts and present atoms."""
    lines: list[list[Any]] = [[]]
    for piece in pieces:
        if piece.__class__ is str:
            if "\n" in piece:
                chunks = piece.split("\n")
                if chunks[0]:
                    lines[-1].append(chunks[0])
                for chunk in chunks[1:]:
                    lines.append([chunk] if chunk else [])
            elif piece:
                lines[-1].append(piece)
        else:
            text = piece.text
            if text and not text.isspace():
                lines[-1].append(piece)
    return lines


def _classify(lines: list[list[Any]]) -> list[tuple[int, int, list[Any]]]:
    """(kind, header level, parts) per line."""
    items: list[tuple[int, int, list[Any]]] = []
    fence: str | None = None
    in_diff = False
    for parts in lines:
        literal_only = all(p.__class__ is str for p in parts)
        first = parts[0] if parts and parts[0].__class__ is str else ""
        if fence is not None:
            if literal_only and first.strip().startswith(fence) and \
                    first.strip().strip(fence[0]) == "":
                fence = None
            items.append((_CONTENT, 0, parts))
            continue
        if in_diff:
            if literal_only and _REPLACE.match(first.strip()):
                in_diff = False
            items.append((_CONTENT, 0, parts))
            continue
        stripped = first.lstrip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            run = len(stripped) - len(stripped.lstrip(marker[0]))
            fence = marker[0] * run
            items.append((_CONTENT, 0, parts))
            continue
        if literal_only:
            text = "".join(parts)
            if not text or text.isspace():
                items.append((_BLANK, 0, parts))
                continue
            if _SEARCH.match(text.strip()):
                in_diff = True
                items.append((_CONTENT, 0, parts))
                continue
            if is_separator(text):
                items.append((_SEP, 0, parts))
                continue
        m = _HEADER.match(first)
        if m:
            items.append((_HEAD, m.end(), parts))
            continue
        items.append((_CONTENT, 0, parts))
    return items


def _drop_dangling_headers(items: list[tuple[int, int, list[Any]]]) -> list[bool]:
    """Backward pass: a header with no content before the next boundary of its level goes."""
    keep = [True] * len(items)
    has = [False] * 7  # has[level]: content seen (going backwards) since a boundary for `level`
    for idx in range(len(items) - 1, -1, -1):
        kind, level, _ = items[idx]
        if kind == _CONTENT:
            has = [True] * 7
        elif kind == _SEP:
            has = [False] * 7
        elif kind == _HEAD:
            if not has[level]:
                keep[idx] = False
                continue
            for lv in range(level, 7):
                has[lv] = False
            for lv in range(1, level):
                has[lv] = True
    return keep


def _render_line(parts: list[Any], out: list[Any]) -> None:
    for p in parts:
        out.append(p)


def clean_pieces(pieces: Iterable[Any]) -> list[Any]:
    """Clean rendered pieces; return pieces (str and the surviving atoms), joined by newlines."""
    items = _classify(_lines(pieces))
    keep = _drop_dangling_headers(items)
    out: list[Any] = []
    seen_content = False
    glue_blank_before = False
    glue_sep = False
    glue_blank_after = False
    for idx, (kind, _level, parts) in enumerate(items):
        if not keep[idx]:
            continue
        if kind == _BLANK:
            if glue_sep:
                glue_blank_after = True
            else:
                glue_blank_before = True
            continue
        if kind == _SEP:
            if glue_sep:
                glue_blank_after = False  # blanks between two separators collapse away
            glue_sep = True
            sep_text = "".join(parts).strip()
            continue
        if seen_content:
            if glue_sep:
                if glue_blank_before:
                    out.append("\n")
                out.append("\n" + sep_text)
                out.append("\n\n" if glue_blank_after else "\n")
            else:
                out.append("\n\n" if glue_blank_before else "\n")
        seen_content = True
        glue_blank_before = glue_sep = glue_blank_after = False
        _render_line(parts, out)
    return out


def clean(pieces: Iterable[Any]) -> str:
    """Clean rendered pieces into final text."""
    return "".join(p if p.__class__ is str else p.text for p in clean_pieces(pieces))


def clean_text(text: str) -> str:
    """Clean plain template text (no atoms): used for static text and by tests."""
    return clean([text])
