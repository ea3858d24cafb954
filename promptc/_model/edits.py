"""Section edits: a variant changes one section of what it extends without copying it.

In `variant.toml`:

    [component.policies]
    append = "Never promise a refund before the order is found."   # literal text
    prepend_file = "policies-intro.md"   # a template beside variant.toml, rendered like the section

    [component.tone]
    remove = true                         # the section is left out

An edit applies when its section renders: the added text goes before or after the section's
own (a blank line between), and a section that renders empty stays empty. Edits stack down an
`extends` chain, the parent's first; replacing a section's whole text stays the component file
of the same id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from .._base.errors import VariantConfigError
from .._text.template import Template

__all__ = ["SectionEdit", "EDIT_KEYS", "EditSpec", "edit_specs", "edit_files"]

EditKind = Literal["remove", "prepend", "append"]

# key in [component.<id>] -> (the edit it makes, whether its value names a file)
EDIT_KEYS: dict[str, tuple[EditKind, bool]] = {
    "remove": ("remove", False), "prepend": ("prepend", False), "append": ("append", False),
    "prepend_file": ("prepend", True), "append_file": ("append", True),
}


@attrs.frozen
class SectionEdit:
    """One edit of one section, and where it was written (`origin`, shown by `explain`)."""

    component: str
    kind: EditKind
    origin: str
    text: str = ""  # literal text (prepend/append)
    template: Template | None = None  # a file's template (prepend_file/append_file)
    file: str = ""  # where that template came from

    def to_dict(self) -> dict[str, Any]:
        return {"component": self.component, "kind": self.kind, "origin": self.origin,
                "file": self.file or None}


@attrs.frozen
class EditSpec:
    """An edit as `variant.toml` writes it, before any file is read."""

    component: str
    kind: EditKind
    key: str
    value: str  # the literal text, or the file's name ("" for remove)

    @property
    def is_file(self) -> bool:
        return EDIT_KEYS[self.key][1]


def _spec(cid: str, key: str, value: Any, source: str) -> EditSpec | None:
    kind, is_file = EDIT_KEYS[key]
    field = f"component.{cid}.{key}"
    if kind == "remove":
        if not isinstance(value, bool):
            raise VariantConfigError("must be true or false", source=source, field=field)
        return EditSpec(cid, kind, key, "") if value else None
    if not isinstance(value, str):
        raise VariantConfigError("must be a string", source=source, field=field)
    if is_file:
        _check_file_name(value, source, field)
    return EditSpec(cid, kind, key, value)


def _check_file_name(name: str, source: str, field: str) -> None:
    parts = name.replace("\\", "/").split("/")
    if not name or name.startswith("/") or ".." in parts or ":" in parts[0]:
        raise VariantConfigError(f"{name!r} must be a file name inside the variant's folder "
                                 "(no absolute path, no '..')", source=source, field=field)


def edit_specs(table: Mapping[str, Any], source: str) -> tuple[EditSpec, ...]:
    """The edits of a variant table's `[component.<id>]` tables, in the order written (the
    tables' other keys, the budget settings, are checked elsewhere)."""
    out: list[EditSpec] = []
    for cid, spec in (table.get("component") or {}).items():
        if not isinstance(spec, Mapping):
            continue  # parse_component_settings names it
        removing = spec.get("remove") is True
        for key, value in spec.items():
            if key not in EDIT_KEYS:
                continue
            edit = _spec(cid, key, value, source)
            if edit is not None:
                out.append(edit)
        if removing and any(k in spec for k in EDIT_KEYS if k != "remove"):
            raise VariantConfigError("removes the section and also adds text to it; keep one",
                                     source=source, field=f"component.{cid}")
    return tuple(out)


def edit_files(table: Mapping[str, Any]) -> tuple[str, ...]:
    """The file names a variant table's edits read (`prepend_file`, `append_file`)."""
    names = []
    for spec in (table.get("component") or {}).values():
        if isinstance(spec, Mapping):
            names += [v for k, v in spec.items() if k in EDIT_KEYS and EDIT_KEYS[k][1]
                      and isinstance(v, str)]
    return tuple(dict.fromkeys(names))
