"""Each provider's prompt-caching rules, as a function from a request's pieces to its bill.

The rules follow the providers' documentation, read 2026-12-06 (docs/caching.md quotes each
rule with its page; `promptc help session` lists the pages):

- Anthropic (platform.claude.com/docs/en/build-with-claude/prompt-caching): anthropic.py.
- AWS Bedrock (docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html): the same
  explicit checkpoints (`cachePoint`), at most 4, each from the model's minimum, 5 minutes (an
  hour where the model offers it): anthropic.py. Which models cache, and whether their cache
  takes the tools, is the model data's (Claude and Nova differ).
- OpenAI (developers.openai.com/api/docs/guides/prompt-caching, and the API reference's
  `prompt_cache_retention`): automatic.py.
- Gemini (ai.google.dev/gemini-api/docs/caching, implicit caching): automatic.py.

Minimums come from promptc's model data (`ProviderInfo.cache_min_tokens`), prices from
LiteLLM's map; token counts are promptc's (tiktoken; `estimated` for families it has no exact
encoding for, Claude's among them).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .._model.provider import ProviderInfo, normalize_model_id, normalize_provider
from .anthropic import LOOKBACK_POSITIONS, MAX_MARKERS, AnthropicRules
from .automatic import (BREAKPOINT_MINUTES, EXTENDED_MINUTES, IN_MEMORY_MINUTES, OPENAI_STEP,
                        GeminiRules, OpenAIRules)
from .cache_state import CacheRules, CacheState, Usage
from .wire import DEFAULT_TTL

__all__ = ["Usage", "CacheRules", "AnthropicRules", "OpenAIRules", "GeminiRules", "CacheState",
           "rules_for", "rules_of", "RULES", "MAX_MARKERS", "LOOKBACK_POSITIONS", "OPENAI_STEP",
           "TTL_MINUTES", "RETENTIONS", "openai_generation", "SOURCES", "READ_ON", "MARKED"]

TTL_MINUTES = DEFAULT_TTL
RETENTIONS = ("in_memory", "24h")
READ_ON = "2026-12-06"
SOURCES = {
    "anthropic": ("Prompt caching", "https://platform.claude.com/docs/en/build-with-claude/"
                  "prompt-caching"),
    "openai": ("Prompt caching", "https://developers.openai.com/api/docs/guides/"
               "prompt-caching"),
    "gemini": ("Context caching", "https://ai.google.dev/gemini-api/docs/caching"),
    "bedrock": ("Prompt caching for faster model inference",
                "https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html"),
}

RULES = tuple(SOURCES)
MARKED = ("anthropic", "bedrock")  # the rules whose caches are written at explicit markers
# Which rules a provider id bills by.
_BY_PROVIDER = {"anthropic": "anthropic", "bedrock": "bedrock", "openai": "openai",
                "azure": "openai", "gemini": "gemini", "google": "gemini",
                "vertex": "gemini", "vertex_ai": "gemini"}
# The models the API reference lists for extended (24h) retention, which is the default for
# organisations without zero data retention ("For gpt-5.5, gpt-5.5-pro, and future models,
# only 24h is supported"; GPT-5.6 replaced the option with 30-minute breakpoint entries).
_EXTENDED = frozenset({"gpt-5-5", "gpt-5-5-pro", "gpt-5-4", "gpt-5-3-codex", "gpt-5-2",
                       "gpt-5-1-codex-max", "gpt-5-1", "gpt-5-1-codex", "gpt-5-1-codex-mini",
                       "gpt-5-1-chat-latest", "gpt-5", "gpt-5-codex", "gpt-4-1"})
_DATED = re.compile(r"-\d{4}-\d{2}-\d{2}$")
_GENERATION = re.compile(r"^gpt-(\d+)(?:-(\d+))?(?:-|$)")


def rules_for(provider: str, model: str) -> str | None:
    """The rules a provider bills by, or None when promptc does not model that provider."""
    key = normalize_provider(provider)
    found = _BY_PROVIDER.get(key)
    if found == "gemini" and key.startswith("vertex") and "claude" in model.lower():
        return "anthropic"
    return found


def openai_generation(model: str) -> tuple[bool, bool]:
    """(GPT-5.6 or later: breakpoint entries; extended retention documented) for an OpenAI
    model id (a dated snapshot counts as its model)."""
    mid = _DATED.sub("", normalize_model_id(model))
    found = _GENERATION.match(mid)
    if found and (int(found[1]), int(found[2] or 0)) >= (5, 6):
        return True, False
    return False, mid in _EXTENDED


def rules_of(api: str, info: ProviderInfo, count: Callable[[str], int],
             marker_limit: int | None = MAX_MARKERS, retention: str | None = None
             ) -> CacheRules:
    """The rules a request to `info` is billed by (`api` from `rules_for`); `retention`:
    OpenAI's `prompt_cache_retention` (None: the documented default without zero data
    retention)."""
    resolved = info.resolved()
    minimum = resolved.cache_min_tokens or 1024
    if api in MARKED:
        return AnthropicRules(minimum, name=api, max_markers=marker_limit)
    if api == "openai":
        newer, extended = openai_generation(info.model)
        if newer:
            return OpenAIRules(count, minimum, BREAKPOINT_MINUTES, breakpoints=True)
        keeps = retention == "24h" or (retention is None and extended)
        return OpenAIRules(count, minimum, EXTENDED_MINUTES if keeps else IN_MEMORY_MINUTES)
    return GeminiRules(count, minimum)
