"""Lint: what is wrong with the registered prompts, found before any request."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from promptc import Compiler, ProviderInfo
from promptc._cli import main
from promptc._review.lint import lint


def codes(c: Compiler) -> list[tuple[str, str]]:
    """The findings, but the note every pack without one gets (tested on its own below)."""
    return [(d.code, d.message) for d in lint(c) if d.code != "placement-without-note"]


def test_a_pack_without_the_note_is_told_its_prompts_go_as_one_string(
        mini: Callable[..., Compiler]) -> None:
    """(The built-in pack has its note: test_builtins_are_clean finds nothing there.)"""
    c = mini()
    [finding] = [d for d in lint(c) if d.code == "placement-without-note"]
    assert finding.level == "info" and "sent as one string" in finding.message
    prompt = c.compile(ProviderInfo("openai", "gpt-4.1"), {"cwd": "/srv/app"})
    assert prompt.dynamic == "system" and prompt.system == prompt.text  # the single string
    assert "messages" not in prompt.to_anthropic()
    noted = mini({"components/environment_note.md": "# Details\nThey come in a message.\n"})
    assert not [d for d in lint(noted) if d.code == "placement-without-note"]


def test_a_project_that_chose_the_single_string_is_not_told_about_the_note(
        tmp_path: Path) -> None:
    """`placement = "system"` in the project file is the choice the note's finding is about:
    a template library (each template one whole prompt) gets no finding for it."""
    from .conftest import write_tree
    root = write_tree(tmp_path / "lib", {
        "promptc.toml": 'builtins = false\nuser = false\nplugins = false\nfolder = "p"\n',
        "p/variants/one/variant.toml": 'fallback = true\ncomponents = ["body"]\n',
        "p/variants/one/template.md": "{{body}}\n",
        "p/components/body.md": "# Body\nSay hello.\n"})
    found = lint(Compiler.default(project=root))
    assert [d.code for d in found if d.code == "placement-without-note"] == [
        "placement-without-note"]
    (root / "promptc.toml").write_text('builtins = false\nuser = false\nplugins = false\n'
                                      'folder = "p"\nplacement = "system"\n', encoding="utf-8")
    assert not [d for d in lint(Compiler.default(project=root))
                if d.code == "placement-without-note"]


def test_builtins_are_clean(builtins: Compiler) -> None:
    assert lint(builtins) == []


def test_unknown_placeholder_with_file_line_and_suggestion(mini: Callable[..., Compiler]
                                                           ) -> None:
    c = mini({"components/body.md": "# Body\nline two\nWorking in {{CWDD}}.\n"})
    [(code, message)] = codes(c)
    assert code == "placeholder-unknown"
    assert "components/body.md:3" in message and "{{CWDD}}" in message
    assert "did you mean 'CWD'" in message


def test_template_and_order_disagree_both_ways(mini: Callable[..., Compiler]) -> None:
    c = mini({"variants/base/variant.toml": 'fallback = true\ncomponents = ["intro"]\n',
              "variants/base/template.md": "{{intro}}\n{{body}}\n"})
    assert ("component-not-in-order", ) == tuple(
        code for code, _ in codes(c) if code.startswith("component"))
    c = mini({"variants/base/template.md": "{{intro}}\n"})
    found = codes(c)
    assert any(code == "component-not-in-template" and "'body'" in m for code, m in found)


def test_unregistered_component(mini: Callable[..., Compiler]) -> None:
    c = mini({"variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", "bdoy"]\n',
              "variants/base/template.md": "{{intro}}\n{{bdoy}}\n"})
    [message] = [m for code, m in codes(c) if code == "component-missing"]
    assert "'bdoy'" in message and "did you mean 'body'" in message


def test_shadowed_and_duplicate_matchers(mini: Callable[..., Compiler]) -> None:
    c = mini({
        "variants/wide/variant.toml": 'extends = "base"\npriority = 10\n[match]\n'
                                      'model = ["acme"]\n',
        "variants/narrow/variant.toml": 'extends = "base"\npriority = 20\n[match]\n'
                                        'model = ["acme-coder"]\n',
        "variants/same/variant.toml": 'extends = "base"\npriority = 30\n[match]\n'
                                      'model = ["acme"]\n',
        "variants/everything/variant.toml": 'extends = "base"\npriority = 5\n[match]\n'
                                            'always = true\n',
    })
    found = codes(c)
    shadowed = sorted(m.split("'")[1] for code, m in found if code == "matcher-shadowed")
    assert shadowed == ["narrow", "same", "wide"]
    assert any(code == "matcher-duplicate" and "'same'" in m for code, m in found)


def test_capability_split_is_not_shadowing(mini: Callable[..., Compiler]) -> None:
    c = mini({
        "variants/native/variant.toml": 'extends = "base"\npriority = 10\n[match]\n'
                                        'model = ["claude-sonnet-4"]\nnative_tools = true\n',
        "variants/text/variant.toml": 'extends = "base"\npriority = 20\n[match]\n'
                                      'model = ["claude-sonnet-4"]\n',
    })
    assert not [m for code, m in codes(c) if code == "matcher-shadowed"]


def test_static_section_after_a_session_one(mini: Callable[..., Compiler]) -> None:
    c = mini({"variants/base/variant.toml": 'fallback = true\ncomponents = ["body", "intro"]\n',
              "variants/base/template.md": "{{body}}\n{{intro}}\n"})
    [message] = [m for code, m in codes(c) if code == "cache-order"]
    assert "static section 'intro' comes after a session one" in message


def test_cli_exit_codes(mini: Callable[..., Compiler], capsys: pytest.CaptureFixture[str]
                        ) -> None:
    assert main(["lint", "--builtins-only"]) == 0
    assert "ok: 0 finding(s)" in capsys.readouterr().out


def test_volatile_placeholder_ahead_of_static_sections(mini: Callable[..., Compiler]) -> None:
    c = mini({"variants/base/template.md": "Date: {{CURRENT_DATE}}\n{{intro}}\n{{body}}\n"})
    [message] = [m for code, m in codes(c) if code == "cache-order"]
    assert "template.md:1: {{CURRENT_DATE}} is a request value placed before static" in message
    fine = mini({"variants/base/template.md": "{{intro}}\n{{body}}\nDate: {{CURRENT_DATE}}\n"})
    assert not [m for code, m in codes(fine) if code == "cache-order"]


def test_the_readmes_override_example_is_reported(tmp_path: Path) -> None:
    """README: copy one component into `.promptc/variants/<id>/components/` to change it for
    that variant; lint lists the override (info level), as the README promises."""
    from promptc._load.sources import builtin_root
    project = tmp_path / ".promptc"
    target = project / "variants" / "generic" / "components" / "rules.md"
    target.parent.mkdir(parents=True)
    target.write_text((Path(builtin_root()) / "components" / "rules.md").read_text("utf-8") +
                      "\nOne more project rule.\n", encoding="utf-8")
    c = Compiler.default(project=project, user=False, plugins=False)
    [finding] = [d for d in lint(c) if d.code == "overridden" and "'generic'" in d.message]
    assert finding.level == "info"
    assert "rules" in finding.message and "project:variants/generic/components/rules.md" \
        in finding.message and "builtin:components/rules.md" in finding.message


# --- a project is judged on its own sources -----------------------------------------------------

CATCH_ALL = {"promptc.toml": 'user = false\nplugins = false\n',
             ".promptc/variants/ours/variant.toml": 'extends = "generic"\npriority = 1\n'
                                                    '[match]\nalways = true\n'}


def lint_cli(root: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["lint", "--project", str(root), *argv])
    return code, capsys.readouterr().out


def test_a_project_shadowing_the_builtins_is_said_once_and_never_fails(
        tree: Callable[[dict[str, str | bytes]], Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    """Once: one matcher-shadowed warning per built-in variant, and `lint --strict` could not
    pass for a project that replaces the built-ins by design."""
    root = tree(CATCH_ALL)
    code, out = lint_cli(root, capsys, "--strict", "--json")
    import json
    found = json.loads(out)
    assert code == 0 and [f["code"] for f in found if f["level"] != "info"] == []
    [shadowed] = [f for f in found if f["code"] == "sources-shadowed"]
    assert shadowed["level"] == "info" and "builtin: compact" in shadowed["message"]
    assert not [f for f in found if f["code"].startswith("matcher-")]


def test_a_conflict_inside_the_project_still_fails(
        tree: Callable[[dict[str, str | bytes]], Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    root = tree({**CATCH_ALL, ".promptc/variants/late/variant.toml":
                 'extends = "generic"\npriority = 2\n[match]\nmodel = ["gpt"]\n'})
    code, out = lint_cli(root, capsys, "--strict")
    assert code == 1 and "variant 'late' can never match: 'ours' (earlier)" in out
    code, out = lint_cli(root, capsys)  # a warning: only --strict makes it fail
    assert code == 0 and "warning" in out and "variant 'late' can never match" in out


def test_what_the_project_breaks_in_a_builtin_variant_is_the_projects(
        tree: Callable[[dict[str, str | bytes]], Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    """A built-in variant the project changes is the project's to answer for (here only
    `compact`: the others are not linted)."""
    root = tree({"promptc.toml": 'user = false\nplugins = false\n',
                 ".promptc/variants/compact/components/rules.md": "# Rules\n{{RULEZ}}\n"})
    code, out = lint_cli(root, capsys, "--strict")
    assert code == 1 and "unknown placeholder {{RULEZ}}" in out
    assert "7 variant(s) of builtin that the project does not change are not linted" in out


def test_findings_the_other_sources_have_alone_are_not_the_projects(
        tree: Callable[[dict[str, str | bytes]], Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A plugin's own warning (its template puts the date before its static section) is not
    the project's: its variant, which the project does not change, is not linted."""
    from promptc._load import plugins as loader

    from .standin import StandInEntryPoint, plugin_module
    data = tree({"variants/noisy/variant.toml": 'components = ["intro"]\n[match]\n'
                                                'model = ["noisy"]\n',
                 "variants/noisy/template.md": "{{CURRENT_DATE}}\n\n{{intro}}\n",
                 "components/intro.md": "# Intro\nHello.\n"})
    alone = lint(Compiler.from_folders(data, builtins=False))
    assert [d.code for d in alone if d.level == "warning"] == ["cache-order"]
    noisy = plugin_module(promptc_template_folders=lambda: [data])
    monkeypatch.setattr(loader, "_entry_points", lambda: [StandInEntryPoint("noisy", noisy)])
    root = tree({"promptc.toml": 'user = false\nbuiltins = false\n',
                 ".promptc/variants/mine/variant.toml": 'extends = "noisy"\n[match]\n'
                                                        'model = ["mine"]\n',
                 ".promptc/variants/mine/template.md": "{{intro}}\n\n{{CURRENT_DATE}}\n"})
    code, out = lint_cli(root, capsys, "--strict")
    assert code == 0 and "cache-order" not in out, out
    assert "1 variant(s) of plugin:noisy that the project does not change are not linted" in out
