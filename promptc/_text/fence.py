"""Fences for text that comes from outside the prompt pack.

Rules files, MCP server and tool descriptions, skill names, paths and runtime values are written
by someone other than the prompt's author. The built-in templates put each such value inside an
XML-style element whose tag says what it is (`<user_rules source="…">…</user_rules>`), so the
model can always tell the pack's own words from quoted ones. Two rules keep a value inside its
element, and nothing else is changed:

- An attribute (`attribute`) is one line: every control character, line or paragraph separator
  becomes a space, and `&`, `<`, `>` and `"` are written as XML entities, so a value can neither
  end its attribute nor start a line of its own.
- A body (`body`) stays verbatim, except that a closing tag of any fence element
  (`</user_rules`, `< / MCP_server`, …: any case, any spaces around the `/`) is written
  `<\\/user_rules`, so no value can close its own element or one around it. Other markup
  (`</div>`) is untouched.
"""

from __future__ import annotations

import re

__all__ = ["FENCE_TAGS", "attribute", "body", "one_line", "element", "mask"]

#: Every element the built-in templates wrap outside text in; a body may close none of them.
FENCE_TAGS = frozenset({
    "user_rules", "mcp_server", "mcp_tool", "mcp_resource", "mcp_resource_template",
    "skill", "environment", "workspace_root", "attachment", "runtime_value", "input_schema",
    "environment_details",  # the first user message of dynamic placement (promptc/_compile/dynamic.py)
})

_LINE_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})
_CLOSING = re.compile(r"<\s*/\s*(?=(?:" + "|".join(sorted(FENCE_TAGS, key=len, reverse=True))
                      + r")(?![\w-]))", re.IGNORECASE)


def one_line(value: str) -> str:
    """`value` with every control character and line or paragraph separator made a space."""
    return _LINE_BREAKING.sub(" ", value)


# What `attribute` changes; most names and paths hold none of it and are returned as they are
# (one search instead of a substitution and a translation: attributes are written on every
# request that brings a new session).
_ATTRIBUTE_CHANGES = re.compile('[\x00-\x1f\x7f-\x9f\u2028\u2029&<>"]')


def attribute(value: str) -> str:
    """`value` as the text of a double-quoted attribute: one line, XML-escaped."""
    if _ATTRIBUTE_CHANGES.search(value) is None:
        return value
    return one_line(value).translate(_ENTITIES)


def body(value: str) -> str:
    """`value` verbatim, except that no closing tag of a fence element survives in it."""
    return _CLOSING.sub(r"<\\/", value) if "<" in value and "/" in value else value


def element(tag: str, content: str, **attributes: str) -> str:
    """`content` fenced in a `tag` element on lines of its own (for values the engine places
    itself, such as a runtime value that replaces a section)."""
    attrs = "".join(f' {k}="{attribute(v)}"' for k, v in attributes.items())
    return f"<{tag}{attrs}>\n{body(content)}\n</{tag}>"


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
