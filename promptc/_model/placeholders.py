"""Standard placeholders: values every template may use, each tied to the context field it reads.

Layering (later wins): variant defaults → standard values → component sections → missing standard
keys as "" → runtime overrides.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .request import Request

__all__ = ["STANDARD"]

Getter = Callable[["Request"], str]


def _yes(value: bool | None) -> str:
    """A capability as a switch: "true", or "" so `{{^…}}` shows what a model lacks."""
    return "true" if value else ""

# name -> (context field read, or "" when the value is fixed for the variant and model; getter)
STANDARD: dict[str, tuple[str, Getter]] = {
    "CWD": ("cwd", lambda r: r.context.cwd),
    "OS": ("os", lambda r: r.context.os),
    "SHELL": ("shell", lambda r: r.context.shell),
    "HOME": ("home", lambda r: r.context.home),
    "IDE": ("ide", lambda r: r.context.ide),
    "MODE": ("mode", lambda r: r.context.mode),
    "CURRENT_DATE": ("date", lambda r: r.date),
    # the month the model's training data ends, where the model data knows it ("January 2025");
    # "" otherwise, so a template's `{{#KNOWLEDGE_CUTOFF}}…{{/KNOWLEDGE_CUTOFF}}` line disappears
    "KNOWLEDGE_CUTOFF": ("", lambda r: r.provider.knowledge_cutoff or ""),
    "MODEL_ID": ("", lambda r: r.provider.model),
    "PROVIDER": ("", lambda r: r.provider.provider),
    "MODEL_FAMILY": ("", lambda r: r.variant.family),
    "VARIANT_ID": ("", lambda r: r.variant.id),
    "TOOL_MODE": ("", lambda r: r.tool_mode),
    # the model's capabilities, from the model data and the client's own ProviderInfo
    "MODEL_IMAGES": ("", lambda r: _yes(r.provider.images)),
    "MODEL_NATIVE_TOOLS": ("", lambda r: _yes(r.provider.native_tools)),
    "MODEL_REASONING": ("", lambda r: _yes(r.provider.reasoning)),
    "MODEL_LOCAL": ("", lambda r: _yes(r.provider.is_local)),
    "MODEL_CONTEXT_WINDOW": ("", lambda r: str(r.provider.context_window or "")),
}
