"""Plugins and folders add model families: a `models.toml` with `[[family]]` rows (the
overlay's form) in a plugin's template folder, the user folder or a project's `.promptc/`.
Variants match those families, and lint reports a variant matching a family nobody defines
(a plugin variant with `family = ["tiny"]` once never matched, with 0 findings)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from promptc import Compiler, ConfigError, ProviderInfo
from promptc._cli import main
from promptc._review.lint import _family_findings, lint

from .standin import compiler_with, plugin_module

FAMILY = '''[[family]]
id = "tiny"
title = "Tiny models"
patterns = ["tiny-{1..}"]
examples = ["tiny-2"]
source = "the Tiny model card"
context_window = 65536
native_tools = true
'''
VARIANT = ('family = "tiny"\nextends = "generic"\npriority = 10\n'
           '[match]\nfamily = ["tiny"]\n')
TINY = ProviderInfo("tinyco", "tiny-2")


def test_a_folder_family_routes_its_models(tree: Callable[[dict[str, str]], Path]) -> None:
    compiler = Compiler.from_folders(tree({"models.toml": FAMILY,
                                           "variants/tiny/variant.toml": VARIANT}))
    resolution = compiler.resolve(TINY)
    assert resolution.variant.id == "tiny"
    prompt = compiler.compile(TINY, {})
    assert prompt.provider.family == "tiny" and prompt.provider.context_window == 65536
    assert prompt.tools.mode == "native"  # the family's fact
    # a model of no family still goes elsewhere
    assert compiler.resolve(ProviderInfo("tinyco", "huge-2")).variant.id != "tiny"
    assert not _family_findings(compiler)


def test_a_variant_matching_a_family_nobody_defines_is_a_lint_finding(
        tree: Callable[[dict[str, str]], Path]) -> None:
    compiler = Compiler.from_folders(tree({"variants/tiny/variant.toml": VARIANT}))
    assert compiler.resolve(TINY).variant.id != "tiny"
    [finding] = [f for f in lint(compiler) if f.code == "family-unknown"]
    assert finding.level == "warning" and "'tiny'" in finding.message
    assert "variant 'tiny'" in finding.message and "models.toml" in finding.message
    typo = VARIANT.replace('["tiny"]', '["claude-5"]')
    compiler = Compiler.from_folders(tree({"variants/tiny/variant.toml": typo}))
    [finding] = _family_findings(compiler)
    assert "did you mean 'claude-4'" in finding.message


def test_builtins_match_only_defined_families(builtins: Compiler) -> None:
    assert not _family_findings(builtins)


@pytest.mark.parametrize(("text", "field"), [
    ('[[family]]\nid = "t"\npatterns = ["t-{1..}"]\nwindow = 3\nsource = "x"\n', "window"),
    ('[[family]]\nid = "t"\npatterns = []\nsource = "x"\n', "patterns"),
    ('[[model]]\nid = "t"\npatterns = ["t"]\nsource = "x"\nnative_tools = true\n', "model"),
    ('[[family]]\nid = "t"\npatterns = ["t-{1..}"]\nsource = "x"\ncontext_window = "big"\n',
     "context_window"),
    ('[[family]]\nid = "t"\npatterns = ["t"]\nsource = "x"\n'
     '[[family]]\nid = "t"\npatterns = ["u"]\nsource = "y"\n', "duplicate"),
], ids=["unknown-key", "no-patterns", "not-a-family-row", "mistyped-fact", "duplicate-id"])
def test_a_bad_models_toml_names_the_file_and_field(tree: Callable[[dict[str, str]], Path],
                                                    text: str, field: str) -> None:
    folder = tree({"models.toml": text})
    with pytest.raises(ConfigError) as info:
        Compiler.from_folders(folder)
    assert str(folder / "models.toml") in str(info.value) and field in str(info.value)


def test_a_plugin_adds_a_family(tree: Callable[[dict[str, str]], Path]) -> None:
    data = tree({"models.toml": FAMILY, "variants/tiny/variant.toml": VARIANT})
    compiler = compiler_with(tiny=plugin_module(promptc_template_folders=lambda: [data]))
    assert compiler.resolve(TINY).variant.id == "tiny"
    assert [r.id for r in compiler.registry.families] == ["tiny"]
    assert compiler.registry.families[0].source.startswith("plugin:tiny")


def test_explain_shows_the_project_family(tree: Callable[[dict[str, str]], Path],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    project = tree({"models.toml": FAMILY, "variants/tiny/variant.toml": VARIANT})
    code = main(["explain", "--no-user", "--no-plugins", "--project", str(project),
                 "--provider", "tinyco", "--model", "tiny-2", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["variant"]["id"] == "tiny"
    assert data["provider"]["family"] == "tiny"
    window = data["capabilities"]["context_window"]
    assert window["value"] == 65536 and window["source"].startswith("family tiny")
