"""ProviderInfo: which model a request goes to, and what that model can do.

Model ids arrive spelled many ways (gateways, clouds, local servers); `normalize_model_id` folds them
to one form so matchers and the capability table see the same id.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import attrs

from .._base.errors import ContextError
from .._base.files import read_toml
from .._base.records import build_record, optional, typed

__all__ = ["ProviderInfo", "normalize_model_id", "model_tokens", "tokens_start_with",
           "local_providers", "model_table", "encoding_for", "TOKEN_ENCODINGS"]

TOKEN_ENCODINGS = ("o200k_base", "cl100k_base")  # what promptc can count with, offline

_REGION_PREFIXES = ("us", "eu", "apac", "global", "us-gov", "ap", "ca", "jp", "au")
_VENDOR_PREFIXES = ("anthropic", "openai", "google", "meta", "amazon", "mistral", "mistralai",
                    "cohere", "ai21", "deepseek", "qwen", "moonshotai", "moonshot", "xai", "x-ai",
                    "zai", "z-ai", "zhipuai", "writer", "minimax")
# Vendors whose model names start with the vendor's own name.
_SELF_NAMED = ("deepseek", "qwen", "mistral", "minimax")
_GATEWAY_SUFFIXES = ("free", "beta", "thinking", "extended", "nitro", "floor", "online", "exacto")
_BEDROCK_VERSION = re.compile(r"-v\d+(?::\d+)?$")
_SEPARATORS = re.compile(r"[\s._:/@]+|-+")


def normalize_model_id(model: str) -> str:
    """Fold a provider's spelling of a model id to lowercase, dash-separated tokens.

    `anthropic/claude-sonnet-4.5`, `us.anthropic.claude-sonnet-4-5-20250929-v1:0` and
    `claude-sonnet-4-5@20250929` all start with the tokens `claude-sonnet-4-5`.
    """
    m = model.strip().lower()
    # Gateway paths (openrouter `vendor/model`, Gemini `models/…`, fireworks `accounts/…/models/…`).
    if "/" in m:
        m = m.rsplit("/", 1)[1]
    # Gateway variant suffixes such as `:free`.
    head, colon, tail = m.rpartition(":")
    if colon and tail in _GATEWAY_SUFFIXES:
        m = head
    # Bedrock: `-v1:0` style version suffixes, then region and vendor prefixes.
    m = _BEDROCK_VERSION.sub("", m)
    parts = m.split(".")
    if len(parts) > 1 and parts[0] in _REGION_PREFIXES:
        parts = parts[1:]
    if len(parts) > 1 and parts[0] in _VENDOR_PREFIXES:
        vendor = parts[0]
        parts = parts[1:]
        # Bedrock drops the family name for some vendors (`deepseek.v3-v1:0`): keep it.
        if vendor in _SELF_NAMED and not parts[0].startswith(vendor):
            parts[0] = f"{vendor}-{parts[0]}"
    m = ".".join(parts)
    return "-".join(t for t in _SEPARATORS.split(m) if t)


def model_tokens(model: str) -> tuple[str, ...]:
    return tuple(normalize_model_id(model).split("-")) if model.strip() else ()


def tokens_start_with(tokens: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    """True when `pattern` is a token prefix of `tokens`.

    A `*` pattern token matches one or more tokens (`gemini-*-pro` matches `gemini-2-5-pro`).
    Patterns are a handful of tokens, so the set-of-positions walk below stays tiny.
    """
    if "*" not in pattern:
        return len(pattern) <= len(tokens) and tokens[:len(pattern)] == pattern
    positions = {0}
    for want in pattern:
        nxt: set[int] = set()
        for i in positions:
            if want == "*":
                nxt.update(range(i + 1, len(tokens) + 1))
            elif i < len(tokens) and tokens[i] == want:
                nxt.add(i + 1)
        if not nxt:
            return False
        positions = nxt
    return True


@functools.cache
def model_table() -> dict[str, Any]:
    """The capability table shipped with promptc (package data, read once)."""
    data = read_toml(Path(__file__).resolve().parent.parent / "_data" / "models.toml",
                     ContextError)
    families = []
    for fam in data["family"]:
        for pattern in fam["patterns"]:
            families.append((tuple(normalize_model_id(pattern).split("-")), fam))
    # Longest pattern first, then by text: the most specific family wins, deterministically.
    families.sort(key=lambda item: (-len(item[0]), item[0]))
    return {"defaults": data["defaults"], "local": data["local"], "families": families,
            "local_providers": frozenset(data["local"]["providers"])}


def local_providers() -> frozenset[str]:
    """Provider ids of local servers (ollama, LM Studio, llama.cpp, …)."""
    providers: frozenset[str] = model_table()["local_providers"]
    return providers


def _family_for(model: str, family: str | None = None) -> dict[str, Any] | None:
    """The capability row for a model id; else for a family id the client named (an Azure
    deployment called `prod-chat` can say `family = "gpt-5"`)."""
    tokens = model_tokens(model)
    families: list[tuple[tuple[str, ...], dict[str, Any]]] = model_table()["families"]
    for pattern, fam in families:
        if tokens_start_with(tokens, pattern):
            return fam
    if family:
        for _pattern, fam in families:
            if fam["id"] == family:
                return fam
    return None


_CAPABILITIES = ("context_window", "max_output", "native_tools", "parallel_tools", "images",
                 "prompt_caching", "cache_min_tokens", "encoding", "estimated")


_STR = typed(str, ContextError)
_INT = optional(int, ContextError)
_BOOL = optional(bool, ContextError)
_OPT_STR = optional(str, ContextError)


def _non_negative(_instance: Any, attribute: Any, value: int | None) -> None:
    _INT(_instance, attribute, value)
    if value is not None and value < 0:
        raise ContextError(f"must be ≥ 0, got {value}", field=attribute.name)


@attrs.frozen(cache_hash=True)
class ProviderInfo:
    """The provider/model a request is for. `None` capabilities are inferred by `resolved()`.

    Fields are typed when constructed (`native_tools=1` is refused), so two equal infos are
    the same request and an info can be a cache key as it is.
    """

    provider: str = attrs.field(default="", validator=_STR)
    model: str = attrs.field(default="", validator=_STR)
    context_window: int | None = attrs.field(default=None, validator=_non_negative)
    max_output: int | None = attrs.field(default=None, validator=_non_negative)
    native_tools: bool | None = attrs.field(default=None, validator=_BOOL)
    parallel_tools: bool | None = attrs.field(default=None, validator=_BOOL)
    images: bool | None = attrs.field(default=None, validator=_BOOL)
    prompt_caching: bool | None = attrs.field(default=None, validator=_BOOL)
    cache_min_tokens: int | None = attrs.field(default=None, validator=_non_negative)
    family: str | None = attrs.field(default=None, validator=_OPT_STR)
    encoding: str | None = attrs.field(default=None, validator=_OPT_STR)
    estimated: bool | None = attrs.field(default=None, validator=_BOOL)

    @property
    def normalized_model(self) -> str:
        return normalize_model_id(self.model)

    @property
    def is_local(self) -> bool:
        return self.provider.strip().lower() in local_providers()

    def resolved(self) -> ProviderInfo:
        """Return a copy with every unknown capability filled from the model-family table.

        Not cached here: a Compiler resolves each provider once and keeps the result.
        """
        if self.family is not None and None not in (
                getattr(self, name) for name in _CAPABILITIES):
            return self
        return _resolve(self)

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> ProviderInfo:
        info: ProviderInfo = build_record(cls, data, source=source, path="provider",
                                          error=ContextError, aliases={"id": "provider"})
        return info


def encoding_for(provider: ProviderInfo) -> tuple[str, bool]:
    """(encoding name, estimated?) for a provider; unknown families count as estimated o200k."""
    info = provider.resolved()
    name = info.encoding if info.encoding in TOKEN_ENCODINGS else "o200k_base"
    return name, bool(info.estimated) or info.encoding not in TOKEN_ENCODINGS


def _resolve(info: ProviderInfo) -> ProviderInfo:
    table = model_table()
    values: dict[str, Any] = dict(table["defaults"])
    fam = _family_for(info.model, info.family)
    family = fam["id"] if fam else None
    if fam:
        values.update({k: v for k, v in fam.items() if k in _CAPABILITIES})
    if info.is_local:
        # A local server's window and tool calling are what it is configured with, not what
        # the model family offers elsewhere: the local defaults win over the family row.
        values.update({k: v for k, v in table["local"].items() if k != "providers"})
    given = {name: getattr(info, name) for name in _CAPABILITIES}
    values.update({k: v for k, v in given.items() if v is not None})
    return attrs.evolve(info, family=info.family or family or "unknown",
                        **{k: values[k] for k in _CAPABILITIES})

