"""How the command line prints: aligned tables, colour only on a terminal, diagnostics."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._model.diagnostics import Diagnostic

__all__ = ["table", "use_colour", "paint", "format_diagnostic"]


def use_colour(stream: IO[str]) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


_CODES = {"red": "31", "yellow": "33", "green": "32", "dim": "2", "bold": "1", "cyan": "36"}


def paint(text: str, colour: str, stream: IO[str] = sys.stdout) -> str:
    if not use_colour(stream):
        return text
    return f"\033[{_CODES[colour]}m{text}\033[0m"


def format_diagnostic(d: Diagnostic, stream: IO[str] = sys.stderr) -> str:
    colour = {"error": "red", "warning": "yellow", "info": "dim"}[d.level]
    where = f" [{d.source}]" if d.source else ""
    return f"{paint(d.level, colour, stream)}: {d.code}{where}: {d.message}"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]],
          align: str | None = None) -> str:
    """An aligned plain-text table; `align` is one of l/r per column."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or "l" * len(headers)
    lines = []
    for n, row in enumerate(cells):
        parts = [c.rjust(w) if a == "r" else c.ljust(w) for c, w, a in zip(row, widths, align)]
        lines.append("  ".join(parts).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
