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
from collections.abc import Callable, Iterable
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
        if isinstance(piece, str):
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


# The test that ends a verbatim block (a fence or a SEARCH/REPLACE diff), given a line of
# literal text, stripped.
_Closer = Callable[[str], object]


def _fence_closer(fence: str) -> _Closer:
    return lambda text: text.startswith(fence) and text.strip(fence[0]) == ""


def _classify(lines: list[list[Any]]) -> list[tuple[int, int, list[Any]]]:
    """(kind, header level, parts) per line."""
    items: list[tuple[int, int, list[Any]]] = []
    closer: _Closer | None = None  # inside a verbatim block: what ends it
    for parts in lines:
        literal_only = all(isinstance(p, str) for p in parts)
        first = parts[0] if parts and isinstance(parts[0], str) else ""
        if closer is None:
            kind, level, closer = _kind(parts, first, literal_only)
            items.append((kind, level, parts))
            continue
        if literal_only and closer(first.strip()):
            closer = None
        items.append((_CONTENT, 0, parts))
    return items


def _kind(parts: list[Any], first: str, literal_only: bool
          ) -> tuple[int, int, _Closer | None]:
    """A line outside verbatim blocks: (kind, header level, the closer of the verbatim block
    it opens, if it opens one)."""
    stripped = first.lstrip()
    if stripped.startswith(("```", "~~~")):
        marker = stripped[0]
        return _CONTENT, 0, _fence_closer(marker * (len(stripped) - len(stripped.lstrip(marker))))
    if literal_only:
        text = "".join(parts)
        if not text or text.isspace():
            return _BLANK, 0, None
        if _SEARCH.match(text.strip()):
            return _CONTENT, 0, _REPLACE.match
        if is_separator(text):
            return _SEP, 0, None
    m = _HEADER.match(first)
    if m:
        return _HEAD, m.end(), None
    return _CONTENT, 0, None


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


def clean_pieces(pieces: Iterable[Any]) -> list[Any]:
    """Clean rendered pieces; return pieces (str and the surviving atoms), joined by newlines."""
    items = _classify(_lines(pieces))
    keep = _drop_dangling_headers(items)
    out: list[Any] = []
    seen_content = False
    # what stands between the last content line and the next: blank lines before a separator,
    # the separator's text (None: none), blank lines after it
    blank_before = blank_after = False
    sep_text: str | None = None
    for (kind, _level, parts), kept in zip(items, keep):
        if not kept:
            continue
        if kind == _BLANK:
            if sep_text is None:
                blank_before = True
            else:
                blank_after = True
            continue
        if kind == _SEP:
            blank_after = False  # blanks between two separators collapse away
            sep_text = "".join(parts).strip()
            continue
        if seen_content:
            if sep_text is None:
                out.append("\n\n" if blank_before else "\n")
            else:
                out.extend(_separator_glue(blank_before, sep_text, blank_after))
        seen_content = True
        blank_before = blank_after = False
        sep_text = None
        out.extend(parts)
    return out


def _separator_glue(blank_before: bool, sep_text: str, blank_after: bool) -> tuple[str, ...]:
    """What stands between two content lines with a separator between them."""
    return (*(("\n",) if blank_before else ()), "\n" + sep_text,
            "\n\n" if blank_after else "\n")


def clean(pieces: Iterable[Any]) -> str:
    """Clean rendered pieces into final text."""
    return "".join(p if isinstance(p, str) else p.text for p in clean_pieces(pieces))


def clean_text(text: str) -> str:
    """Clean plain template text (no atoms): used for static text and by tests."""
    return clean([text])
