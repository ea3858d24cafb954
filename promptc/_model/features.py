"""Feature switches: the names a context's `features` table may use, and who reads each one.

A feature is a boolean the client sets (`"browser": true`). The set of known features is
declared by what reads them: a tool's `[when] feature = …`, a component's `reads` entry
`features.<name>`, a plugin's `promptc_features` hook. A Compiler holds the set of everything
it loaded; a context loaded without one knows the built-ins' (`promptc/_data/features.toml`,
which also holds their descriptions for `promptc help context`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from .._base.errors import ConfigError
from .._base.files import read_toml
from .._base.suggest import did_you_mean

__all__ = ["Feature", "FeatureSet", "builtin_features", "feature_set", "FEATURES_FILE"]

FEATURES_FILE = Path(__file__).resolve().parent.parent / "_data" / "features.toml"


@attrs.frozen
class Feature:
    """A feature switch: its name, what it does, and what reads it (filled in at load)."""

    name: str = attrs.field(validator=attrs.validators.instance_of(str))
    description: str = attrs.field(default="", validator=attrs.validators.instance_of(str))
    readers: tuple[str, ...] = ()  # "tool browser_action", "component capabilities", …
    source: str = ""  # where it was first declared: builtin, plugin:NAME, user, project


@attrs.frozen
class FeatureSet:
    """The known features by name (sorted), frozen."""

    features: Mapping[str, Feature]
    names: frozenset[str]

    def get(self, name: str) -> Feature:
        try:
            return self.features[name]
        except KeyError:
            raise KeyError(self.problem(name)) from None

    def unknown(self, names: Iterable[str]) -> list[str]:
        return sorted(n for n in names if n not in self.names)

    def problem(self, name: str) -> str:
        """Why `name` is refused, with a did-you-mean and the known names."""
        known = ", ".join(sorted(self.names)) or "none"
        return f"unknown feature {name!r}{did_you_mean(name, self.names)} (known: {known})"

    def merged(self, more: Iterable[Feature]) -> FeatureSet:
        """This set plus `more`: a name declared twice keeps its first description and
        source and gathers every reader."""
        out = dict(self.features)
        for f in more:
            had = out.get(f.name)
            if had is None:
                out[f.name] = f
                continue
            readers = had.readers + tuple(r for r in f.readers if r not in had.readers)
            out[f.name] = attrs.evolve(had, description=had.description or f.description,
                                       readers=readers, source=had.source or f.source)
        return feature_set(out.values())


def feature_set(features: Iterable[Feature]) -> FeatureSet:
    by_name = {f.name: f for f in sorted(features, key=lambda f: f.name)}
    return FeatureSet(by_name, frozenset(by_name))


@functools.cache
def builtin_features() -> FeatureSet:
    """The features the built-in prompts read, with their descriptions (read once)."""
    data: dict[str, Any] = read_toml(FEATURES_FILE, ConfigError)
    features = []
    for name, table in data.items():
        if not isinstance(table, Mapping) or not isinstance(table.get("description"), str):
            raise ConfigError("needs a `description` string", source=str(FEATURES_FILE),
                              field=name)
        features.append(Feature(name, table["description"], source="builtin"))
    return feature_set(features)
