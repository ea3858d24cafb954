"""The features a registry knows: everything its tools and components read, and what plugins
declare, with the built-ins' descriptions (see `promptc._model.features`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from .._model.features import Feature, FeatureSet, builtin_features, feature_set
from .._model.tools import ToolSpec

__all__ = ["declared_features"]


def _tool_readers(tools: Mapping[str, ToolSpec], where: str = "") -> Iterable[Feature]:
    for name, spec in tools.items():
        for feature in sorted(spec.when.features):
            yield Feature(feature, readers=(f"tool {name}{where}",), source=spec.source)


def _component_readers(components: Mapping[str, Any]) -> Iterable[Feature]:
    for cid, comp in components.items():
        for read in sorted(comp.reads or ()):
            if read.startswith("features."):
                yield Feature(read[len("features."):], readers=(f"component {cid}",),
                              source=comp.source)


def declared_features(tools: Mapping[str, ToolSpec], components: Mapping[str, Any],
                      variants: Mapping[str, Any], declared: Iterable[Feature]) -> FeatureSet:
    """Every feature something reads (a tool's `when`, a variant's own tool, a component's
    `reads`) or a plugin declares (`declared`), described by its declaration or else by the
    built-ins' list."""
    found: list[Feature] = list(declared)
    found += _tool_readers(tools)
    for vid, variant in variants.items():
        found += _tool_readers(variant.tool_overrides, f" (variant {vid})")
    found += _component_readers(components)
    merged = feature_set(()).merged(found)
    known = builtin_features()
    return feature_set(_described(f, known) for f in merged.features.values())


def _described(feature: Feature, known: FeatureSet) -> Feature:
    if feature.description or feature.name not in known.names:
        return feature
    return attrs.evolve(feature, description=known.features[feature.name].description)
