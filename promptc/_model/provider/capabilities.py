"""The capabilities promptc knows about a model and their types, checked the same way in every
row of the model data (the overlay's defaults, families and model rows, a folder's families)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._base.errors import ConfigError

__all__ = ["CAPABILITIES", "TOKEN_ENCODINGS", "INT_FACTS", "check_facts"]

CAPABILITIES = ("context_window", "max_output", "native_tools", "parallel_tools", "images",
                "prompt_caching", "cache_min_tokens", "reasoning", "encoding", "estimated",
                "responses_only", "knowledge_cutoff", "cache_tools")
# `cache_tools`: a cache marker may end the tool definitions (Claude's caches take one; Nova on
# Bedrock caches only system and messages, so its markers go after the system text instead).
# `responses_only`: the model is served only through OpenAI's Responses API (LiteLLM's map marks
# its entry `"mode": "responses"`), so an OpenAI payload defaults to that shape for it.
# `knowledge_cutoff`: the month the model's training data ends ("January 2025"), from the maker's
# model page (an overlay row names it); unknown (None) elsewhere.
TOKEN_ENCODINGS = ("o200k_base", "cl100k_base")  # what promptc can count with, offline
INT_FACTS = frozenset(("context_window", "max_output", "cache_min_tokens"))
_STR_FACTS = frozenset(("encoding", "knowledge_cutoff"))
_KIND = {name: int if name in INT_FACTS else str if name in _STR_FACTS else bool
         for name in CAPABILITIES}


def check_facts(row: Mapping[str, Any], source: str, field: str) -> dict[str, Any]:
    """The capabilities `row` sets, each checked for its type (in CAPABILITIES order)."""
    return {name: _checked(name, row[name], source, f"{field}.{name}")
            for name in CAPABILITIES if name in row}


def _checked(name: str, value: Any, source: str, field: str) -> Any:
    kind = _KIND[name]
    if type(value) is not kind or (isinstance(value, int) and value < 0):
        wanted = "a non-negative integer" if kind is int else kind.__name__
        raise ConfigError(f"must be {wanted}, got {value!r}", source=source, field=field)
    if name == "encoding" and value not in TOKEN_ENCODINGS:
        raise ConfigError(f"must be one of {', '.join(TOKEN_ENCODINGS)}, got {value!r}",
                          source=source, field=field)
    return value

