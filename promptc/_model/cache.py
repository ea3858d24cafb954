"""Cache classes: how long a piece of the prompt stays the same, from most to least stable.

- static: depends only on the variant and the model, identical for every request;
- session: depends on the session (cwd, OS, rules, MCP servers, skills, mode, features…);
- request: may change on every request (the date, runtime values, attachments).

Providers cache a prompt's exact prefix, so a prompt is ordered static → session → request.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["CacheClass", "CACHE_CLASSES", "RANK", "most_volatile"]

CacheClass = Literal["static", "session", "request"]
CACHE_CLASSES: tuple[CacheClass, ...] = ("static", "session", "request")
RANK: dict[str, int] = {name: rank for rank, name in enumerate(CACHE_CLASSES)}


def most_volatile(*classes: str) -> CacheClass:
    """The least stable of the given classes (static when none is given)."""
    return CACHE_CLASSES[max((RANK[c] for c in classes), default=0)]
