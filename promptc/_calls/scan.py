"""Indexes over one reply that keep reading it linear.

A reader asks the same few questions many times: where does the next `</name>` start after a
position, does a position start a line, is it inside an inline code span. Each is answered from
an index built once per reply (one regular-expression pass, on first need) with a binary search,
so no question re-scans the text: the whole read stays linear in the reply's length, however the
reply is made.
"""

from __future__ import annotations

import bisect
import re

__all__ = ["TAG", "CLOSER", "TextIndex", "skip_space", "CDATA_OPEN", "CDATA_CLOSE"]

CDATA_OPEN = "<![CDATA["
CDATA_CLOSE = "]]>"

TAG = re.compile(r"<([A-Za-z_][A-Za-z0-9_-]{0,63})>")
CLOSER = re.compile(r"</([A-Za-z_][A-Za-z0-9_-]{0,63})>")
_SPACE = re.compile(r"\s*")
_TICKS = re.compile(r"`+")
_LINE_END = re.compile(r"[ \t\r]*(?:\n|\Z)")
_QUOTE_MARK = re.compile(r"[ ]{0,3}>")
_HTML_CODE = re.compile(r"<(pre|code)(?:\s[^<>]{0,200})?>", re.I)
_INDENTED = re.compile(r" {4}| {0,3}\t")
_LIST_ITEM = re.compile(r"[ ]{0,3}(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]|$)", re.M)


def skip_space(text: str, pos: int) -> int:
    """The first position at or after `pos` that is not white space."""
    return _SPACE.match(text, pos).end()  # type: ignore[union-attr]


class TextIndex:
    """Positions of closing tags by name, of line breaks and of backtick runs in one text."""

    __slots__ = ("text", "_closers", "_newlines", "_ticks", "_indent", "_spaced", "_line_ends",
                 "_cdata_closes", "_cdata_runs", "_html_code", "_code_lines")

    def __init__(self, text: str) -> None:
        self.text = text
        self._closers: dict[str, list[int]] | None = None
        self._newlines: list[int] | None = None
        self._ticks: list[int] | None = None
        self._indent: dict[int, int] = {}  # line start → its first character that is not space
        self._spaced: dict[int, int] = {}  # position → the first one at or after it not space
        self._line_ends: dict[int, bool] = {}
        self._cdata_closes: list[int] | None = None
        self._cdata_runs: dict[int, int | None] = {}  # section start → where its run ends
        self._html_code: dict[str, list[int]] | None = None
        self._code_lines: dict[int, bool] = {}  # line start → in an indented code block

    def closers(self, name: str) -> list[int]:
        table = self._closers
        if table is None:
            table = self._closers = {}
            for m in CLOSER.finditer(self.text):
                table.setdefault(m.group(1), []).append(m.start())
        return table.get(name, [])

    def next_closer(self, name: str, pos: int, before: int | None = None) -> int | None:
        """Where the first `</name>` at or after `pos` starts (and before `before`), or None."""
        starts = self.closers(name)
        i = bisect.bisect_left(starts, pos)
        if i == len(starts) or (before is not None and starts[i] >= before):
            return None
        return starts[i]

    def after_space(self, pos: int) -> int:
        """`skip_space(text, pos)`, remembered: readers that meet the same closing tag from
        several openings skip the white space after it once."""
        found = self._spaced.get(pos)
        if found is None:
            found = self._spaced[pos] = skip_space(self.text, pos)
        return found

    def ends_line(self, pos: int) -> bool:
        """Only spaces or tabs stand between `pos` and the end of its line (remembered, like
        `after_space`)."""
        found = self._line_ends.get(pos)
        if found is None:
            found = self._line_ends[pos] = _LINE_END.match(self.text, pos) is not None
        return found

    def line_start(self, pos: int) -> int:
        newlines = self._newlines
        if newlines is None:
            text = self.text
            newlines = self._newlines = [m.start() for m in re.finditer("\n", text)]
        i = bisect.bisect_left(newlines, pos)
        return newlines[i - 1] + 1 if i else 0

    def starts_line(self, pos: int) -> bool:
        """Only white space stands between the line's start and `pos`."""
        start = self.line_start(pos)
        first = self._indent.get(start)
        if first is None:
            first = self._indent[start] = skip_space(self.text, start)
        return first >= pos

    def in_inline_code(self, pos: int) -> bool:
        """An odd number of backtick runs stands before `pos` on its line (a code span is
        open there)."""
        ticks = self._ticks
        if ticks is None:
            ticks = self._ticks = [m.start() for m in _TICKS.finditer(self.text)]
        if not ticks:
            return False
        first = bisect.bisect_left(ticks, self.line_start(pos))
        last = bisect.bisect_left(ticks, pos)
        return (last - first) % 2 == 1

    def cdata_section_end(self, pos: int) -> int | None:
        """Where the CDATA section opening at `pos` ends (after its `]]>`), or None when it
        never closes."""
        closes = self._cdata_closes
        if closes is None:
            closes = self._cdata_closes = [m.start() for m in re.finditer(r"\]\]>", self.text)]
        i = bisect.bisect_left(closes, pos + len(CDATA_OPEN))
        return closes[i] + len(CDATA_CLOSE) if i < len(closes) else None

    def cdata_run_end(self, pos: int) -> int | None:
        """Where the run of back-to-back CDATA sections starting at `pos` ends, or None when
        one of them never closes. Remembered for every section of the run, so readers that
        meet the same run from many openings walk it once."""
        walked: list[int] = []
        end: int | None = pos
        while end is not None and end not in self._cdata_runs and \
                self.text.startswith(CDATA_OPEN, end):
            walked.append(end)
            end = self.cdata_section_end(end)
        if end is not None:
            end = self._cdata_runs.get(end, end)
        for start in walked:
            self._cdata_runs[start] = end
        return end

    # --- quotations: where a call is an example, never a call --------------------------------

    def in_blockquote(self, pos: int) -> bool:
        """`pos` stands on a line of a Markdown blockquote (`> …`)."""
        m = _QUOTE_MARK.match(self.text, self.line_start(pos))
        return m is not None and m.end() <= pos

    def in_html_code(self, pos: int) -> bool:
        """`pos` stands inside an HTML `<pre>` or `<code>` element: more of its opening tags
        than closing tags stand before it."""
        openers = self._html_code
        if openers is None:
            openers = self._html_code = {"pre": [], "code": []}
            for m in _HTML_CODE.finditer(self.text):
                openers[m.group(1).lower()].append(m.start())
        return any(bisect.bisect_left(starts, pos) >
                   bisect.bisect_left(self.closers(name), pos)
                   for name, starts in openers.items() if starts)

    def in_indented_code(self, pos: int) -> bool:
        """`pos` begins a line of a Markdown indented code block: indented four columns or
        more, after a blank line or another such line (a paragraph's next line is never code,
        nor is a list item's body)."""
        if not self.starts_line(pos):
            return False
        start = self.line_start(pos)
        if _INDENTED.match(self.text, start) is None:
            return False
        chain = [start]
        line = start
        while True:
            previous, blank = self._line_before(line)
            if previous is None:
                found = True
                break
            known = self._code_lines.get(previous)
            if known is not None:
                found = known
                break
            if _INDENTED.match(self.text, previous) is None:
                found = blank and _LIST_ITEM.match(self.text, previous) is None
                break
            chain.append(previous)
            line = previous
        for each in chain:
            self._code_lines[each] = found
        return found

    def _line_before(self, start: int) -> tuple[int | None, bool]:
        """The start of the last line before `start` that is not blank (None: there is none),
        and whether blank lines stood between them."""
        blank = False
        while start > 0:
            start = self.line_start(start - 1)
            if not self.ends_line(start):
                return start, blank
            blank = True
        return None, blank
