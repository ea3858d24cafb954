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


def paint(text: str, colour: str | None, stream: IO[str] | None = None) -> str:
    """`text` in `colour` when `stream` (default: the current stdout, looked up when called,
    never the one there was at import) shows colour."""
    if colour is None or not use_colour(sys.stdout if stream is None else stream):
        return text
    return f"\033[{_CODES[colour]}m{text}\033[0m"


def format_diagnostic(d: Diagnostic, stream: IO[str] | None = None) -> str:
    colour = {"error": "red", "warning": "yellow", "info": "dim"}[d.level]
    stream = sys.stderr if stream is None else stream
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
          max_lines: int = 0, stream: IO[str] | None = None, whole: Sequence[int] = ()
          ) -> str:
    """An aligned plain-text table, at most `width` columns wide (default: the terminal's).

    Column `wrap` (default: the last) is wrapped first, at most `max_lines` lines per cell when
    that is > 0 (the cut marked with `…` and a note under the table); if that is not enough,
    the other left-aligned columns are wrapped too, widest first; a name is broken only at a
    space or after a hyphen, never inside a word. Numbers never wrap, nor do the `whole`
    columns (names a reader copies, such as ids: the table is wider than the terminal before
    one is broken). Cells are cleaned of control characters; `Styled` cells are painted on
    `stream`'s terms."""
    n = len(headers)
    align = align or "l" * n
    wrap = wrap % n
    cells, colours = _cells(headers, rows)
    widths = _fitted_widths(cells, align, wrap, terminal_width() if width is None else width,
                            whole)
    lines_of, cut = _wrapped(cells, widths, wrap, max_lines)
    widths = [max(len(line) for row in lines_of for line in row[i]) for i in range(n)]
    out: list[str] = []
    for k, split in enumerate(lines_of):
        out.extend(_row_lines(split, colours[k], widths, align,
                              sys.stdout if stream is None else stream))
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    if cut:
        out.append("(cut to fit the terminal; --json has the full text)")
    return "\n".join(out)


def _cells(headers: Sequence[str], rows: Sequence[Sequence[Any]]
           ) -> tuple[list[list[str]], list[list[str | None]]]:
    """Every cell's text, cleaned (the headers first), and its colour."""
    cells = [[clean(h) for h in headers]]
    colours: list[list[str | None]] = [[None] * len(headers)]
    for row in rows:
        pairs = [_cell(c) for c in row]
        cells.append([text for text, _ in pairs])
        colours.append([colour for _, colour in pairs])
    return cells, colours


def _cell(value: Any) -> tuple[str, str | None]:
    if isinstance(value, Styled):
        return clean(value.text), value.colour
    return "" if value is None else clean(value), None


def _fitted_widths(cells: Sequence[Sequence[str]], align: str, wrap: int, limit: int,
                   whole: Sequence[int] = ()) -> list[int]:
    """Column widths that fit `limit`: the free-text column narrowed to a comfortable width,
    then the other text columns, widest first, then the free-text column to its minimum
    (never narrower than a header)."""
    n = len(cells[0])
    widths = [max(len(r[i]) for r in cells) for i in range(n)]
    excess = sum(widths) + 2 * (n - 1) - limit
    for i, least in _narrowing_steps(widths, align, wrap, whole):
        if excess <= 0:
            break
        if i != wrap:  # a name is broken only after a hyphen or at a space, never inside
            least = max(least, max(_longest_piece(r[i]) for r in cells[1:]) if
                        len(cells) > 1 else 0)
        take = min(excess, widths[i] - max(least, len(cells[0][i])))
        if take > 0:
            widths[i] -= take
            excess -= take
    return widths


def _narrowing_steps(widths: Sequence[int], align: str, wrap: int, whole: Sequence[int] = ()
                     ) -> list[tuple[int, int]]:
    """(column, the narrowest it may get) in the order columns give up width."""
    others = sorted((i for i in range(len(widths))
                     if i != wrap and align[i] == "l" and i not in whole),
                    key=lambda i: -widths[i])
    return [(wrap, _COMFORTABLE), *((i, _MIN_OTHER) for i in others), (wrap, _MIN_WRAP),
            *((i, 0) for i in others)]


def _pieces(text: str) -> list[tuple[str, str]]:
    """A name cell's unbreakable pieces, each with the glue before it: words (a space) and,
    within a word, the parts after each hyphen (nothing)."""
    out: list[tuple[str, str]] = []
    for w, word in enumerate(text.split()):
        for j, part in enumerate(re.split(r"(?<=-)(?=.)", word)):
            out.append((" " if w and not j else "", part))
    return out


def _longest_piece(text: str) -> int:
    return max((len(part) for _glue, part in _pieces(text)), default=0)


def _wrap_names(text: str, width: int) -> list[str]:
    """Lines of at most `width` (wider only where one piece is), broken between pieces."""
    lines: list[str] = []
    current = ""
    for glue, part in _pieces(text):
        if current and len(current) + len(glue) + len(part) > width:
            lines.append(current)
            current = part
        else:
            current += glue + part if current else part
    return [*lines, current]


def _wrapped(cells: Sequence[Sequence[str]], widths: Sequence[int], wrap: int, max_lines: int
             ) -> tuple[list[list[list[str]]], bool]:
    """Row → column → lines, each body cell wrapped to its width; and whether a cell of the
    free-text column was cut at `max_lines`."""
    cut = False
    lines_of: list[list[list[str]]] = [[[text] for text in cells[0]]]
    for row in cells[1:]:
        split = []
        for i, text in enumerate(row):
            lines, was_cut = _wrap_cell(text, widths[i], i == wrap, max_lines)
            split.append(lines)
            cut = cut or was_cut
        lines_of.append(split)
    return lines_of, cut


def _wrap_cell(text: str, width: int, free_text: bool, max_lines: int
               ) -> tuple[list[str], bool]:
    if len(text) <= width:
        return [text], False
    if not free_text:
        return _wrap_names(text, width), False
    import textwrap  # only when a cell needs it
    lines = textwrap.wrap(text, width, break_on_hyphens=False) or [""]
    if not (free_text and max_lines and len(lines) > max_lines):
        return lines, False
    lines = lines[:max_lines]
    lines[-1] = lines[-1][:width - 1].rstrip() + "…"
    return lines, True


def _row_lines(split: Sequence[Sequence[str]], colours: Sequence[str | None],
               widths: Sequence[int], align: str, stream: IO[str]) -> list[str]:
    """A table row's lines: each column padded (and painted) to its width."""
    height = max(len(col) for col in split)
    return ["  ".join(_padded(col[h] if h < len(col) else "", w, a, colour, stream)
                      for col, w, a, colour in zip(split, widths, align, colours)).rstrip()
            for h in range(height)]


def _padded(text: str, width: int, align: str, colour: str | None, stream: IO[str]) -> str:
    padded = text.rjust(width) if align == "r" else text.ljust(width)
    return paint(padded, colour, stream) if text else padded


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
