"""Components: one section of a prompt each, a function that returns text or nothing.

Two kinds share one record:
- a *template* component: a mustache text (from `components/<id>.md`, overridable per variant)
  fed by an optional data function, which returns the values the template iterates over, or
  None when the section does not apply;
- a *function* component (from a plugin): `(variant, context) -> str | None`.

`reads` names the context fields the output depends on (e.g. "rules", "features.browser",
"runtime.TEAM"); outputs are memoized by exactly those values, typed. A component whose reads are
not declared is never memoized and counts as request-class.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import attrs

from .._base.errors import ComponentError
from .cache import CACHE_CLASSES

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .._text.template import Template
    from .context import PromptContext
    from .variant import Variant

__all__ = ["Component", "DataFunction", "RenderFunction", "READ_ROOTS"]

DataFunction = Callable[["Variant", "PromptContext"], "Mapping[str, Any] | None"]
RenderFunction = Callable[["Variant", "PromptContext"], "str | None"]

# What a `reads` entry may name: a context field (optionally `features.X` / `runtime.X`), the
# provider, `tools` (which tools are offered, and what their option lists come from),
# `stable_tools` (only those whose presence depends on no session value: static) or
# `mcp_servers_in_plan` (the MCP servers in plan mode, none in act mode).
READ_ROOTS = frozenset({"provider", "cwd", "os", "shell", "home", "ide", "mode", "date",
                        "workspace_roots", "rules", "mcp_servers", "skills", "features",
                        "attachments", "runtime", "tools", "stable_tools",
                        "mcp_servers_in_plan"})


def _provides(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


def _reads(value: Iterable[str] | None) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        raise ComponentError("reads must be a list of field names, not one string")
    reads = frozenset(value)
    for read in reads:
        root, dot, sub = read.partition(".")
        if root not in READ_ROOTS or (dot and (root not in ("features", "runtime") or not sub)):
            from .._base.suggest import did_you_mean
            raise ComponentError(f"reads names {read!r}, which is no context field" +
                                 did_you_mean(root, READ_ROOTS), field="reads")
    return reads


@attrs.frozen
class Component:
    id: str
    function: RenderFunction | None = attrs.field(default=None, eq=False)
    template: str | None = None
    data: DataFunction | None = attrs.field(default=None, eq=False)
    provides: frozenset[str] = attrs.field(default=frozenset(), converter=_provides)
    reads: frozenset[str] | None = attrs.field(default=None, converter=_reads)
    cache: str | None = None
    priority: int = 50
    required: bool = False
    short_template: str | None = None
    source: str = "builtin"
    origin: str = ""  # where the text came from, for people: "builtin:components/rules.md"
    short_origin: str = ""
    path: str = ""  # the file itself, for error messages and lint (file:line)
    short_path: str = ""
    # Set by the registry at load: the parsed templates, and for a built-in id the id of the
    # per-request data that feeds its template (promptc/_compile/builtin_data.py).
    parsed: Template | None = attrs.field(default=None, eq=False, repr=False)
    parsed_short: Template | None = attrs.field(default=None, eq=False, repr=False)
    request_data: str | None = attrs.field(default=None, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        if (self.function is None) == (self.template is None):
            raise ComponentError("a component needs exactly one of `function` or `template`",
                                 source=self.id)
        if self.cache is not None and self.cache not in CACHE_CLASSES:
            raise ComponentError(f"cache must be static, session or request, got {self.cache!r}",
                                 source=self.id)
