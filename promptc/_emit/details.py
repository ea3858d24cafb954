"""The environment details a conversation carries, and the messages that carry them.

With the split placement (the default) the system prompt holds only what every session of a
variant shares. The session's details (machine, rules, MCP servers, skills, mode, date…) open the
conversation as an `<environment_details>` element in a user message of its own, and when they
change, the sections that changed follow in a later message of its own (an update), so nothing
sent before is ever rewritten and the cached conversation stays valid. The prompt's note says
that only such a message counts; the same tag inside a tool result or the user's own words is
plain text (the fence escapes it in every outside value promptc inserts).

This module holds what is said in an update (`update_text`), the shape of a details message in
each provider's request format (`FORMATS`, read from the format table), where the details go in
a conversation a client keeps (`compose`), and, for the doors that hold a session inside a
framework's own history, a record of what was told where (`DetailsLog`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from .._model.formats import FORMATS as WIRE_FORMATS

__all__ = ["MESSAGE_TAG", "FORMATS", "update_text", "details_message", "compose",
           "DetailsLog", "Detailed"]

MESSAGE_TAG = "environment_details"

T = TypeVar("T")


class _Sectioned(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def text(self) -> str: ...


class Detailed(Protocol):
    """What placing details needs of a compiled prompt (promptc's CompiledPrompt has it)."""

    @property
    def message(self) -> str: ...

    def message_update(self, previous: Any) -> str: ...


def update_text(now: Sequence[_Sectioned], message: str, before: Sequence[_Sectioned]) -> str:
    """The update to send when the details went from `before` to `now` (`message` is the whole
    element for `now`): an element with the sections whose text changed ("" when none did);
    the whole element when a section appeared or went, since an absent section says nothing."""
    seen = {s.id: s.text for s in before}
    if [s.id for s in now] != list(seen):
        return message
    changed = [s.text for s in now if seen.get(s.id) != s.text]
    if not changed:
        return ""
    return f"<{MESSAGE_TAG}>\n" + "\n\n".join(changed) + f"\n</{MESSAGE_TAG}>"


# A user message of its own holding `text`, per format (promptc/_model/formats.py); `cut`
# (the formats whose messages are text blocks) splits the first message after the session's
# tool catalogue, so that a marker can end it.
FORMATS: Mapping[str, Callable[[str, int], dict[str, Any]]] = {f.id: f.message
                                                                for f in WIRE_FORMATS}


def details_message(fmt: str, text: str, cut: int = 0) -> dict[str, Any]:
    """A user message of its own carrying `text`, in format `fmt` (a format's id)."""
    try:
        shape = FORMATS[fmt]
    except KeyError:
        raise ValueError(f"no details message for format {fmt!r}; known: "
                         f"{', '.join(FORMATS)}") from None
    return shape(text, cut)


def compose(first: Mapping[str, Any] | None, update: Mapping[str, Any] | None,
            messages: Sequence[Mapping[str, Any]] | None, continued: bool, join: bool = False
            ) -> list[dict[str, Any]]:
    """The messages a payload carries. A new conversation (`continued` false) opens with the
    first details message, before the client's `messages`; a continued one (the client passed
    the previous prompt) keeps the client's messages as they are, with the update, when there
    is one, after them. Without `messages`, just what promptc adds: the client appends it to
    the conversation it keeps (the first message, or the update). `join` (a format whose roles
    must alternate): promptc's message and the client's user message next to it are
    one message, promptc's blocks first when it opens the conversation, last for an update."""
    given = [dict(m) for m in messages] if messages is not None else []
    if continued:
        if update and join and given and _joins(given[-1], update):
            return [*given[:-1], {**given[-1], "content": [*given[-1]["content"],
                                                          *update["content"]]}]
        return [*given, *([dict(update)] if update else [])]
    if first and join and given and _joins(given[0], first):
        return [{**given[0], "content": [*first["content"], *given[0]["content"]]},
                *given[1:]]
    return [*([dict(first)] if first else []), *given]


def _joins(theirs: Mapping[str, Any], mine: Mapping[str, Any]) -> bool:
    """Both are user messages made of content blocks."""
    return theirs.get("role") == mine.get("role") == "user" and \
        isinstance(theirs.get("content"), list) and isinstance(mine.get("content"), list)


class DetailsLog:
    """What one conversation was told about its environment, and where.

    For a door that holds a session inside a framework's own history (an agent object, a
    history processor): the framework keeps the conversation without promptc's messages, so
    each request places them again, at the same places, from this record. The first details
    message opens the conversation; each update goes where it was first sent (after that many
    of the framework's items). Conversations only grow, so the bytes before the newest items
    are the same at every request and stay cached. One log per conversation."""

    def __init__(self) -> None:
        self.first = ""
        self.updates: list[tuple[int, str]] = []
        self._last: Detailed | None = None

    def note(self, prompt: Detailed, at: int) -> str:
        """Record the prompt of a request whose conversation holds `at` items: the first prompt
        gives the first message; a later one whose details changed, an update at `at`.
        Returns the update recorded ("" when none)."""
        last, self._last = self._last, prompt
        if last is None:
            self.first = prompt.message
            return ""
        update = prompt.message_update(last)
        if update:
            self.updates.append((at, update))
        return update

    def place(self, conversation: Sequence[T], make: Callable[[str], T]) -> list[T]:
        """The conversation with the details messages (`make(text)` builds one) in place."""
        out: list[T] = [make(self.first)] if self.first else []
        pending = iter(self.updates)
        nxt = next(pending, None)
        for i, item in enumerate(conversation):
            while nxt is not None and nxt[0] <= i:
                out.append(make(nxt[1]))
                nxt = next(pending, None)
            out.append(item)
        while nxt is not None:
            out.append(make(nxt[1]))
            nxt = next(pending, None)
        return out
