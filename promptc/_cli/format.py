"""How the command line prints: tables that fit the terminal, colour only on a terminal,
diagnostics, a progress line, and user-supplied text made safe to print.

Everything a person reads goes through `clean` (names, paths, messages) or `clean_line` (a line
of prompt text in a diff): a value from a context file, an MCP server or a plugin must not be able
to move the cursor, recolour the terminal or split a log line. `--json` output keeps the exact
data (JSON escapes control characters itself).
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .._model.diagnostics import Diagnostic

__all__ = ["table", "use_colour", "paint", "format_diagnostic", "clean", "clean_line", "bound",
           "terminal_width", "Styled", "Progress", "word_diff", "change_block"]

# C0 and C1 controls, DEL, and the invisible characters that reorder or split what is shown
# (bidi embeddings/overrides/isolates, line and paragraph separators, BOM).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                     "\u2066-\u2069\ufeff]")
_UNSAFE_BUT_TAB = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                             "\u202a-\u202e\u2066-\u2069\ufeff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\x1b"}


def _escape(m: re.Match[str]) -> str:
    ch = m.group()
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


def clean(text: Any) -> str:
    """One line of user-supplied text, safe for a terminal or a log: every control character
    (newline and tab included) is shown as an escape instead of acting."""
    s = str(text)
    return _UNSAFE.sub(_escape, s) if _UNSAFE.search(s) else s


def clean_line(text: str) -> str:
    """A line of prompt text (in a diff): like `clean`, but a tab stays a tab."""
    return _UNSAFE_BUT_TAB.sub(_escape, text) if _UNSAFE_BUT_TAB.search(text) else text


def bound(text: str, limit: int = 400) -> str:
    """At most `limit` characters: a diagnostic that quotes a 1 MB value stays one readable
    line (the full value is in `--json`)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters; --json has them all)"


def use_colour(stream: IO[str]) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


_CODES = {"red": "31", "yellow": "33", "green": "32", "dim": "2", "bold": "1", "cyan": "36",
          "red-word": "1;7;31", "green-word": "1;7;32"}


def paint(text: str, colour: str | None, stream: IO[str] = sys.stdout) -> str:
    if colour is None or not use_colour(stream):
        return text
    return f"\033[{_CODES[colour]}m{text}\033[0m"


def format_diagnostic(d: Diagnostic, stream: IO[str] = sys.stderr) -> str:
    colour = {"error": "red", "warning": "yellow", "info": "dim"}[d.level]
    where = f" [{bound(clean(d.source), 160)}]" if d.source else ""
    return f"{paint(d.level, colour, stream)}: {clean(d.code)}{where}: {bound(clean(d.message))}"


def terminal_width() -> int:
    """Columns to fit: $COLUMNS, else the terminal's, else 100 (a pipe or a CI log)."""
    import shutil
    return max(shutil.get_terminal_size((100, 24)).columns, 40)


class Styled(NamedTuple):
    """A table cell painted after it is padded (so colour codes never count as width)."""

    text: str
    colour: str | None


_MIN_WRAP = 16   # the free-text column never gets narrower than this
_MIN_OTHER = 10  # other text columns (ids, sources) when even that is not enough
_COMFORTABLE = 32  # the free-text column is narrowed to this before any other column


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]],
          align: str | None = None, *, width: int | None = None, wrap: int = -1,
          max_lines: int = 0, stream: IO[str] = sys.stdout) -> str:
    """An aligned plain-text table, at most `width` columns wide (default: the terminal's).

    Column `wrap` (default: the last) is wrapped first, at most `max_lines` lines per cell when
    that is > 0 (the cut marked with `…` and a note under the table); if that is not enough,
    the other left-aligned columns are wrapped too, widest first. Numbers never wrap. Cells are
    cleaned of control characters; `Styled` cells are painted on `stream`'s terms."""
    import textwrap
    n = len(headers)
    align = align or "l" * n
    wrap = wrap % n
    colours: list[list[str | None]] = [[None] * n]
    cells = [[clean(h) for h in headers]]
    for r in rows:
        texts, cols = [], []
        for c in r:
            if isinstance(c, Styled):
                texts.append(clean(c.text))
                cols.append(c.colour)
            else:
                texts.append("" if c is None else clean(c))
                cols.append(None)
        cells.append(texts)
        colours.append(cols)
    widths = [max(len(r[i]) for r in cells) for i in range(n)]
    limit = terminal_width() if width is None else width
    excess = sum(widths) + 2 * (n - 1) - limit
    # Narrow the free-text column to a comfortable width, then the other text columns, widest
    # first, then the free-text column to its minimum.
    stages = [(wrap, _COMFORTABLE)] + [
        (i, _MIN_OTHER) for i in sorted(range(n), key=lambda i: -widths[i])
        if i != wrap and align[i] == "l"] + [(wrap, _MIN_WRAP)]
    for i, least in stages:
        if excess <= 0:
            break
        take = min(excess, widths[i] - max(least, len(cells[0][i])))
        if take > 0:
            widths[i] -= take
            excess -= take
    cut = False
    lines_of: list[list[list[str]]] = []  # row -> column -> lines
    for k, row in enumerate(cells):
        split = []
        for i, text in enumerate(row):
            if k and len(text) > widths[i]:
                parts = textwrap.wrap(text, widths[i], break_on_hyphens=i != wrap) or [""]
                if i == wrap and max_lines and len(parts) > max_lines:
                    parts = parts[:max_lines]
                    parts[-1] = parts[-1][:widths[i] - 1].rstrip() + "…"
                    cut = True
                split.append(parts)
            else:
                split.append([text])
        lines_of.append(split)
    widths = [max(len(line) for row in lines_of for line in row[i]) for i in range(n)]
    out = []
    for k, split in enumerate(lines_of):
        height = max(len(col) for col in split)
        for h in range(height):
            parts = []
            for i, (col, w, a) in enumerate(zip(split, widths, align)):
                text = col[h] if h < len(col) else ""
                padded = text.rjust(w) if a == "r" else text.ljust(w)
                parts.append(paint(padded, colours[k][i], stream) if text else padded)
            out.append("  ".join(parts).rstrip())
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    if cut:
        out.append("(cut to fit the terminal; --json has the full text)")
    return "\n".join(out)


_WORD = re.compile(r"\s+|\w+|[^\w\s]")


def change_block(lines: Sequence[tuple[str, Any]], start: int) -> tuple[int, int]:
    """In diff lines ((tag, text), tag "-", "+" or " "), the run of removals from `start` and
    the additions right after it: their ends (j, k), so lines[start:j] are removed and
    lines[j:k] added (for showing each removed line beside the line that replaced it)."""
    j = start
    while j < len(lines) and lines[j][0] == "-":
        j += 1
    k = j
    while k < len(lines) and lines[k][0] == "+":
        k += 1
    return j, k


def word_diff(old: str, new: str) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """The two lines split into (text, changed?) runs, word by word."""
    import difflib
    a, b = _WORD.findall(old), _WORD.findall(new)
    left: list[tuple[str, bool]] = []
    right: list[tuple[str, bool]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if i2 > i1:
            left.append(("".join(a[i1:i2]), tag != "equal"))
        if j2 > j1:
            right.append(("".join(b[j1:j2]), tag != "equal"))
    return left, right


class Progress:
    """One self-overwriting status line on stderr for long work: only on a terminal, only for
    more than `threshold` steps, never with `--quiet`."""

    def __init__(self, label: str, total: int, *, quiet: bool = False, threshold: int = 8,
                 stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.total = total
        self.on = not quiet and total > threshold and self.stream.isatty()
        self.t0 = time.perf_counter()
        self.shown = -1.0

    def __call__(self, done: int, what: str = "") -> None:
        if not self.on:
            return
        now = time.perf_counter()
        if now - self.shown < 0.05:  # at most 20 updates a second, however fast the steps
            return
        self.shown = now
        line = f"{self.label} {done}/{self.total} [{now - self.t0:.0f}s]"
        if what:
            line += " " + clean(what)
        self.stream.write("\r\x1b[K" + line[:terminal_width() - 1])
        self.stream.flush()

    def clear(self) -> None:
        if self.on:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
