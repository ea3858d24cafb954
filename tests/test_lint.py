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
        mini: Callable[..., Compiler], builtins: Compiler) -> None:
    c = mini()
    [finding] = [d for d in lint(c) if d.code == "placement-without-note"]
    assert finding.level == "info" and "sent as one string" in finding.message
    prompt = c.compile(ProviderInfo("openai", "gpt-4.1"), {"cwd": "/srv/app"})
    assert prompt.dynamic == "system" and prompt.system == prompt.text  # the single string
    assert "messages" not in prompt.to_anthropic()
    noted = mini({"components/environment_note.md": "# Details\nThey come in a message.\n"})
    assert not [d for d in lint(noted) if d.code == "placement-without-note"]
    assert not [d for d in lint(builtins) if d.code == "placement-without-note"]


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
