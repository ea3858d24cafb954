"""Outside text that a pack's own code handles: a data function's strings, and `promptc.fence`.

A plugin's data function (`Component(data=…)`) often passes on text it did not write: an
upstream node's summary, a ticket's subject, a search result. Its strings are therefore fenced
as bodies (promptc/_text/fence.py) before the template sees them, with the compiler's own
elements, exactly like rules text and runtime inputs; a string the pack wrote itself and wants
as it is comes back marked `promptc.Trusted(text)`. Keys, numbers, booleans and None are the
pack's structure and stay as they are.

`promptc.fence(text)` is the same neutralising for an author who builds larger text in Python
(a function component, a message of their own): it returns the text fenced (a `Trusted`, so a
data function may return it without a second pass), or wrapped in an element saying where it
came from, or as one escaped line for an attribute.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Protocol

from .._base.errors import ComponentError
from .._text.fence import OWN_TAGS, Trusted, attribute, body, element

__all__ = ["fence", "fenced_data", "QUOTED", "MAX_DEPTH", "WritesTags"]


class WritesTags(Protocol):
    """What `fence` needs of a compiler (its packs' own elements), said here so that this
    module, which the plan imports, does not import the compiler."""

    @property
    def own_tags(self) -> frozenset[str]: ...

#: The element `fence(text, source=…)` wraps text in when no tag is named (a fence element:
#: no outside text may open or close it).
QUOTED = "quoted"
#: How deeply a data function's lists and tables may nest.
MAX_DEPTH = 100

_NAME = re.compile(r"[A-Za-z_][\w.-]*")


def fenced_data(data: Mapping[str, Any], tags: frozenset[str]) -> dict[str, Any]:
    """A data function's values with every string fenced as a body (a `Trusted` one taken as
    it is), in new tables and lists; the rest as given."""
    return {key: _fenced(value, tags, 1) for key, value in data.items()}


def _fenced(value: Any, tags: frozenset[str], depth: int) -> Any:
    if isinstance(value, str):
        if isinstance(value, Trusted):
            return str(value)
        return body(value if type(value) is str else str(value), tags=tags)
    if not isinstance(value, (Mapping, list, tuple)):
        return value
    if depth >= MAX_DEPTH:
        raise ComponentError(f"data nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, Mapping):
        return {key: _fenced(item, tags, depth + 1) for key, item in value.items()}
    items = [_fenced(item, tags, depth + 1) for item in value]
    return items if isinstance(value, list) else tuple(items)


def fence(text: str, *, source: str | None = None, tag: str | None = None,
          inline: bool = False, compiler: WritesTags | None = None) -> Trusted:
    """`text` from outside the pack, neutralised the way promptc fences rules and inputs.

    - `fence(text)`: the text as an element's content (for a template or element of your own
      that wraps it): no line starts a heading or a `====` separator, no tag opens or closes
      one of the prompt's elements, no chat-template control token, no code block left open.
    - `fence(text, source="…")` (and/or `tag="…"`): that, wrapped in an element on lines of
      its own, `<quoted source="…">` unless `tag` names another element.
    - `fence(text, inline=True)`: one line, XML-escaped, for an attribute's value.

    `compiler`: whose elements the text may not forge (its `own_tags`: every element its
    packs' templates use); without one, the built-in pack's. The result is `Trusted`: a data
    function that returns it, or a string made with it, is not fenced again.
    """
    if not isinstance(text, str):
        raise TypeError(f"fence() takes text, got {type(text).__name__}")
    tags = OWN_TAGS if compiler is None else compiler.own_tags
    if inline:
        if source is not None or tag is not None:
            raise ValueError("fence(inline=True) writes an attribute's value: it takes no "
                             "source or tag")
        return Trusted(attribute(text))
    if source is None and tag is None:
        return Trusted(body(text, tags=tags))
    name = QUOTED if tag is None else tag
    if _NAME.fullmatch(name) is None:
        raise ValueError(f"fence(tag={name!r}): not an element name (a letter or `_`, then "
                         "letters, digits, `_`, `.` or `-`)")
    if source is None:
        return Trusted(element(name, text, tags))
    return Trusted(element(name, text, tags, source=source))
