"""Features are typed: booleans only, names the installed prompts declare (by reading them: a
tool's `when`, a component's `reads`, a plugin's `promptc_features`), with a did-you-mean for
a mistyped one. `"browser": "no"` once switched the browser tool on, and `"browzer"` was
ignored, even with --strict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptc import (Compiler, ContextError, Feature, PromptContext, PromptcError,
                     ProviderInfo)
from promptc._cli import main
from promptc._model.features import builtin_features

from .standin import compiler_with, plugin_module

GPT = ProviderInfo("openai", "gpt-4.1")


@pytest.mark.parametrize("value", ["no", "false", "yes", 1, 0, None, [True]],
                         ids=["no", "false-text", "yes", "one", "zero", "null", "list"])
def test_a_feature_is_true_or_false(value: object) -> None:
    with pytest.raises(ContextError) as info:
        PromptContext.from_dict({"features": {"browser": value}}, source="ctx.json")
    assert "features.browser" in str(info.value) and "true or false" in str(info.value)
    assert "ctx.json" in str(info.value)
    with pytest.raises(ContextError):
        PromptContext(features={"browser": value})


def test_a_mistyped_feature_name_is_an_error_with_did_you_mean(tmp_path: Path) -> None:
    path = tmp_path / "ctx.json"
    path.write_text(json.dumps({"features": {"browzer": True}}), encoding="utf-8")
    with pytest.raises(ContextError) as info:
        PromptContext.load(path)
    message = str(info.value)
    assert str(path) in message and "features.browzer" in message
    assert "did you mean 'browser'" in message


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
@pytest.mark.parametrize("features", [{"browzer": True}, {"browser": "no"}],
                         ids=["unknown", "mistyped"])
def test_the_cli_refuses_such_a_context(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        strict: bool, features: dict[str, object]) -> None:
    path = tmp_path / "ctx.json"
    path.write_text(json.dumps({"features": features}), encoding="utf-8")
    code = main(["render", "--builtins-only", "--provider", "openai", "--model", "gpt-4.1",
                 "--context", str(path), *(["--strict"] if strict else [])])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and ("browzer" in err or "browser" in err), err
    assert len(err.strip().splitlines()) == 1


def test_compiling_a_python_built_context_with_an_unknown_feature(builtins: Compiler) -> None:
    """Built in Python, the context cannot know the compiler's features: lenient compile warns
    (the name switches nothing on) and strict compile refuses."""
    ctx = PromptContext(features={"browzer": True})
    prompt = builtins.compile(GPT, ctx)
    [diag] = [d for d in prompt.diagnostics if d.code == "feature-unknown"]
    assert diag.level == "warning" and "'browzer'" in diag.message and "'browser'" in diag.message
    assert "browser_action" not in prompt.tools.names
    with pytest.raises(PromptcError) as info:
        builtins.compile(GPT, ctx, strict=True)
    assert "browzer" in str(info.value)
    assert not [d for d in builtins.compile(GPT, PromptContext(features={"browser": True}))
                .diagnostics if d.code == "feature-unknown"]


def test_the_builtin_features_are_what_the_builtin_prompts_read(builtins: Compiler) -> None:
    declared = set(builtin_features().names)
    assert declared == set(builtins.features.names)
    for name in declared:
        feature = builtins.features.get(name)
        assert feature.description and feature.readers, name
    assert "tool browser_action" in builtins.features.get("browser").readers


def test_a_folder_tool_declares_the_feature_it_reads(tree: object) -> None:
    folder = tree({"components/tools/sandbox_run.toml":  # type: ignore[operator]
                   'name = "sandbox_run"\ndescription = "Run it in the sandbox."\n'
                   '[when]\nfeature = "sandbox"\n'})
    compiler = Compiler.from_folders(folder)
    assert "sandbox" in compiler.features.names
    ctx = compiler.context({"features": {"sandbox": True}})
    assert ctx.feature("sandbox") is True
    # without the compiler, only the built-in features are known; it says how to load it
    with pytest.raises(ContextError) as info:
        PromptContext.from_dict({"features": {"sandbox": True}})
    assert "compiler.context" in str(info.value)
    assert PromptContext.from_dict({"features": {"sandbox": True}},
                                   features=compiler.features).feature("sandbox") is True


def test_a_plugin_declares_a_feature_with_its_description() -> None:
    compiler = compiler_with(acme=plugin_module(
        promptc_features=lambda: [Feature("acme_sandbox", "runs commands in Acme's sandbox")]))
    feature = compiler.features.get("acme_sandbox")
    assert feature.description == "runs commands in Acme's sandbox"
    assert feature.source == "plugin:acme"
    assert compiler.context({"features": {"acme_sandbox": False}}).features == {
        "acme_sandbox": False}


def test_a_plugin_feature_that_is_no_feature_skips_the_plugin() -> None:
    compiler = compiler_with(bad=plugin_module(promptc_features=lambda: ["acme_sandbox"]))
    assert "acme_sandbox" not in compiler.features.names
    assert any(d.code == "plugin-hook" and "promptc_features" in d.message
               for d in compiler.load_diagnostics)


def test_help_context_lists_every_feature(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["help", "context"]) == 0
    out = capsys.readouterr().out
    for feature in builtin_features().features.values():
        line = next(line for line in out.splitlines() if line.strip().startswith(feature.name))
        assert feature.description[:30] in line or feature.description[:30] in out, feature


def test_a_feature_the_variant_does_not_support_is_reported(builtins: Compiler) -> None:
    """Issue 23: compact offers no web fetch, browser or checklist, and gpt-5-codex no
    checklist: a context that turns them on is told so (info), never silently."""
    from promptc.testing import make_context
    from promptc import ProviderInfo
    compact = builtins.compile(ProviderInfo("ollama", "qwen2.5-coder:7b"), make_context("full"))
    found = {d.source: d for d in compact.diagnostics if d.code == "feature-unsupported"}
    assert set(found) == {"features.web_fetch", "features.task_progress", "features.browser"}
    assert all(d.level == "info" and "'compact'" in d.message for d in found.values())
    codex = builtins.compile(ProviderInfo("openai", "gpt-5.1-codex"), make_context("full"))
    assert "features.task_progress" in {d.source for d in codex.diagnostics
                                        if d.code == "feature-unsupported"}
    generic = builtins.compile(ProviderInfo("openai", "gpt-4.1"), make_context("full"))
    assert not [d for d in generic.diagnostics if d.code == "feature-unsupported"]
