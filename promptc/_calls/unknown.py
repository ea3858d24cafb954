"""Tags shaped like a call of a tool nobody offers: when one is an `unknown-tool` error.

A model trained on another agent writes that agent's tools (`<Bash>`, `<Grep>`, `<edit>`) or
misspells ours (`<read_files>`, `<ReadFile>`); each must come back as an error, or the turn ends
in silence. Markup in an explanation (`<div>`, `<b>`, `<br>`, `List<T>`, an XML example in a
sentence) must stay prose. A tag that names no offered tool is a call when it is closed by its
own closing tag and:

* its name looks like a tool's (snake_case, or an offered name in other case or separators)
  and its first child is a closed tag, anywhere in the text;
* its name is another agent's tool (`TOOL_NAMES_ELSEWHERE`), whatever its body
  (`<bash>ls</bash>`), anywhere in the text;
* or, any other name but an HTML or SVG element's, the block stands on lines of its own (the
  opening tag starts a line, the closing tag ends one) and holds nothing but parameter tags:
  one or more `<name>value</name>`, with only white space between them. A fence, inline code or
  quotation marks make such a block an example, which is prose.

The first kind, and the second when its body is parameter tags, are `sure`: like a real call,
they count inside a fence, a quotation or reasoning too. The others count only where a call
would run.

Deciding costs a bounded number of index look-ups per tag (at most `MAX_PARAMETERS` children
are walked), so the reader stays linear in the reply's length.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from .._model.tools import squash_name
from .scan import TAG, TextIndex

__all__ = ["Unknown", "UnknownTools", "TOOL_NAMES_ELSEWHERE", "MAX_PARAMETERS", "squash"]

MAX_PARAMETERS = 32

# Tools of other coding agents that models trained on them write as tags: Claude Code's (as it
# spells them, and the lower-case spellings that are no common word), the shell tool of
# Anthropic's API, SWE-agent and Codex.
TOOL_NAMES_ELSEWHERE = frozenset("""Bash BashOutput KillBash KillShell Read Write Edit MultiEdit
Glob Grep LS NotebookRead NotebookEdit WebFetch WebSearch TodoRead TodoWrite Task ExitPlanMode
SlashCommand bash shell grep glob multiedit webfetch websearch todowrite notebookedit""".split())

# HTML and SVG elements: their blocks are markup, never calls. (`search` is left out: an HTML
# element since 2023, and a tool's name far more often.)
_MARKUP = frozenset("""a abbr address area article aside audio b bdi bdo blockquote body br
button canvas caption cite code col colgroup data datalist dd del details dfn dialog div dl dt
em embed fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i
iframe img input ins kbd label legend li link main map mark menu meta meter nav noscript object
ol optgroup option output p param picture pre progress q rp rt ruby s samp script section select
slot small source span strong style sub summary sup table tbody td template textarea tfoot th
thead time title tr track u ul var video wbr svg g path circle rect line polyline polygon
ellipse text tspan defs use symbol image clippath mask pattern lineargradient radialgradient
stop filter marker foreignobject math mi mn mo mrow msup msub mfrac""".split())


@attrs.frozen
class Unknown:
    """A call-shaped block of a tool nobody offers, ending at `end`. `sure`: its name says it
    is meant as a call, so it counts where an example would not (a fence, reasoning)."""

    end: int
    sure: bool


class UnknownTools:
    """Decides, for a tag naming no offered tool, whether it is a call (`read`)."""

    __slots__ = ("_offered", "_squashed")

    def __init__(self, offered: Iterable[str]) -> None:
        self._offered = frozenset(offered)
        self._squashed = frozenset(squash(n) for n in self._offered)

    def read(self, index: TextIndex, name: str, start: int, body: int) -> Unknown | None:
        """The block whose opening tag `<name>` spans `start`..`body`, if it is a call."""
        if name.lower() in _MARKUP:
            return None
        close = index.next_closer(name, body)
        if close is None:
            return None
        end = close + len(name) + 3
        if ("_" in name or squash(name) in self._squashed) and \
                _first_child_closed(index, body, close):
            return Unknown(end, True)
        if name in TOOL_NAMES_ELSEWHERE:
            return Unknown(end, self._parameters_only(index, body, close))
        if index.starts_line(start) and self._parameters_only(index, body, close) and \
                index.ends_line(end):
            return Unknown(end, False)
        return None

    def _parameters_only(self, index: TextIndex, pos: int, close: int) -> bool:
        """`text[pos:close]` is one or more closed parameter tags and white space, none named
        like an offered tool (a wrapper around a real call is not itself a call)."""
        text = index.text
        count = 0
        pos = index.after_space(pos)
        while pos < close:
            m = TAG.match(text, pos)
            if m is None or m.group(1) in self._offered or count == MAX_PARAMETERS:
                return False
            own = index.next_closer(m.group(1), m.end(), close)
            if own is None:
                return False
            count += 1
            pos = index.after_space(own + len(m.group(1)) + 3)
        return count > 0 and pos == close


def _first_child_closed(index: TextIndex, body: int, close: int) -> bool:
    child = TAG.match(index.text, index.after_space(body))
    return child is not None and index.next_closer(child.group(1), child.end(), close) \
        is not None


def squash(name: str) -> str:
    return squash_name(name)
