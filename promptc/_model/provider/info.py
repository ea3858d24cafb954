"""ProviderInfo: which model a request goes to, and what that model can do.

A client gives the provider and model ids and whatever capabilities it knows; `resolved()`
fills in the rest from the model data (facts.py says in which order).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from ..._base.errors import ContextError
from ..._base.record_builder import build_record, optional, text
from .capabilities import CAPABILITIES, TOKEN_ENCODINGS
from .data import local_providers
from .facts import model_facts
from .ids import normalize_model_id, normalize_provider
from .rows import FamilyRow

__all__ = ["ProviderInfo", "resolve_provider", "encoding_for"]

_STR = text(ContextError)
_INT = optional(int, ContextError)
_BOOL = optional(bool, ContextError)
_OPT_STR = optional(_STR, ContextError)


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
    reasoning: bool | None = attrs.field(default=None, validator=_BOOL)
    responses_only: bool | None = attrs.field(default=None, validator=_BOOL)
    knowledge_cutoff: str | None = attrs.field(default=None, validator=_OPT_STR)
    cache_tools: bool | None = attrs.field(default=None, validator=_BOOL)

    @property
    def normalized_model(self) -> str:
        return normalize_model_id(self.model)

    @property
    def is_local(self) -> bool:
        return normalize_provider(self.provider) in local_providers()

    def resolved(self) -> ProviderInfo:
        """Return a copy with every unknown capability filled from the model data.

        Not cached here: a Compiler resolves each provider once and keeps the result.
        """
        return resolve_provider(self)

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> ProviderInfo:
        info: ProviderInfo = build_record(cls, data, source=source, path="provider",
                                          error=ContextError, aliases={"id": "provider"})
        return info


def resolve_provider(info: ProviderInfo, families: Sequence[FamilyRow] = (),
                     user: bool = True) -> ProviderInfo:
    """`info` with every unknown capability filled from the model data, `families` (from
    plugins and folders) tried before the built-in ones, the user's model table only when
    `user`."""
    if info.family is not None and None not in (getattr(info, name) for name in CAPABILITIES):
        return info
    facts = model_facts(info, families, user)
    return attrs.evolve(info, family=facts.family, **facts.values())


def encoding_for(provider: ProviderInfo) -> tuple[str, bool]:
    """(encoding name, estimated?) for a provider; unknown families count as estimated o200k."""
    info = provider.resolved()
    name = info.encoding if info.encoding in TOKEN_ENCODINGS else "o200k_base"
    return name, bool(info.estimated) or info.encoding not in TOKEN_ENCODINGS
