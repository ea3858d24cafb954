"""What promptc believes about one provider/model, fact by fact, each with its source.

Every capability is laid in layers, later winning: promptc's default → the family's facts →
overlay model rows (filling gaps) → the generated table (the model's row, then the
provider's) → overlay rows marked `wins` → a local server's defaults → the client's own value.
`model_facts` keeps each value's source (for `promptc models` and `explain`);
`resolve_provider` (info.py) keeps the values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import attrs

from .capabilities import CAPABILITIES
from .data import ModelData, model_data
from .ids import normalize_model_id, normalize_provider, undated
from .overlay import Overlay
from .rows import FamilyRow
from .tables import TABLE_FIELDS, ModelTable, Row

__all__ = ["Fact", "ModelFacts", "model_facts", "capability_sources", "AskedModel"]


class AskedModel(Protocol):
    """What the facts are laid for: a ProviderInfo as the client gave it (its provider, model,
    family and each capability it states), said here so that info.py, which builds on these
    facts, is not imported back."""

    @property
    def provider(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def family(self) -> str | None: ...


@attrs.frozen
class Fact:
    """One capability's value and where it came from.

    source: `client` (the ProviderInfo said so), `local` (a local server's defaults),
    `overlay` (a hand-kept row), `table` (the generated table: LiteLLM's map),
    `family` (the family's defaults), `default` (promptc's default for unknown models).
    """

    name: str
    value: Any
    source: str
    ref: str = ""   # the map entry, overlay row or family id behind the value
    note: str = ""  # the human-readable source

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "source": self.source,
                "ref": self.ref, "note": self.note}


@attrs.frozen
class ModelFacts:
    """What promptc believes about one provider/model, fact by fact, with sources."""

    provider: str
    model: str
    normalized: str
    family: str
    family_source: str   # `client`, `rule` or `unknown`
    family_title: str
    entry: str | None    # the map entry id the table row came from, if any
    table: str           # e.g. "LiteLLM 1.110.2 (shipped, 2026-01-01)"
    facts: tuple[Fact, ...]

    def value(self, name: str) -> Any:
        return next(f.value for f in self.facts if f.name == name)

    def values(self) -> dict[str, Any]:
        """{capability: value}, in CAPABILITIES order."""
        return {f.name: f.value for f in self.facts}

    def to_dict(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.model, "normalized": self.normalized,
                "family": {"id": self.family, "title": self.family_title,
                           "source": self.family_source},
                "entry": self.entry, "table": self.table,
                "capabilities": {f.name: {"value": f.value, "source": f.source, "ref": f.ref,
                                          "note": f.note} for f in self.facts}}


Facts = dict[str, Fact]  # the layers so far: one fact per capability, the latest winning


def model_facts(info: AskedModel, families: Sequence[FamilyRow] = (),
                user: bool = True) -> ModelFacts:
    """Every capability of `info` with its value and source, in the layers the module names.
    `families`: from plugins and folders, tried before the overlay's; `user`: whether the
    user's model table may be read.

    Pass the ProviderInfo as the client gave it (not `.resolved()`: every value of a resolved
    info looks given by the client).
    """
    data = model_data(user)
    overlay = data.overlay
    normalized = normalize_model_id(info.model)
    tokens = tuple(normalized.split("-")) if normalized else ()
    provider = overlay.provider_key(info.provider)
    starts = overlay.starts(tokens)
    rule = _matching_family(tokens, starts, families, overlay)
    named = _named_family(info.family, families, overlay)
    rows = _model_rows(overlay, tokens, starts, provider)
    facts = _default_facts(overlay)
    _lay_family(facts, named or rule)
    _lay_rows(facts, rows, wins=False)
    entry = _lay_table(facts, data, tokens, provider)
    _lay_rows(facts, rows, wins=True)
    _lay_local(facts, info, overlay)
    _lay_client(facts, info)
    family, family_source, title = _family_of(info, named, rule)
    return ModelFacts(provider=info.provider, model=info.model, normalized=normalized,
                      family=family, family_source=family_source, family_title=title,
                      entry=entry, table=data.label,
                      facts=tuple(facts[name] for name in CAPABILITIES))


def _matching_family(tokens: tuple[str, ...], starts: Sequence[int],
                     extra: Sequence[FamilyRow], overlay: Overlay) -> FamilyRow | None:
    """The first family whose pattern matches: `extra`'s, then the overlay's."""
    if not tokens:
        return None
    return next((r for r in extra if r.matches(tokens, starts)), None) or \
        overlay.family_for(tokens, starts)


def _named_family(family: str | None, extra: Sequence[FamilyRow], overlay: Overlay
                  ) -> FamilyRow | None:
    """The family the client named, by id or alias: `extra`'s, then the overlay's."""
    if not family:
        return None
    return next((r for r in extra if r.id == family or family in r.aliases), None) or \
        overlay.family_by_id(family)


def _family_of(info: AskedModel, named: FamilyRow | None, rule: FamilyRow | None
               ) -> tuple[str, str, str]:
    """(family id, where it came from, its title)."""
    if info.family:
        return info.family, "client", named.title if named else info.family
    if rule is not None:
        return rule.id, "rule", rule.title
    return "unknown", "unknown", "no family rule matches"


def _default_facts(overlay: Overlay) -> Facts:
    return {name: Fact(name, value, "default", "defaults", overlay.defaults_source)
            for name, value in overlay.defaults.items()}


def _lay_family(facts: Facts, family: FamilyRow | None) -> None:
    if family is None:
        return
    note = f"{family.title}: {family.source}"
    for name, value in family.facts.items():
        facts[name] = Fact(name, value, "family", family.id, note)


def _model_rows(overlay: Overlay, tokens: tuple[str, ...], starts: Sequence[int],
                provider: str) -> list[FamilyRow]:
    """The overlay's model rows for this id and provider, in file order."""
    if not tokens:
        return []
    return [r for r in overlay.models if r.matches(tokens, starts, provider)]


def _lay_rows(facts: Facts, rows: Iterable[FamilyRow], *, wins: bool) -> None:
    """The facts of the rows that fill gaps (`wins` False) or correct the table (True)."""
    for row in rows:
        if row.wins != wins:
            continue
        for name, value in row.facts.items():
            facts[name] = Fact(name, value, "overlay", row.id, row.source)


def _lay_table(facts: Facts, data: ModelData, tokens: tuple[str, ...], provider: str
               ) -> str | None:
    """Lay the table's facts for the model over `facts`; return the entry that gave them.

    With a row of its own, the provider's facts are that row's differences over the model's
    row and the rest of it: all of them are the provider's. A reseller's row (see
    `_reseller`) only fills what is still a default."""
    base, own = _lookup(data.table, tokens, provider) if tokens else (None, None)
    if base is None:
        return None
    entry: str = own[0] if own is not None else base[0]
    reseller = _reseller(base, own, provider, data.overlay)
    if reseller is None:
        _lay_table_row(facts, base, entry, data.label, weak=False)
    else:
        _lay_table_row(facts, base, entry, f"{data.label}; another provider's row ({reseller}), "
                       "used only where no family or overlay row gives a value", weak=True)
    if own is not None:
        _lay_table_row(facts, own, entry, data.label, weak=False)
    return entry


def _lay_table_row(facts: Facts, row: Row, entry: str, note: str, *, weak: bool) -> None:
    """A table row's known values over `facts` (`weak`: only over promptc's defaults)."""
    for name, value in zip(TABLE_FIELDS, row[1:]):
        if value is not None and not (weak and facts[name].source != "default"):
            facts[name] = Fact(name, value, "table", entry, note)


def _lookup(table: ModelTable, tokens: tuple[str, ...], provider: str
            ) -> tuple[Row | None, Row | None]:
    """(model row, provider row): the exact id, else the id without its release date."""
    base, extra = table.row("-".join(tokens), provider)
    if base is None:
        short = undated(tokens)
        if short != tokens:
            base, extra = table.row("-".join(short), provider)
    return base, extra


def _reseller(base: Row, own: Row | None, provider: str, overlay: Overlay) -> str | None:
    """The provider whose row stands in for the model when the request's provider has none of
    its own and the row is neither the maker's (a first-party API, or LiteLLM's unprefixed
    key) nor the request's provider's: a reseller whose API may differ (Replicate's
    gemini-3-pro has no function calling). None when the row is the model's own."""
    if own is not None or "/" not in base[0]:
        return None
    owner = overlay.provider_key(base[0].split("/", 1)[0])
    return None if owner == provider or owner in overlay.first_party else owner


def _lay_local(facts: Facts, info: AskedModel, overlay: Overlay) -> None:
    local = normalize_provider(info.provider)
    if local in overlay.local_providers:
        for name, value in overlay.local.items():
            facts[name] = Fact(name, value, "local", local, overlay.local_source)


def _lay_client(facts: Facts, info: AskedModel) -> None:
    for name in CAPABILITIES:
        given = getattr(info, name)
        if given is not None:
            facts[name] = Fact(name, given, "client", "", "given in the ProviderInfo")


def capability_sources(info: AskedModel, families: Sequence[FamilyRow] = (),
                       user: bool = True) -> dict[str, tuple[Any, str]]:
    """{capability: (value, "source ref — note")} for `explain`, in CAPABILITIES order, e.g.
    `"table claude-sonnet-4-5 — LiteLLM 1.110.2 (shipped, 2026-12-02)"`, `"client — given in
    the ProviderInfo"`, `"default — promptc's defaults …"`. Pass the ProviderInfo as the client
    gave it, not `.resolved()`."""
    out: dict[str, tuple[Any, str]] = {}
    for f in model_facts(info, families, user).facts:
        where = f.source + (f" {f.ref}" if f.ref and f.source != "default" else "")
        out[f.name] = (f.value, f"{where} — {f.note}" if f.note else where)
    return out
