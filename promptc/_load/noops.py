"""Overrides that cannot take effect: a later folder's shared file that a variant never uses,
because the variant's own file from an earlier folder wins.

A variant's own text (`variants/<id>/components/<cid>.md`) and tool spec
(`variants/<id>/tools/<name>.toml`) take precedence over the shared ones (`components/…`), in
whichever folder they are. So `.promptc/components/working_style.md` changes every variant that
uses the shared text, but not native-next-gen, whose built-in folder has its own. Each such
pair is a warning naming the file, the variant and what wins, so the override is never a
silent no-op.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from .._model.diagnostics import Diagnostic
from .._model.variant import Variant
from .folders import Layer

__all__ = ["unused_overrides", "CODE"]

CODE = "override-unused"


def _layer_of(origin: str, sources: Sequence[str]) -> int:
    """The index of the layer an origin (`<source>:<path>`) came from; -1 when unknown."""
    best, at = -1, -1
    for i, source in enumerate(sources):
        if origin.startswith(source + ":") and len(source) > best:
            best, at = len(source), i
    return at


def _finding(path: str, vid: str, own: str, fix: str) -> Diagnostic:
    return Diagnostic("warning", CODE,
                      f"{path} does not change variant {vid!r}: its own {own} wins; to change "
                      f"it there, put the file at {fix}", path)


def unused_overrides(layers: Sequence[Layer], variants: Mapping[str, Variant]
                     ) -> list[Diagnostic]:
    sources = [layer.source for layer in layers]
    out: list[Diagnostic] = []
    for i, layer in enumerate(layers):
        root = Path(layer.root) if layer.root else Path(".")
        for vid, variant in variants.items():
            out += _hidden_components(layer, i, root, sources, vid, variant)
            out += _hidden_tools(layer, i, root, sources, vid, variant)
    return out


def _hidden_components(layer: Layer, index: int, root: Path, sources: Sequence[str], vid: str,
                       variant: Variant) -> list[Diagnostic]:
    out = []
    for cid in variant.components:
        text = layer.components.get(cid)
        own = variant.origins.get(f"component:{cid}")
        if text is not None and own and _layer_of(own, sources) < index:
            fix = root / "variants" / vid / "components" / f"{cid}.md"
            out.append(_finding(text.path, vid, own, str(fix)))
    return out


def _hidden_tools(layer: Layer, index: int, root: Path, sources: Sequence[str], vid: str,
                  variant: Variant) -> list[Diagnostic]:
    out = []
    for name in variant.tools:
        spec, own = layer.tools.get(name), variant.tool_overrides.get(name)
        if spec is None or own is None or own.source not in sources:
            continue
        if sources.index(own.source) < index:
            fix = root / "variants" / vid / "tools" / f"{name}.toml"
            out.append(_finding(spec.origin or name, vid, own.origin or name, str(fix)))
    return out
