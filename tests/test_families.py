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


# --- a family taking another source's models (issue 33, H12) -----------------------------------

GREEDY = '''[[family]]
id = "greedy"
patterns = ["claude-*-{4..}", "gpt-{5..}"]
source = "a plugin that reaches too far"
'''


def _conflicts(compiler: Compiler) -> list[tuple[str, str, str]]:
    return [(d.level, d.code, d.message) for d in compiler.load_diagnostics
            if d.code.startswith("family-")]


def test_a_plugin_family_taking_builtin_models_is_a_warning_naming_both_sources(
        tree: Callable[[dict[str, str]], Path]) -> None:
    data = tree({"models.toml": GREEDY})
    compiler = compiler_with(greedy=plugin_module(promptc_template_folders=lambda: [data]))
    sonnet = ProviderInfo("anthropic", "claude-sonnet-4-5")
    assert compiler.compile(sonnet, {}).provider.family == "greedy"  # lenient: it still loads
    found = _conflicts(compiler)
    by_family = {m.split("from model family ")[1].split()[0]: (lvl, code, m)
                 for lvl, code, m in found}
    assert {"'claude-4'", "'gpt-5'"} <= set(by_family)
    for level, code, message in by_family.values():
        assert (level, code) == ("warning", "family-conflict")
        assert "model family 'greedy' (plugin:greedy)" in message
        assert "(promptc's model data)" in message and "override = true" in message
    assert "claude-sonnet-4-5" in by_family["'claude-4'"][2]
    assert "gpt-5," in by_family["'gpt-5'"][2]
    with pytest.raises(ConfigError, match="takes .* known model"):
        compiler.compile(sonnet, {}, strict=True)
    assert any(f.code == "family-conflict" for f in lint(compiler))


def test_override_true_says_the_takeover_is_intended(
        tree: Callable[[dict[str, str]], Path]) -> None:
    data = tree({"models.toml": GREEDY + "override = true\n"})
    compiler = compiler_with(greedy=plugin_module(promptc_template_folders=lambda: [data]))
    found = _conflicts(compiler)
    assert found and all((lvl, code) == ("info", "family-override") for lvl, code, _ in found)
    assert compiler.registry.families[0].override
    prompt = compiler.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"), {}, strict=True)
    assert prompt.provider.family == "greedy"


def test_reusing_a_builtin_family_id_with_other_patterns_is_reported(
        tree: Callable[[dict[str, str]], Path]) -> None:
    reuse = '[[family]]\nid = "claude-4"\npatterns = ["foo-{1..}"]\nsource = "x"\n'
    [(level, code, message)] = _conflicts(Compiler.from_folders(tree({"models.toml": reuse})))
    assert (level, code) == ("warning", "family-conflict")
    assert "reuses the id of model family 'claude-4' (promptc's model data)" in message
    assert "foo-{1..} instead of claude-" in message
    [(level, code, _)] = _conflicts(Compiler.from_folders(
        tree({"models.toml": reuse + "override = true\n"})))
    assert (level, code) == ("info", "family-override")


def test_a_project_family_taking_a_plugins_models_names_both(
        tree: Callable[[dict[str, str]], Path]) -> None:
    from promptc._load.folders import read_layer
    from promptc._load.registry import build_registry
    from promptc._load.sources import builtin_root
    plugin = tree({"models.toml": FAMILY})
    project = tree({"models.toml": FAMILY.replace('"tiny"', '"mine"')
                    .replace('["tiny-{1..}"]', '["tiny-{2..}"]')})
    registry = build_registry([read_layer(builtin_root(), "builtin"),
                               read_layer(plugin, "plugin:tiny"), read_layer(project, "project")])
    [found] = [d for d in registry.diagnostics if d.code == "family-conflict"]
    assert found.source == "project"
    assert "model family 'mine' (project) takes 1 known model(s) from model family 'tiny' " \
           "(plugin:tiny): tiny-2" in found.message


def test_lint_strict_fails_on_a_family_conflict(tree: Callable[[dict[str, str]], Path],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    project = tree({"models.toml": GREEDY})
    argv = ["--no-user", "--no-plugins", "--project", str(project)]
    assert main(["lint", "--strict", *argv]) == 1
    assert "family-conflict" in capsys.readouterr().out
    assert main(["render", "--strict", *argv, "--provider", "openai", "--model", "gpt-5"]) != 0
    assert "takes" in capsys.readouterr().err


def test_a_family_of_new_models_takes_nothing(tree: Callable[[dict[str, str]], Path]) -> None:
    compiler = Compiler.from_folders(tree({"models.toml": FAMILY}))
    assert _conflicts(compiler) == []
