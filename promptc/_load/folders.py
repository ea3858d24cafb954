"""Read prompt data from folders laid out like the built-ins.

A folder (the built-ins, a plugin's template folder, the user's config folder, a project's
`.promptc/`) may hold:

    variants/<id>/variant.toml          the variant (absent: the files below overlay an earlier one)
    variants/<id>/template.md           its base template
    variants/<id>/components/<cid>.md   this variant's text for one component (+ <cid>.short.md)
    variants/<id>/tools/<name>.toml     this variant's spec for one tool
    components/<cid>.md                 a component's text (+ <cid>.short.md, a shorter form)
    components/tools/<name>.toml        a tool spec

Reading is all-or-nothing per folder: any malformed file raises before anything is registered.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import attrs

from .._base.errors import VariantConfigError
from .._base.files import read_text_file, read_toml
from .._model.diagnostics import Diagnostic
from .._model.provider import FAMILY_FILE, FamilyRow, read_families
from .._model.edits import edit_files
from .._model.tools import ToolSpec, load_tool_file
from .._model.variant import ID_PATTERN, check_variant_table
from .component_defs import SHARED_TEMPLATES

__all__ = ["Layer", "RawVariant", "TextFile", "read_layer", "read_variant_folder"]


@attrs.frozen
class TextFile:
    text: str
    path: str
    source: str
    origin: str = ""  # "<source>:<path relative to the source's root>", stable across machines


def _origin(path: Path, root: Path | None, source: str) -> str:
    if root is not None:
        try:
            return f"{source}:{path.relative_to(root).as_posix()}"
        except ValueError:
            pass
    return f"{source}:{path.as_posix()}"


@attrs.frozen
class RawVariant:
    """One folder's contribution to a variant, before layering and `extends`."""

    id: str
    source: str
    folder: str
    table: dict[str, Any] | None = None  # variant.toml, when this folder defines the variant
    toml_path: str = ""
    template: TextFile | None = None
    components: dict[str, TextFile] = attrs.field(factory=dict)  # cid or cid.short -> text
    tools: dict[str, ToolSpec] = attrs.field(factory=dict)
    matcher: Any = None  # a Python matcher from a plugin, instead of [match]
    toml_origin: str = ""  # "<source>:<path of variant.toml relative to the source's root>"
    edit_files: dict[str, TextFile] = attrs.field(factory=dict)  # section edits' files, by name
    # A variant that extends its own id (a project's `generic` over the built-in one): what
    # the earlier sources made of that id, its parent.
    below: RawVariant | None = None


@attrs.frozen
class Layer:
    """Everything one source contributes."""

    source: str
    root: str
    variants: dict[str, RawVariant] = attrs.field(factory=dict)
    components: dict[str, TextFile] = attrs.field(factory=dict)
    tools: dict[str, ToolSpec] = attrs.field(factory=dict)
    notes: tuple[Diagnostic, ...] = ()
    functions: dict[str, Any] = attrs.field(factory=dict)  # cid -> Component (Python, plugins)
    features: tuple[Any, ...] = ()  # Feature records a plugin declares (promptc_features)
    families: tuple[FamilyRow, ...] = ()  # the folder's models.toml [[family]] rows


def _inside(path: Path, root: Path | None, source: str) -> None:
    """Refuse a prompt file that resolves outside its source's folder (through a symlink): the
    files of a project or plugin may only bring their own text into the prompt. The built-ins
    are the installed package itself, wherever a packager put its files."""
    if root is None or source == "builtin":
        return
    try:
        inside = path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a symlink loop
        inside = False
    if not inside:
        raise VariantConfigError(f"resolves outside its folder {str(root)!r} (a symlink to "
                                 f"{str(path.resolve(strict=False))!r}); prompt files may only "
                                 "come from inside their source folder", source=str(path))


# Data files beside the built-in component templates (the native tools' wording).
BUILTIN_DATA_FILES = frozenset({"wire.toml"})


def _sorted(folder: Path) -> list[Path]:
    return sorted(folder.iterdir(), key=lambda p: p.name) if folder.is_dir() else []


def _component_files(folder: Path, source: str, notes: list[Diagnostic],
                     root: Path | None = None) -> dict[str, TextFile]:
    out: dict[str, TextFile] = {}
    for p in _sorted(folder):
        if p.is_dir():
            if p.name != "tools":
                notes.append(Diagnostic("warning", "file-ignored",
                                        "unexpected folder (ignored)", str(p)))
            continue
        if p.suffix != ".md":
            if source == "builtin" and p.name in BUILTIN_DATA_FILES:
                continue  # read where it is used (promptc/_emit/wording.py)
            notes.append(Diagnostic("warning", "file-ignored",
                                    "not a component template (.md): ignored", str(p)))
            continue
        cid = p.name[:-3]
        base = cid[:-6] if cid.endswith(".short") else cid
        if not ID_PATTERN.match(base) or "." in base:
            raise VariantConfigError(f"component id {base!r} must be lowercase letters, digits, "
                                     "'_' or '-'", source=str(p))
        _inside(p, root, source)
        out[cid] = TextFile(read_text_file(p, VariantConfigError), str(p), source,
                            _origin(p, root, source))
    return share_templates(out)


def share_templates(files: dict[str, TextFile]) -> dict[str, TextFile]:
    """A component that shares another's template (`session_tools` renders with `tools.md`)
    gets that text too, unless the same folder gives it its own."""
    for cid, source_cid in SHARED_TEMPLATES.items():
        for suffix in ("", ".short"):
            if source_cid + suffix in files and cid + suffix not in files:
                files[cid + suffix] = files[source_cid + suffix]
    return files


def _tool_files(folder: Path, source: str, notes: list[Diagnostic],
                root: Path | None = None) -> dict[str, ToolSpec]:
    out: dict[str, ToolSpec] = {}
    for p in _sorted(folder):
        if p.suffix != ".toml" or p.is_dir():
            notes.append(Diagnostic("warning", "file-ignored", "not a tool spec (.toml): ignored",
                                    str(p)))
            continue
        _inside(p, root, source)
        out[p.stem] = load_tool_file(p, source)
    return out


_VARIANT_ENTRIES = ("variant.toml", "template.md", "components", "tools")


def read_variant_folder(folder: Path, source: str, notes: list[Diagnostic],
                        root: Path | None = None) -> RawVariant:
    vid = folder.name
    if not ID_PATTERN.match(vid):
        raise VariantConfigError(f"variant folder name {vid!r} must be a lowercase id "
                                 "(letters, digits, '_', '-', '.')", source=str(folder))
    toml_path = folder / "variant.toml"
    table = _variant_table(toml_path, vid, source, root)
    template_name = (table or {}).get("template", "template.md")
    template = _template_file(folder, template_name, table, toml_path, source, root)
    edits = _edit_files(folder, table, toml_path, source, root)
    for p in _sorted(folder):
        if p.name not in _VARIANT_ENTRIES and p.name != template_name and \
                p.name not in {name.split("/")[0] for name in edits}:
            notes.append(Diagnostic("warning", "file-ignored",
                                    "not part of a variant folder: ignored", str(p)))
    components = _component_files(folder / "components", source, notes, root)
    tools = _tool_files(folder / "tools", source, notes, root)
    if table is None and template is None and not components and not tools:
        notes.append(Diagnostic("warning", "variant-toml-missing", "variant.toml is missing: "
                                "the folder holds no variant.toml, template or component, so "
                                "it defines and changes nothing", str(folder)))
    defined = table is not None
    return RawVariant(id=vid, source=source, folder=str(folder), table=table,
                      toml_path=str(toml_path) if defined else "", template=template,
                      components=components, tools=tools,
                      toml_origin=_origin(toml_path, root, source) if defined else "",
                      edit_files=edits)


def _edit_files(folder: Path, table: dict[str, Any] | None, toml_path: Path, source: str,
                root: Path | None) -> dict[str, TextFile]:
    """The files the table's section edits name (`append_file`, `prepend_file`), read now:
    a missing one is an error naming the file and the key."""
    out: dict[str, TextFile] = {}
    for name in edit_files(table or {}):
        path = folder / name
        if not (path.exists() or path.is_symlink()):
            raise VariantConfigError(f"section edit file {name!r} not found (it is read from "
                                     "the variant's folder)", source=str(toml_path))
        _inside(path, root, source)
        out[name] = TextFile(read_text_file(path, VariantConfigError), str(path), source,
                             _origin(path, root, source))
    return out


def _variant_table(toml_path: Path, vid: str, source: str, root: Path | None
                   ) -> dict[str, Any] | None:
    """The folder's variant.toml, checked (None: the folder overlays an earlier variant)."""
    if not (toml_path.exists() or toml_path.is_symlink()):
        return None
    _inside(toml_path, root, source)
    table = read_toml(toml_path, VariantConfigError)
    check_variant_table(table, str(toml_path))
    if table.get("id", vid) != vid:
        raise VariantConfigError(f"id {table['id']!r} does not match the folder name {vid!r}",
                                 source=str(toml_path), field="id")
    return table


def _template_file(folder: Path, template_name: Any, table: dict[str, Any] | None,
                   toml_path: Path, source: str, root: Path | None) -> TextFile | None:
    """The variant's base template (`template` in variant.toml names another file in the
    folder); None when the folder has none and the table names none."""
    relative = Path(template_name)
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise VariantConfigError(f"template {template_name!r} must be a file name inside the "
                                 "variant's folder (no absolute path, no '..')",
                                 source=str(toml_path), field="template")
    tpath = folder / relative
    if tpath.exists() or tpath.is_symlink():
        _inside(tpath, root, source)
        return TextFile(read_text_file(tpath, VariantConfigError), str(tpath), source,
                        _origin(tpath, root, source))
    if table is not None and "template" in table:
        raise VariantConfigError(f"template file {template_name!r} not found", source=str(
            toml_path), field="template")
    return None


_builtin_layers: dict[str, tuple[tuple[Any, ...], Layer]] = {}


def _fingerprint(root: Path) -> tuple[Any, ...]:
    """Every file a layer reads, with its size and modification time (a stat each)."""
    out: list[tuple[Any, ...]] = []
    for top in (root / "variants", root / "components"):
        for folder, dirs, files in os.walk(top):
            dirs.sort()
            out.append((folder, None, None, None))
            for name in sorted(files):
                try:
                    info = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                out.append((folder, name, info.st_size, info.st_mtime_ns))
    return tuple(out)


def read_layer(root: Path, source: str) -> Layer:
    """Read one folder completely, or raise: nothing from it is registered half-way.

    The built-in folder is package data every Compiler in a process reads: it is parsed once
    and reused while no file under it changes (checked by size and modification time).
    """
    if source != "builtin":
        return _read_layer(root, source)
    key = str(root)
    fingerprint = _fingerprint(root)
    hit = _builtin_layers.get(key)
    if hit is not None and hit[0] == fingerprint:
        return hit[1]
    layer = _read_layer(root, source)
    _builtin_layers[key] = (fingerprint, layer)
    return layer


def _read_layer(root: Path, source: str) -> Layer:
    notes: list[Diagnostic] = []
    variants: dict[str, RawVariant] = {}
    for folder in _sorted(root / "variants"):
        if not folder.is_dir():
            notes.append(Diagnostic("warning", "file-ignored", "not a variant folder: ignored",
                                    str(folder)))
            continue
        variants[folder.name] = read_variant_folder(folder, source, notes, root)
    components = _component_files(root / "components", source, notes, root)
    tools = _tool_files(root / "components" / "tools", source, notes, root)
    return Layer(source=source, root=str(root), variants=variants, components=components,
                 tools=tools, notes=tuple(notes), families=_family_file(root, source))


def _family_file(root: Path, source: str) -> tuple[FamilyRow, ...]:
    """A folder's models.toml (the built-in families are the overlay's, not a file here)."""
    path = root / FAMILY_FILE
    if source == "builtin" or not (path.exists() or path.is_symlink()):
        return ()
    _inside(path, root, source)
    return read_families(path, f"{source} {FAMILY_FILE}")
