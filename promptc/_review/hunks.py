"""The records a prompt review is made of: hunks of changed lines, one row per section, one
review per compared pair of prompts (see `diff` and `filereview`)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

import attrs

__all__ = ["Hunk", "SectionChange", "CaseReview", "Bar", "line_hunks", "TEMPLATE", "LAYOUT",
           "TOOLS", "CONTEXT_LINES", "text_lines"]

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
               context: int = CONTEXT_LINES,
               numbers: tuple[Sequence[int], Sequence[int]] | None = None) -> tuple[Hunk, ...]:
    """The unified-diff hunks between two lists of lines (numbered from `*_first`, or by
    `numbers`: each line's own number in its file, for lines picked out of one)."""
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
        if numbers is None:
            starts = (old_first + i1, new_first + j1)
        else:
            starts = (_number(numbers[0], i1, old_first), _number(numbers[1], j1, new_first))
        out.append(Hunk(starts[0], i2 - i1, starts[1], j2 - j1, tuple(lines)))
    return tuple(out)


def _number(numbers: Sequence[int], index: int, first: int) -> int:
    if index < len(numbers):
        return numbers[index]
    return numbers[-1] + 1 if numbers else first


def text_lines(text: str) -> list[str]:
    return text.split("\n") if text else []


