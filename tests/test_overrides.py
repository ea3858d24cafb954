"""No silent no-ops: an override file that cannot take effect is a lint finding naming the file
and what wins instead, and `explain` shows it. `.promptc/components/working_style.md` once
changed nothing for native-next-gen (its own variants/…/working_style.md wins) and lint said
nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from promptc import Compiler, ProviderInfo
from promptc._cli import main
from promptc._review.lint import lint

STYLE = "# Working style\n\nThe project's own working style.\n"
SONNET = ProviderInfo("anthropic", "claude-sonnet-4-5", native_tools=True)


@pytest.fixture
def project(tree: Callable[[dict[str, str]], Path]) -> Path:
    return tree({"components/working_style.md": STYLE})


def unused(compiler: Compiler) -> list[str]:
    """The registry's own findings (what `lint` reports first: one test checks it does)."""
    return [f.message for f in compiler.registry.findings if f.code == "override-unused"]


def test_a_shared_override_a_variant_file_hides_is_a_finding(project: Path) -> None:
    """working_style is used by native-next-gen (its own file) and next-gen (which inherits
    that file): the project's shared text reaches neither, and lint says so for each."""
    compiler = Compiler.default(project=project, user=False, plugins=False)
    for native in (True, False):
        assert "The project's own working style." not in compiler.compile(
            ProviderInfo("anthropic", "claude-sonnet-4-5", native_tools=native), {}).text
    messages = unused(compiler)
    assert len(messages) == 2
    for message, vid in zip(messages, ("native-next-gen", "next-gen")):
        assert str(project / "components" / "working_style.md") in message
        assert f"variant {vid!r}" in message
        assert "variants/native-next-gen/components/working_style.md wins" in message
        assert str(project / "variants" / vid / "components" / "working_style.md") in message
    assert [f.level for f in lint(compiler) if f.code == "override-unused"] == ["warning"] * 2
    # put where the finding says, the text reaches the variant and the finding is gone
    (project / "variants" / "native-next-gen" / "components").mkdir(parents=True)
    (project / "components" / "working_style.md").rename(
        project / "variants" / "native-next-gen" / "components" / "working_style.md")
    fixed = Compiler.default(project=project, user=False, plugins=False)
    assert "The project's own working style." in fixed.compile(SONNET, {}).text
    assert unused(fixed) == []


def test_a_shared_tool_spec_a_variant_spec_hides_is_a_finding(
        tree: Callable[[dict[str, str]], Path]) -> None:
    builtin = Compiler.builtins().registry.tools["ask_followup_question"]
    spec = (f'name = "ask_followup_question"\noverride = true\n'
            f'description = "Ask the user, briefly."\n'
            '[[parameters]]\nname = "question"\ntype = "string"\nrequired = true\n'
            'instruction = "The question."\n')
    assert builtin.source == "builtin"
    compiler = Compiler.default(project=tree({"components/tools/ask_followup_question.toml":
                                              spec}), user=False, plugins=False)
    found = sorted(unused(compiler))  # compact has its own spec (gpt-5-codex offers none)
    for message, variant in zip(found, ("compact",), strict=True):
        assert f"variant '{variant}'" in message and \
            f"variants/{variant}/tools/ask_followup_question.toml" in message


def test_explain_shows_an_override_that_does_not_reach_the_variant(
        project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["explain", "--no-user", "--no-plugins", "--project", str(project), "--provider",
            "anthropic", "--model", "claude-sonnet-4-5"]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [note] = data["overrides_not_used"]
    assert "working_style.md" in note["message"] and note["source"].endswith("working_style.md")
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "not used here:" in out and "variants/native-next-gen/components/working_style.md" \
        in out


def test_the_builtins_have_no_unused_overrides(builtins: Compiler) -> None:
    assert unused(builtins) == []
