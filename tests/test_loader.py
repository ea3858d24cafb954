"""Variant folders: layering, extends, overrides, and all-or-nothing errors naming the file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from promptc import (Compiler, NoVariantError, PromptContext, ProviderInfo, TemplateError,
                     ToolSpecError, VariantConfigError)
from promptc._load.folders import read_layer

from .conftest import MINI

P = ProviderInfo("x", "y")


def test_extends_inherits_and_overrides_only_what_is_set(mini: Callable[..., Compiler]) -> None:
    c = mini({
        "variants/child/variant.toml": 'extends = "base"\nfamily = "kid"\npriority = 5\n'
                                       '[match]\nmodel = ["kid"]\n',
        "variants/child/components/intro.md": "# Intro\nHello from the child.\n",
    })
    child = c.registry.get("child")
    assert child.components == ("intro", "body")
    assert child.family == "kid" and not child.fallback
    out = c.compile(ProviderInfo("x", "kid-1"), PromptContext(cwd="/w"))
    assert out.variant.id == "child"
    assert "Hello from the child." in out.text and "Working in /w." in out.text
    assert out.section("intro").origin.endswith("variants/child/components/intro.md")
    assert out.section("body").origin.endswith("components/body.md")


def test_later_folders_override_by_id_at_any_grain(tree: Callable[..., Path]) -> None:
    base = tree(MINI)
    over = tree({"variants/base/components/body.md": "# Body\nOverridden.\n"})
    c = Compiler.from_folders(base, over, builtins=False)
    out = c.compile(P, PromptContext())
    assert "Overridden." in out.text
    assert out.section("body").origin.startswith(f"folder:{over}")
    assert "Hello." in out.text  # the rest of the variant is untouched


def test_a_replacing_variant_toml_replaces_the_whole_variant(tree: Callable[..., Path]) -> None:
    base = tree(MINI)
    over = tree({"variants/base/variant.toml": 'fallback = true\ncomponents = ["intro"]\n',
                 "variants/base/template.md": "{{intro}}\n"})
    out = Compiler.from_folders(base, over, builtins=False).compile(P, PromptContext())
    assert [s.id for s in out.sections] == ["intro"]


@pytest.mark.parametrize(("files", "message"), [
    ({"variants/base/variant.toml": 'fallback = true\ncomponents = ["intro"\n'},
     r"variant\.toml:2: invalid TOML"),
    ({"variants/base/variant.toml": 'fallbak = true\n'},
     r"variant\.toml \[fallbak\]: unknown key \(did you mean 'fallback'\?\)"),
    ({"variants/base/variant.toml": 'priority = "high"\n'},
     r"variant\.toml \[priority\]: must be an integer"),
    ({"variants/base/variant.toml": 'components = ["a", "a"]\n'},
     r"\[components\]: lists 'a' twice"),
    ({"variants/base/variant.toml": 'tool_mode = "xml"\n'}, r"\[tool_mode\]"),
    ({"variants/base/variant.toml": 'id = "other"\n'}, r"\[id\]: id 'other' does not match"),
    ({"variants/base/variant.toml": 'extends = "nope"\n'},
     r"\[extends\]: extends unknown variant 'nope'"),
    ({"variants/base/variant.toml": 'extends = "base"\n'}, r"\[extends\]: circular extends"),
    ({"variants/a/variant.toml": 'extends = "b"\n', "variants/b/variant.toml": 'extends = "a"\n'},
     r"circular extends: a -> b -> a"),
    ({"variants/base/variant.toml": 'tools = ["nope"]\n'}, r"\[tools\[0\]\]: unknown tool"),
    ({"variants/base/template.md": "{{#x}}\n"}, r"template\.md:1: section \{\{#x\}\} is never"),
    ({"components/intro.md": "a\n{{> evil}}\n"}, r"intro\.md:2: partial tag"),
    ({"variants/base/variant.toml": '[match]\nmodle = ["x"]\n'}, r"\[match\.modle\]"),
    ({"variants/base/variant.toml": '[inputs.TEAM]\ntype = "choice"\n'},
     r"\[inputs\.TEAM\.type\]"),
    ({"variants/base/variant.toml": '[inputs.TEAM]\ntype = "select"\n'},
     r"\[inputs\.TEAM\.options\]: a select input needs options"),
    ({"variants/Bad Name/variant.toml": "fallback = true\n"}, r"variant folder name"),
    ({"variants/base/template.md": b"\xff\xfe{{x}}"}, r"template\.md:1: not valid UTF-8"),
    ({"components/tools/echo.toml": 'name = "other"\ndescription = "x"\n'},
     r"echo\.toml \[name\]: name 'other' does not match"),
    ({"components/tools/echo.toml": 'name = "echo"\ndescription = "x"\n[[parameters]]\n'
                                    'name = "p"\ntype = "str"\ninstruction = "i"\n'},
     r"\[parameters\[0\]\.type\]: type must be one of.*did you mean 'string'"),
])
def test_malformed_files_name_file_field_and_line(mini: Callable[..., Compiler], files: dict,
                                                  message: str) -> None:
    with pytest.raises(VariantConfigError if "tools/" not in next(iter(files))
                       else ToolSpecError, match=message):
        mini(files)


def test_template_errors_are_variant_config_errors_and_value_errors() -> None:
    assert issubclass(TemplateError, VariantConfigError)
    assert issubclass(VariantConfigError, ValueError)
    assert issubclass(NoVariantError, LookupError)


def test_nothing_is_half_registered(tree: Callable[..., Path]) -> None:
    base = tree(MINI)
    bad = tree({"variants/extra/variant.toml": 'extends = "base"\n',
                "variants/broken/variant.toml": "priority = 'x'\n"})
    with pytest.raises(VariantConfigError):
        read_layer(bad, "project")
    # the good folder alone still works, and no state leaked from the failed read
    c = Compiler.from_folders(base, builtins=False)
    assert list(c.registry.variants) == ["base"]


def test_unexpected_files_are_reported_not_silently_ignored(mini: Callable[..., Compiler]
                                                            ) -> None:
    c = mini({"variants/base/varaint.toml": "x", "components/notes.txt": "x"})
    codes = [(d.code, Path(d.source).name) for d in c.load_diagnostics]
    assert ("file-ignored", "varaint.toml") in codes
    assert ("file-ignored", "notes.txt") in codes


def test_unknown_variant_id_suggests_one(mini: Callable[..., Compiler]) -> None:
    with pytest.raises(NoVariantError, match=r"no variant 'bsae' \(did you mean 'base'\?\)"):
        mini().compile(P, PromptContext(), variant="bsae")


def test_no_match_and_no_fallback_lists_what_was_tried(mini: Callable[..., Compiler]) -> None:
    c = mini({"variants/base/variant.toml": 'components = ["intro", "body"]\n'
                                            '[match]\nprovider = ["openai"]\n'})
    with pytest.raises(NoVariantError, match=r"tried: base \(provider 'x' is not in"):
        c.compile(P, PromptContext())


def test_reserved_tool_names_need_override(tree: Callable[..., Path]) -> None:
    base = tree(MINI)
    taker = tree({"components/tools/echo.toml": 'name = "echo"\ndescription = "Mine."\n'})
    layers = [read_layer(base, "builtin"), read_layer(taker, "project")]
    with pytest.raises(ToolSpecError, match=r"echo\.toml \[name\]: tool name 'echo' is reserved"):
        Compiler.from_layers(layers)
    ok = tree({"components/tools/echo.toml": 'name = "echo"\ndescription = "Mine."\n'
                                             'override = true\n'})
    c = Compiler.from_layers([read_layer(base, "builtin"), read_layer(ok, "project")])
    assert c.registry.tools["echo"].description == "Mine."
