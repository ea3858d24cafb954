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
        for cid, text in layer.components.items():
            if cid.endswith(".short"):
                continue
            for vid, v in variants.items():
                own = v.origins.get(f"component:{cid}")
                if cid in v.components and own and _layer_of(own, sources) < i:
                    out.append(_finding(text.path, vid, own, str(
                        root / "variants" / vid / "components" / f"{cid}.md")))
        for name, spec in layer.tools.items():
            for vid, v in variants.items():
                own_spec = v.tool_overrides.get(name)
                if name in v.tools and own_spec is not None and \
                        own_spec.source in sources and sources.index(own_spec.source) < i:
                    out.append(_finding(spec.origin or name, vid, own_spec.origin or name, str(
                        root / "variants" / vid / "tools" / f"{name}.toml")))
    return out
