"""Standard placeholders: values every template may use, each tied to the context field it reads.

Layering (later wins): variant defaults → standard values → component sections → missing standard
keys as "" → runtime overrides.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._context import PromptContext
    from ._provider import ProviderInfo
    from ._variant import ActiveToolMode, Variant

__all__ = ["STANDARD", "standard_value", "tool_mode_of", "LAYERS"]

LAYERS = ("default", "standard", "component", "missing", "runtime")

Getter = Callable[["Variant", "PromptContext", "ProviderInfo"], str]


def _date(v: Variant, c: PromptContext, p: ProviderInfo) -> str:
    # The date is injected by the client; the clock is read only when none is given.
    return c.date if c.date is not None else datetime.date.today().isoformat()


def tool_mode_of(variant: Variant, provider: ProviderInfo) -> ActiveToolMode:
    """The variant's choice, else the model's capability, else text."""
    if variant.tool_mode != "auto":
        return variant.tool_mode
    return "native" if provider.native_tools else "text"


# name -> (context field read, or "" for static; getter)
STANDARD: dict[str, tuple[str, Getter]] = {
    "CWD": ("cwd", lambda v, c, p: c.cwd),
    "OS": ("os", lambda v, c, p: c.os),
    "SHELL": ("shell", lambda v, c, p: c.shell),
    "HOME": ("home", lambda v, c, p: c.home),
    "IDE": ("ide", lambda v, c, p: c.ide),
    "MODE": ("mode", lambda v, c, p: c.mode),
    "CURRENT_DATE": ("date", _date),
    "MODEL_ID": ("", lambda v, c, p: p.model),
    "PROVIDER": ("", lambda v, c, p: p.provider),
    "MODEL_FAMILY": ("", lambda v, c, p: v.family),
    "VARIANT_ID": ("", lambda v, c, p: v.id),
    "TOOL_MODE": ("", lambda v, c, p: tool_mode_of(v, p)),
}


def standard_value(name: str, variant: Variant, context: PromptContext,
                   provider: ProviderInfo) -> str:
    return STANDARD[name][1](variant, context, provider)
