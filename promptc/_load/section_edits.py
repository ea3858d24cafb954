"""A variant's section edits resolved (see promptc/_model/edits.py): which sections it keeps,
and the edits of each, its parent's first, with their file templates parsed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._base.errors import VariantConfigError
from .._base.suggest import did_you_mean
from .._model.edits import EditSpec, SectionEdit, edit_specs
from .._text.template import parsed_template
from .folders import RawVariant

__all__ = ["sections_of"]


def sections_of(raw: RawVariant, listed: tuple[str, ...],
                inherited: Mapping[str, tuple[SectionEdit, ...]],
                inherited_removed: tuple[str, ...], table: Mapping[str, Any], src: str
                ) -> tuple[tuple[str, ...], dict[str, tuple[SectionEdit, ...]],
                           tuple[str, ...]]:
    """The variant's components after its edits (`listed`: its own list, else its
    parent's), the edits of each section, and the sections removed along the chain. An
    edit naming a section that is not listed is an error naming the field."""
    edits: dict[str, list[SectionEdit]] = {cid: list(e) for cid, e in inherited.items()}
    removed = [cid for cid in inherited_removed if cid not in listed]
    for spec in edit_specs(table, src):
        if spec.component not in listed:
            raise VariantConfigError(
                f"edits section {spec.component!r}, which is not in the variant's components "
                f"({', '.join(listed) or 'none'})" + did_you_mean(spec.component, listed),
                source=src, field=f"component.{spec.component}.{spec.key}")
        edits.setdefault(spec.component, []).append(_edit_of(raw, spec, src))
        if spec.kind == "remove":
            removed.append(spec.component)
    components = tuple(cid for cid in listed if cid not in removed)
    kept = {cid: tuple(e for e in found if (e.kind == "remove") == (cid in removed))
            for cid, found in edits.items() if cid in components or cid in removed}
    return components, {cid: e for cid, e in kept.items() if e}, tuple(dict.fromkeys(removed))


def _edit_of(raw: RawVariant, spec: EditSpec, src: str) -> SectionEdit:
    """One section edit, its file's template parsed (a syntax error names the file)."""
    origin = f"{raw.toml_origin or src} [component.{spec.component}] {spec.key}"
    if not spec.is_file:
        return SectionEdit(spec.component, spec.kind, origin, spec.value)
    text = raw.edit_files.get(spec.value)
    if text is None:
        raise VariantConfigError("a section edit file is read from the variant's folder; "
                                 "this variant has none (write the text in `append`/"
                                 "`prepend`)", source=src,
                                 field=f"component.{spec.component}.{spec.key}")
    return SectionEdit(spec.component, spec.kind, origin, template=parsed_template(
        text.text, text.path), file=text.origin or text.path)
