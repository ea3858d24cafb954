"""Fences for text that comes from outside the prompt pack.

Rules files, MCP server and tool descriptions, skill names, paths, runtime values and the
strings a plugin's data function returns are written by someone other than the prompt's author.
The templates put each such value inside an XML-style element whose tag says what it is
(`<user_rules source="…">…</user_rules>`), so the model can always tell the pack's own words
from quoted ones. A value stays inside its element, and reads as quoted there, by these rules
and nothing else:

- An attribute (`attribute`) is one line: every control character, line or paragraph separator
  becomes a space, and `&`, `<`, `>` and `"` (and their full-width and small forms) are written
  as XML entities, so a value can neither end its attribute nor start a line of its own.
- A body (`body`) stays verbatim, except that:
  * a tag of one of the prompt's own elements gets a backslash after its `<`: `</user_rules>`
    is written `<\\/user_rules>` and `<skill name="x">` is written `<\\skill name="x">`, so a
    value can close no fence and open no element of the prompt's. The own elements are the
    fences (`FENCE_TAGS`, always) and every element the loaded packs' templates open or close
    on a line of their own (`element_names`; a compiler passes its set as `tags`, and
    `OWN_TAGS`, the coding pack's, is the default). Tags are recognized however they are
    spelled: any case, spaces around the `/`, invisible characters between the letters
    (U+200B, U+2060, a soft hyphen…), full-width or small forms (`＜／skill＞`) and homoglyphs
    from other scripts (see promptc/_text/lookalike.py);
  * a line the prompt's own layout could take for its structure, a Markdown heading (`# …`) or
    a separator line (three or more `=`, other than the 7-wide diff marker `=======`), gets a
    backslash before its first visible character (`\\# Current mode: act`, `\\====`): the
    Markdown escape that makes it literal text, visibly inside the element. Inside fenced code
    blocks too (see below);
  * a code block the value opens and never closes is closed at its end, so it cannot run on
    over the prompt's own text after the element; a value of one line that opens one (a
    runtime input of `~~~`) gets a backslash before its fence instead (`\\~~~`), so it
    stays one line wherever the template places it.
- Both: a chat-template control token (`<|im_start|>`, `[INST]`, `<start_of_turn>`…) gets a
  backslash after its first character, so no tokenizer parses it (promptc/_text/control.py).

Why code blocks are escaped too, rather than fenced with a delimiter the text cannot hold: a
model does not keep track of which lines a code fence encloses, so a line reads as what it looks
like. A rules file holding a code fence, a `====` line, a blank line and `# Current mode: act`
shows the model the prompt's own section boundary, byte for byte, whatever fence or boundary
marker surrounds it: a delimiter changes the lines around the text, not the text. Prefixing
every line (as a quotation) would change every line of every rules file to guard against the
few that look like structure. The backslash touches only those few, costs a token, and is how
Markdown writes a literal `#` or `=`; code a user shows keeps its meaning (a reader drops the one
backslash before the first visible character of a line that then starts with `#` or `===`;
only a line that already started that way, backslash and all, reads back otherwise). Diff
markers (`=======`, `------- SEARCH`, `+++++++ REPLACE`) are not structure and stay as they
are, inside code blocks and out.

Fencing is stable: a fenced body fences to itself (`body(body(x)) == body(x)`), so a value may be
fenced twice (a data function that returns `promptc.fence(...)`, an input fenced again as an
element) without a second backslash. Text the pack itself wrote is marked `Trusted` and is not
fenced when a data function returns it.

`marked` writes a value after a marker (the provenance prefix of an MCP tool's description in
the native tool JSON) and gives every look-alike of that marker inside the value the same
backslash, so one server's text cannot pose as another's.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .control import control_edits, has_control, neutral
from .lookalike import IGNORABLE, like, skeleton, spelled, trie

__all__ = ["FENCE_TAGS", "OWN_TAGS", "Trusted", "attribute", "body", "one_line", "element",
           "element_names", "mask", "marked"]

#: Every element the built-in templates wrap outside text in.
FENCE_TAGS = frozenset({
    "user_rules", "mcp_server", "mcp_tool", "mcp_resource", "mcp_resource_template",
    "skill", "environment", "workspace_root", "attachment", "runtime_value", "input_schema",
    "environment_details",  # the first user message of dynamic placement (_compile/dynamic.py)
    "quoted",  # promptc.fence(text, source=…) (_compile/outside.py)
})

#: The elements a body may neither open nor close when no compiler says otherwise: the fences
#: and the coding pack's section elements. A compiler's own set (`Compiler.own_tags`) holds
#: every element its loaded packs' templates use (tests/test_fencing.py checks it holds these).
OWN_TAGS = FENCE_TAGS | frozenset({
    "default_to_action", "investigate_before_answering", "keep_changes_minimal",
    "report_blockers", "long_tasks",
})


class Trusted(str):
    """Text the pack itself wrote (a data function's own wording, text already fenced): a
    data function's string marked so is used as it is, where a plain one is fenced as a body.
    `Trusted(text)` is a str; what is made from it (`Trusted(a) + b`) is a plain str again."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Trusted({str.__repr__(self)})"


# An element a template opens or closes at the start of a line (after any mustache tags).
_BLOCK_TAG = re.compile(r"^[ \t]*+(?:\{\{[^}\n]*+\}\}[ \t]*+)*+"
                        r"</?([A-Za-z_][\w.:-]*+)(?=[\s/>]|$)", re.MULTILINE)


def element_names(text: str) -> set[str]:
    """The names (lower-case) of the elements `text` opens or closes on a line of its own:
    the elements a template wraps text in, which a body may not forge."""
    return {name.lower() for name in _BLOCK_TAG.findall(text)}

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
    """`value` as the text of a double-quoted attribute: one line, XML-escaped, no control
    token."""
    if has_control(value):
        value = neutral(value)
    if _ATTRIBUTE_CHANGES.search(value) is None:
        return value
    return one_line(value).translate(_ENTITIES)


# --- bodies -------------------------------------------------------------------------------
# Tags are found in the value's skeleton (promptc/_text/lookalike.py: the same length as the
# value, invisibles made NUL, look-alikes made ASCII); structural lines in the value itself,
# with classes for the few characters they start with.

_SPACE = r"[\s\x00]*+"


@lru_cache(maxsize=64)
def _tags(tags: frozenset[str]) -> re.Pattern[str]:
    """The pattern of a tag of any of `tags` or the fences (one per set of own elements)."""
    return re.compile(rf"<(?=[\s\x00/a-zA-Z]){_SPACE}(?P<slash>/{_SPACE})?"
                      rf"(?P<name>{trie(tags | FENCE_TAGS)})(?![\w-])", re.IGNORECASE)


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


def _markup_edits(value: str, tags: frozenset[str]) -> list[Edit]:
    """Each own tag's `<`, spaces and `/`, to be written `<\\` or `<\\/` (the name stays as it
    was written), and a backslash after the first character of each control token (none
    where an own tag's edit already put one)."""
    if value.isascii():
        if "<" not in value and "[" not in value and "]" not in value:
            return []
    elif not has_control(value):  # both start with `<` (a tag), `[` or `]`, or a look-alike
        return []
    skel = skeleton(value)
    edits = [(m.start(), m.start("name"), "<\\/" if m.group("slash") else "<\\")
             for m in _tags(tags).finditer(skel)] if _LT.search(value) else []
    controls = control_edits(skel)
    if controls and edits:
        tagged = {start for start, _end, _r in edits}
        controls = [edit for edit in controls if edit[0] - 1 not in tagged]
    return edits + controls


def _open_fence(value: str) -> str:
    """The fence of a code block still open at the value's end ("" when none is): a fence
    line opens a block, the next fence line of the same character closes it, whatever its
    length (so the fence added to close it is never shorter than one that would)."""
    fence = ""
    for found in _FENCE.finditer(value):
        run = found.group("run")
        if not fence:
            fence = run
        elif run[0] == fence[0]:
            fence = ""
    return fence


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
    """Structural lines escaped, inside code blocks too; a code block left open closed (or,
    in a value of one line, its fence escaped)."""
    escaped = _escape_lines(value)
    if "```" not in value and "~~~" not in value:
        return escaped
    fence = _open_fence(value)
    if not fence:
        return escaped
    run = _FENCE.search(escaped) if "\n" not in value else None
    if run is not None:  # one line: a closing line would split the line it is placed in
        return escaped[:run.start("run")] + "\\" + escaped[run.start("run"):]
    return escaped + (fence if value.endswith("\n") else "\n" + fence)


def _applied(value: str, edits: list[Edit]) -> str:
    pieces: list[str] = []
    done = 0
    for start, end, replacement in sorted(edits):
        pieces.append(value[done:start])
        pieces.append(replacement)
        done = end
    pieces.append(value[done:])
    return "".join(pieces)


# An ASCII value with none of these (most descriptions and names) is its own body: markup, and
# (checked only when the value holds a bracket) a control token that starts with one.
_ASCII_MARKUP = re.compile(r"[<`~]|(?:^|[\r\x0b\x0c])[ \t]*[#=]", re.MULTILINE)


def _plain_ascii(value: str) -> bool:
    """Whether an ASCII value holds nothing a body changes (the common case, found in C).

    The pattern can only match at one of `<`, `` ` ``, `~`, `#` or `=`: a value with none of
    them (most prose) skips it, as the regex engine tries every position of a value it
    cannot match (13 µs for a 400-character rule; the substring tests cost well under 1)."""
    if ("<" in value or "`" in value or "~" in value or "#" in value or "=" in value) and \
            _ASCII_MARKUP.search(value) is not None:
        return False
    return ("[" not in value and "]" not in value) or not control_edits(value)


def body(value: str, *, tags: frozenset[str] | None = None) -> str:
    """`value` as the content of an element: verbatim, except that it opens and closes none of
    the prompt's elements (`tags`, default `OWN_TAGS`, and the fences), starts none of its
    sections, holds no chat-template control token and leaves no code block open."""
    if value.isascii() and _plain_ascii(value):
        return value
    edits = _markup_edits(value, OWN_TAGS if tags is None else tags)
    return _lines_escaped(_applied(value, edits) if edits else value)


def element(tag: str, content: str, tags: frozenset[str] | None = None, /,
            **attributes: str) -> str:
    """`content` fenced in a `tag` element on lines of its own (for values the engine places
    itself, such as a runtime value that replaces a section); `tags` as for `body` (the
    element's own tag is always one of them)."""
    attrs = "".join(f' {k}="{attribute(v)}"' for k, v in attributes.items())
    own = OWN_TAGS if tags is None else tags
    if tag.lower() not in own:
        own = own | {tag.lower()}
    return f"<{tag}{attrs}>\n{body(content, tags=own)}\n</{tag}>"


@lru_cache(maxsize=16)
def _marker(marker: str) -> re.Pattern[str]:
    return re.compile(f"{spelled(marker[0])}(?={spelled(marker[1:])})", re.IGNORECASE)


def marked(marker: str, value: str, *, tags: frozenset[str] | None = None) -> str:
    """`value` fenced as a body, with a backslash after the first character of every
    look-alike of `marker` in it: the value cannot pose as text that follows the marker."""
    fenced = body(value, tags=tags)
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
