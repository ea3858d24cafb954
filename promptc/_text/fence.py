"""Fences for text that comes from outside the prompt pack.

Rules files, MCP server and tool descriptions, skill names, paths and runtime values are written
by someone other than the prompt's author. The built-in templates put each such value inside an
XML-style element whose tag says what it is (`<user_rules source="…">…</user_rules>`), so the
model can always tell the pack's own words from quoted ones. A value stays inside its element,
and reads as quoted there, by these rules and nothing else:

- An attribute (`attribute`) is one line: every control character, line or paragraph separator
  becomes a space, and `&`, `<`, `>` and `"` (and their full-width and small forms) are written
  as XML entities, so a value can neither end its attribute nor start a line of its own.
- A body (`body`) stays verbatim, except that:
  * a tag of one of promptc's own elements (`OWN_TAGS`: every fence element and the pack's
    section elements) gets a backslash after its `<`: `</user_rules>` is written
    `<\\/user_rules>` and `<skill name="x">` is written `<\\skill name="x">`, so a value can
    close no fence and open no element of the prompt's. Tags are recognized however they are
    spelled: any case, spaces around the `/`, invisible characters between the letters
    (U+200B, U+2060, a soft hyphen…), full-width or small forms (`＜／skill＞`) and homoglyphs
    from other scripts (see promptc/_text/lookalike.py);
  * a line the prompt's own layout could take for its structure, a Markdown heading (`# …`) or
    a separator line (three or more `=`, other than the 7-wide diff marker `=======`), gets a
    backslash before its first visible character (`\\# Current mode: act`, `\\====`): the
    Markdown escape that makes it literal text, visibly inside the element. Lines inside a
    fenced code block are code and stay as they are;
  * a code block the value opens and never closes is closed at its end, so it cannot run on
    over the prompt's own text after the element.

`marked` writes a value after a marker (the provenance prefix of an MCP tool's description in
the native tool JSON) and gives every look-alike of that marker inside the value the same
backslash, so one server's text cannot pose as another's.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .lookalike import IGNORABLE, like, skeleton, spelled, trie

__all__ = ["FENCE_TAGS", "OWN_TAGS", "attribute", "body", "one_line", "element", "mask",
           "marked"]

#: Every element the built-in templates wrap outside text in.
FENCE_TAGS = frozenset({
    "user_rules", "mcp_server", "mcp_tool", "mcp_resource", "mcp_resource_template",
    "skill", "environment", "workspace_root", "attachment", "runtime_value", "input_schema",
    "environment_details",  # the first user message of dynamic placement (_compile/dynamic.py)
})

#: Every element of promptc's own a body may neither open nor close: the fences and the pack's
#: section elements (tests/test_fencing.py checks that every block element of the built-in
#: templates that is not a tool call is listed).
OWN_TAGS = FENCE_TAGS | frozenset({
    "default_to_action", "investigate_before_answering", "keep_changes_minimal",
    "report_blockers", "long_tasks",
})

_LINE_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(value: str) -> str:
    """`value` with every control character and line or paragraph separator made a space."""
    return _LINE_BREAKING.sub(" ", value)


# --- attributes ---------------------------------------------------------------------------

_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                           "\uff06": "&#xff06;", "\uff1c": "&#xff1c;", "\uff1e": "&#xff1e;",
                           "\uff02": "&#xff02;", "\ufe60": "&#xfe60;", "\ufe64": "&#xfe64;",
                           "\ufe65": "&#xfe65;"})
# What `attribute` changes; most names and paths hold none of it and are returned as they are.
_ATTRIBUTE_CHANGES = re.compile('[\x00-\x1f\x7f-\x9f\u2028\u2029&<>"'
                                '\uff06\uff1c\uff1e\uff02\ufe60\ufe64\ufe65]')


def attribute(value: str) -> str:
    """`value` as the text of a double-quoted attribute: one line, XML-escaped."""
    if _ATTRIBUTE_CHANGES.search(value) is None:
        return value
    return one_line(value).translate(_ENTITIES)


# --- bodies -------------------------------------------------------------------------------
# Tags are found in the value's skeleton (promptc/_text/lookalike.py: the same length as the
# value, invisibles made NUL, look-alikes made ASCII); structural lines in the value itself,
# with classes for the few characters they start with.

_SPACE = r"[\s\x00]*+"
_TAGS = re.compile(rf"<(?=[\s\x00/a-zA-Z]){_SPACE}(?P<slash>/{_SPACE})?"
                   rf"(?P<name>{trie(OWN_TAGS)})(?![\w-])", re.IGNORECASE)
_LT = re.compile(f"[{like('<')}]")
_INVISIBLE = f"[{IGNORABLE}]*+"
# The first visible character of a line that reads as the prompt's structure: a heading, or a
# separator line other than the diff marker.
_STRUCTURAL = (rf"(?:[{like('#')}]{_INVISIBLE})++(?=\s|$)"
               rf"|(?!=======[ \t]*(?:$|\r))(?:[{like('=')}]{_INVISIBLE}){{3,}}+"
               rf"[ \t{IGNORABLE}]*+(?:$|(?=[\r\x0b\x0c\x85\u2028\u2029]))")
# Two passes, so that the common case (a newline, then the line's first character) is a
# substitution without group references, which runs in C.
_AT_START = re.compile(rf"\n(?={_STRUCTURAL})", re.MULTILINE)
_OTHERWISE = re.compile(rf"(?P<lead>[\r\x0b\x0c\x85\u2028\u2029][ \t{IGNORABLE}]*+"
                        rf"|\n[ \t{IGNORABLE}]++)(?={_STRUCTURAL})", re.MULTILINE)
_FENCE = re.compile(r"(?<![^\n])[ \t]{0,3}(?P<run>`{3,}|~{3,})[^\n]*")

Edit = tuple[int, int, str]  # (start, end, replacement) in the value


def _tag_edits(value: str) -> list[Edit]:
    """Each own tag's `<`, spaces and `/`, to be written `<\\` or `<\\/` (the name stays as it
    was written)."""
    if value.isascii():
        if "<" not in value:
            return []
    elif _LT.search(value) is None:
        return []
    return [(m.start(), m.start("name"), "<\\/" if m.group("slash") else "<\\")
            for m in _TAGS.finditer(skeleton(value))]


def _code_blocks(value: str) -> tuple[list[tuple[int, int]], str]:
    """The spans of the value's fenced code blocks (a fence line opens one; the next fence
    line of the same character closes it, whatever its length: when in doubt, escape), and
    the fence of one still open at the end ("" when none is)."""
    spans: list[tuple[int, int]] = []
    fence, start = "", 0
    for found in _FENCE.finditer(value):
        run = found.group("run")
        if not fence:
            fence, start = run, found.start()
        elif run[0] == fence[0]:
            spans.append((start, found.end()))
            fence = ""
    if fence:
        spans.append((start, len(value)))
    return spans, fence


_OTHER_LEAD = re.compile(rf"[\r\x0b\x0c\x85\u2028\u2029]|\n[ \t{IGNORABLE}]")


def _other_leads(text: str) -> bool:
    """Whether `_OTHERWISE` can match anywhere in `text`: only where its lead can start (a
    line break other than LF, or LF and a space, tab or invisible). The check costs a few
    scans in C for ASCII text, where the substitution itself tries every position."""
    if text.isascii():  # no invisible is ASCII
        return "\r" in text or "\x0b" in text or "\x0c" in text or "\n " in text or \
            "\n\t" in text
    return _OTHER_LEAD.search(text) is not None


def _escape_lines(text: str) -> str:
    """`text` with a backslash before the first visible character of each structural line."""
    if "#" not in text and "=" not in text and text.isascii():
        return text
    started = _AT_START.sub("\n\\\\", "\n" + text)
    if not _other_leads(started):
        return started[1:]
    return _OTHERWISE.sub(r"\g<lead>\\", started)[1:]


def _lines_escaped(value: str) -> str:
    """Structural lines escaped outside code blocks; a code block left open closed."""
    if "```" not in value and "~~~" not in value:
        return _escape_lines(value)
    spans, fence = _code_blocks(value)
    pieces: list[str] = []
    done = 0
    for start, end in spans:
        pieces.append(_escape_lines(value[done:start]))
        pieces.append(value[start:end])
        done = end
    pieces.append(_escape_lines(value[done:]))
    if fence:
        pieces.append(fence if value.endswith("\n") else "\n" + fence)
    return "".join(pieces)


def _applied(value: str, edits: list[Edit]) -> str:
    pieces: list[str] = []
    done = 0
    for start, end, replacement in sorted(edits):
        pieces.append(value[done:start])
        pieces.append(replacement)
        done = end
    pieces.append(value[done:])
    return "".join(pieces)


# An ASCII value with none of these (most descriptions and names) is its own body.
_ASCII_MARKUP = re.compile(r"[<`~]|(?:^|[\r\x0b\x0c])[ \t]*[#=]", re.MULTILINE)


def body(value: str) -> str:
    """`value` as the content of an element: verbatim, except that it opens and closes none of
    promptc's elements, starts none of the prompt's sections and leaves no code block open."""
    if value.isascii() and _ASCII_MARKUP.search(value) is None:
        return value
    edits = _tag_edits(value)
    return _lines_escaped(_applied(value, edits) if edits else value)


def element(tag: str, content: str, **attributes: str) -> str:
    """`content` fenced in a `tag` element on lines of its own (for values the engine places
    itself, such as a runtime value that replaces a section)."""
    attrs = "".join(f' {k}="{attribute(v)}"' for k, v in attributes.items())
    return f"<{tag}{attrs}>\n{body(content)}\n</{tag}>"


@lru_cache(maxsize=16)
def _marker(marker: str) -> re.Pattern[str]:
    return re.compile(f"{spelled(marker[0])}(?={spelled(marker[1:])})", re.IGNORECASE)


def marked(marker: str, value: str) -> str:
    """`value` fenced as a body, with a backslash after the first character of every
    look-alike of `marker` in it: the value cannot pose as text that follows the marker."""
    fenced = body(value)
    if not marker.strip():
        return fenced
    edits = [(m.end(), m.end(), "\\")
             for m in _marker(marker.strip()).finditer(skeleton(fenced))]
    return _applied(fenced, edits) if edits else fenced


# --- reading a prompt ---------------------------------------------------------------------

# A fence element starts a line (that is how the templates place them), so prose that names a
# tag mid-sentence (`<user_rules>`) is not mistaken for one; attribute values hold no `>` or
# line break, and a body cannot hold the element's closing tag.
_FENCED = re.compile(r"^<(%s)\b[^>\n]*?(?:/>|>.*?</\1>)" % "|".join(sorted(FENCE_TAGS)),
                     re.DOTALL | re.MULTILINE)


def mask(text: str, replacement: str = "(outside text)") -> str:
    """`text` with every fenced element replaced: what is left is the pack's own words (for
    checks that must not count a rules file's `{{` or an MCP description's tool names).
    Elements are recognized where templates put them: at the start of a line."""
    return _FENCED.sub(replacement, text)
