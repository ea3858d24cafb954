"""`promptc new-variant`: write a variant folder that extends another and renders the same."""

from __future__ import annotations

from pathlib import Path

from .._base.errors import ConfigError, NoVariantError
from .._base.files import read_text_file, write_text_file
from .._compile.compiler import Compiler
from .._load.sources import find_project_folder
from .._model.variant import ID_PATTERN, Variant

__all__ = ["new_variant", "prompt_folder_of", "SCAFFOLD_TOML"]

# The commented variant.toml a new variant starts from (data, shipped in the wheel; its
# `{id}`, `{base}`, `{family}`, `{components}` and `{tools}` are filled in with str.format).
# Everything but `extends` is commented out, so the new variant inherits all of its base and
# renders exactly like it until edited.
SCAFFOLD_TOML = Path(__file__).resolve().parent.parent / "_data" / "new_variant" / "variant.toml"


def new_variant(compiler: Compiler, variant_id: str, base: str, folder: Path | None = None,
                force: bool = False) -> Path:
    """Write `<folder>/variants/<id>/variant.toml`; return its path."""
    if not ID_PATTERN.match(variant_id) or "/" in variant_id:
        raise ConfigError(f"variant id {variant_id!r} must be lowercase letters, digits, '_', "
                          "'-' or '.'", field="id")
    parent = _base_of(compiler, base)
    _check_id_free(compiler, variant_id, force)
    root = folder if folder is not None else prompt_folder_of(compiler)
    target = root / "variants" / variant_id / "variant.toml"
    if (target.exists() or target.is_symlink()) and not force:
        raise ConfigError("already exists; pass --force to overwrite", source=str(target))
    scaffold = read_text_file(SCAFFOLD_TOML, ConfigError)
    write_text_file(target, scaffold.format(
        id=variant_id, base=base, family=parent.family,
        components=_toml_list(parent.components), tools=_toml_list(parent.tools)),
        root, ConfigError)
    return target


def prompt_folder_of(compiler: Compiler) -> Path:
    """Where a new variant goes (`new-variant --from` and `--copy`): the project's prompt
    folder (its project file's `folder`), else the nearest `.promptc/`, else a new one here."""
    project = compiler.project
    if project.folder is not None:
        return project.folder
    if project.root is not None:
        return project.root / ".promptc"
    return find_project_folder(Path.cwd()) or Path.cwd() / ".promptc"


def _base_of(compiler: Compiler, base: str) -> Variant:
    """The variant the new one extends (an unknown id is the `from` argument's fault)."""
    try:
        return compiler.registry.get(base)
    except NoVariantError as exc:
        raise ConfigError(exc.message, field="from") from None


def _check_id_free(compiler: Compiler, variant_id: str, force: bool) -> None:
    """No registered variant has the new id (unless `force`)."""
    if variant_id in compiler.registry.variants and not force:
        raise ConfigError(f"a variant {variant_id!r} already exists "
                          f"({compiler.registry.variants[variant_id].source}); pick another id "
                          "or pass --force", field="id")


def _toml_list(items: tuple[str, ...]) -> str:
    return "[" + ", ".join(f'"{i}"' for i in items) + "]"
