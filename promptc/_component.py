"""Components: one section of a prompt each, a function that returns text or nothing.

Two kinds share one record:
- a *template* component: a mustache text (from `components/<id>.md`, overridable per variant)
  fed by an optional data function, which returns the values the template iterates over, or
  None when the section does not apply;
- a *function* component (from a plugin): `(variant, context) -> str | None`.

`reads` names the context fields the output depends on (e.g. "rules", "features.browser",
"runtime.TEAM"); outputs are memoized by exactly those values. A component whose reads are not
declared is never memoized and counts as request-class.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TYPE_CHECKING, Any  # noqa: F401 - Any: in the string annotations below

import attrs

from ._errors import ComponentError

if TYPE_CHECKING:
    from collections.abc import Mapping  # noqa: F401 - used in the string annotations below

    from ._context import PromptContext
    from ._variant import Variant

__all__ = ["Component", "DataFunction", "RenderFunction"]

DataFunction = Callable[["Variant", "PromptContext"], "Mapping[str, Any] | None"]
RenderFunction = Callable[["Variant", "PromptContext"], "str | None"]


def _provides(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


def _reads(value: Iterable[str] | None) -> frozenset[str] | None:
    return None if value is None else frozenset(value)


@attrs.frozen
class Component:
    id: str
    function: RenderFunction | None = attrs.field(default=None, eq=False)
    template: str | None = None
    data: DataFunction | None = attrs.field(default=None, eq=False)
    provides: frozenset[str] = attrs.field(default=frozenset(), converter=_provides)
    reads: frozenset[str] | None = attrs.field(default=None, converter=_reads)
    key: Callable[[PromptContext], Hashable] | None = attrs.field(default=None, eq=False)
    # (variant) -> (key function or None, fields read): for outputs whose dependencies are
    # decided by the variant (the tool catalogue depends on what its tools' conditions read).
    key_factory: Callable[[Variant], tuple[Callable[[PromptContext], Hashable] | None,
                                           frozenset[str]]] | None = attrs.field(
        default=None, eq=False)
    # (variant) -> a key naming the output by value, tried after a miss on the field key: a new
    # session whose tool conditions come out the same reuses the rendered catalogue.
    content_key_factory: Callable[[Variant], Callable[[PromptContext], Hashable]] | None = \
        attrs.field(default=None, eq=False)
    cache: str | None = None
    priority: int = 50
    required: bool = False
    short_template: str | None = None
    source: str = "builtin"
    origin: str = ""  # where the text came from, for people: "builtin:components/rules.md"
    short_origin: str = ""
    path: str = ""  # the file itself, for error messages and lint (file:line)
    short_path: str = ""

    def __attrs_post_init__(self) -> None:
        if (self.function is None) == (self.template is None):
            raise ComponentError("a component needs exactly one of `function` or `template`",
                                 source=self.id)
        if self.cache is not None and self.cache not in ("static", "session", "request"):
            raise ComponentError(f"cache must be static, session or request, got {self.cache!r}",
                                 source=self.id)
