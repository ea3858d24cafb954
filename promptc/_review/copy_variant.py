"""`promptc new-variant ID --copy FROM`: a variant's files copied, not extended.

The copy is self-contained and renders as the original does: its variant.toml holds everything
the original had through its `extends` chain (but no `[match]`: a copy is used by id until its
author says otherwise), its section edits included, its own template and per-variant component
and tool files. Copied from a pack the destination does not load (a built-in into a project
without built-ins), the shared components and tools it uses come too, into the destination's
`components/`, where no file of the same name is there already. It goes to the project's prompt
folder unless told otherwise.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._base.errors import ConfigError
from .._base.files import write_text_file
from .._base.frozen import thaw
from .._base.suggest import did_you_mean
from .._compile.compiler import Compiler
from .._compile.dynamic import NOTE
from .._model.edits import SectionEdit
from .._model.inputs import InputSpec
from .._model.variant import ID_PATTERN, Variant
from .scaffold import prompt_folder_of

__all__ = ["copy_variant"]


def _value(value: Any) -> str:
    """A TOML value for plain data (strings in JSON's escapes, which TOML's basic strings
    share; tables inline)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{json.dumps(str(k), allow_nan=False)} = {_value(v)}"
                                for k, v in value.items()) + " }"
    raise ConfigError(f"cannot write {type(value).__name__} as TOML")


_INPUT_DEFAULTS = InputSpec(name="x")
_INPUT_FIELDS = ("type", "required", "default", "example", "label", "description", "trusted",
                 "pattern", "max_length", "multiline", "allow_empty", "options", "min", "max",
                 "max_items", "schema")


def _input_table(spec: InputSpec) -> list[str]:
    lines = [f"\n[inputs.{spec.name}]"]
    for key in _INPUT_FIELDS:
        value = getattr(spec, key)
        if value != getattr(_INPUT_DEFAULTS, key) or key == "type":
            lines.append(f"{key} = {_value(thaw(value))}")
    return lines


def _variant_toml(v: Variant, from_id: str) -> str:
    lines = [f"# copied from variant {from_id!r} ({v.source}); used only by id until it has a "
             "[match] table", f"family = {_value(v.family)}"]
    if v.description:
        lines.append(f"description = {_value(v.description)}")
    if v.tool_mode != "auto":
        lines.append(f"tool_mode = {_value(v.tool_mode)}")
    # a section an edit removed stays listed, removed again (the template still places it)
    lines += [f"components = {_value((*v.components, *v.removed))}",
              f"tools = {_value(v.tools)}"]
    if v.labels:
        lines.append(f"labels = {_value(v.labels)}")
    if v.placeholders:
        lines.append("\n[placeholders]")
        lines += [f"{name} = {_value(text)}" for name, text in v.placeholders.items()]
    edits = _edit_keys(v)
    for cid in dict.fromkeys((*v.component_settings, *edits)):
        settings = v.component_settings.get(cid)
        table = {k: getattr(settings, k) for k in ("priority", "required")
                 if settings is not None and getattr(settings, k) is not None}
        table.update(edits.get(cid, {}))
        if table:
            lines.append(f"\n[component.{cid}]")
            lines += [f"{k} = {_value(value)}" for k, value in table.items()]
    for spec in v.inputs:
        lines += _input_table(spec)
    return "\n".join(lines) + "\n"


def _edit_file(cid: str, kind: str) -> str:
    """The copy's name for the template file of one section's prepend or append."""
    return f"{cid}.{kind}.md"


def _stacked(v: Variant, cid: str, kind: str) -> tuple[SectionEdit, ...]:
    """The prepends or appends of one section, down the chain (the parent's first); more
    than one with a file among them cannot be one key of one table."""
    found = tuple(e for e in v.edits.get(cid, ()) if e.kind == kind)
    if len(found) > 1 and any(e.template is not None for e in found):
        where = "; ".join(e.origin for e in found)
        raise ConfigError(f"section {cid!r} of variant {v.id!r} has {len(found)} stacked "
                          f"{kind} edits, one of them from a file ({where}): a copy cannot "
                          "hold them in one key; extend the variant instead (--from)",
                          field="copy")
    return found


def _edit_keys(v: Variant) -> dict[str, dict[str, Any]]:
    """Each edited section's keys in the copy: `remove`, or its prepend and append (the
    literal texts of a chain joined as the build joins them; a file's template as a file of
    the copy, `_own_files`)."""
    out: dict[str, dict[str, Any]] = {cid: {"remove": True} for cid in v.removed}
    for cid in v.edits:
        if cid in v.removed:
            continue
        for kind in ("prepend", "append"):
            found = _stacked(v, cid, kind)
            if len(found) == 1 and found[0].template is not None:
                out.setdefault(cid, {})[f"{kind}_file"] = _edit_file(cid, kind)
                continue
            texts = [e.text.strip("\n") for e in found if e.text.strip()]
            if texts:  # each prepend goes before what came before it
                out.setdefault(cid, {})[kind] = "\n\n".join(
                    reversed(texts) if kind == "prepend" else texts)
    return out


def _source_variant(compiler: Compiler, from_id: str) -> tuple[Variant, Compiler]:
    """The variant to copy, from the destination's sources, else from the built-in pack."""
    if from_id in compiler.registry.variants:
        return compiler.registry.variants[from_id], compiler
    builtins = Compiler.builtins()
    if from_id in builtins.registry.variants:
        return builtins.registry.variants[from_id], builtins
    raise ConfigError(f"unknown variant {from_id!r}" +
                      did_you_mean(from_id, [*compiler.registry.variants,
                                             *builtins.registry.variants]), field="copy")


def _read(path: str) -> str | None:
    file = Path(path)
    return file.read_text(encoding="utf-8") if path and file.is_file() else None


def _shared_files(v: Variant, pack: Compiler, compiler: Compiler) -> dict[str, str]:
    """The components and tools the variant uses that the destination lacks: relative path
    (under the destination folder) -> text."""
    out: dict[str, str] = {}
    # the environment note is read by id, not listed: it comes along so that the copy is sent
    # split as the original is (see promptc/_compile/dynamic.py)
    for cid in (*v.components, *v.removed, NOTE):
        comp = pack.registry.components.get(cid)
        if cid in compiler.registry.components or comp is None or comp.template is None:
            continue
        # also where the variant has its own text: the shared one registers the component
        # (a built-in id brings its built-in data with it)
        out[f"components/{cid}.md"] = comp.template
        if comp.short_template is not None:
            out[f"components/{cid}.short.md"] = comp.short_template
    for name in v.tools:
        spec = pack.registry.tools.get(name)
        text = _read(spec.origin) if spec is not None and name not in v.tool_overrides else None
        if text is not None and name not in compiler.registry.tools:
            out[f"components/tools/{name}.toml"] = text
    return out


def _own_files(v: Variant, from_id: str) -> dict[str, str]:
    """The variant folder's files: variant.toml, template.md, its components and tools."""
    out = {"variant.toml": _variant_toml(v, from_id), "template.md": v.template.text}
    for cid, template in v.component_templates.items():
        out[f"components/{cid}.md"] = template.text
    for cid, edits in v.edits.items():
        for edit in edits:
            if edit.template is not None and edit.kind != "remove":
                out[_edit_file(cid, edit.kind)] = edit.template.text
    for name, spec in v.tool_overrides.items():
        text = _read(spec.origin)
        if text is None:
            raise ConfigError(f"tool {name!r} of variant {from_id!r} has no file to copy "
                              f"({spec.origin or 'defined in code'})", field="copy")
        out[f"tools/{name}.toml"] = text
    return out


def copy_variant(compiler: Compiler, variant_id: str, from_id: str,
                 folder: Path | None = None, force: bool = False) -> list[Path]:
    """Write a copy of `from_id` as `<folder>/variants/<variant_id>/`; return the files
    written (the variant's, then the shared components and tools it brought)."""
    if not ID_PATTERN.match(variant_id) or "/" in variant_id:
        raise ConfigError(f"variant id {variant_id!r} must be lowercase letters, digits, '_', "
                          "'-' or '.'", field="id")
    if variant_id in compiler.registry.variants and not force:
        raise ConfigError(f"a variant {variant_id!r} already exists "
                          f"({compiler.registry.variants[variant_id].source}); pick another id "
                          "or pass --force", field="id")
    v, pack = _source_variant(compiler, from_id)
    root = folder if folder is not None else prompt_folder_of(compiler)
    home = root / "variants" / variant_id
    if home.exists() and not force:
        raise ConfigError("already exists; pass --force to overwrite", source=str(home))
    written = []
    for rel, text in _own_files(v, from_id).items():
        write_text_file(home / rel, text, root, ConfigError)
        written.append(home / rel)
    for rel, text in _shared_files(v, pack, compiler).items():
        if not (root / rel).exists():
            write_text_file(root / rel, text, root, ConfigError)
            written.append(root / rel)
    return written
