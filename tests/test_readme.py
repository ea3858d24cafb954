"""The README stays short and true: its two set-up commands (CI runs the test one, the main one
renders), the coding pack's commands, run as written; docs/serve.md names every method, param
and error code of `promptc serve`."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from promptc._cli import main

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SERVE_PAGE = (ROOT / "docs" / "serve.md").read_text(encoding="utf-8")
SOURCES = ("--no-user", "--no-project", "--no-plugins")  # the built-ins alone, wherever run


def section(heading: str) -> str:
    return README.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def try_it_commands() -> list[str]:
    return re.findall(r"```sh\n(.*?)\n```", section("Try it"), re.S)


def test_the_readme_is_at_most_600_lines() -> None:
    """Issue 32: the README opens the way in; the detail lives in docs/."""
    assert len(README.splitlines()) <= 600


def test_the_readme_opens_with_your_own_prompt_then_the_coding_pack() -> None:
    headings = re.findall(r"^## (.+)$", README, re.M)
    assert headings[:3] == ["Try it", "Your own prompt in five minutes",
                            "The built-in coding pack"]


def test_there_are_exactly_two_setup_commands() -> None:
    run, test = try_it_commands()
    assert "pip install . " in run and "promptc render" in run
    assert "pip install -e '.[test]'" in test and test.endswith("pytest")


def test_ci_runs_the_readmes_test_command() -> None:
    _, test = try_it_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test in ci.splitlines()


def test_the_main_command_renders(capsys: pytest.CaptureFixture[str]) -> None:
    run, _ = try_it_commands()
    render = run.split("&&")[-1].strip()
    argv = shlex.split(render)
    assert argv[0] == "promptc"
    assert main([*argv[1:], *SOURCES]) == 0
    out = capsys.readouterr().out
    assert len(out) > 8_000 and "{{" not in out  # a whole prompt (about 10,000 characters)


def test_documented_commands_exist(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("render", "explain", "variants", "tools", "lint", "tokens", "inputs",
                    "snapshot", "diff", "new-variant", "models", "parse", "session",
                    "serve"):
        with pytest.raises(SystemExit) as info:
            main([command, "--help"])
        assert info.value.code == 0
        assert f"promptc {command}" in README
    capsys.readouterr()


def test_the_serve_page_names_every_method_param_and_error_code() -> None:
    from promptc._cli.jsonrpc import (INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
                                      METHOD_NOT_FOUND, PARSE_ERROR)
    from promptc._cli.serve_errors import ERROR_CODES
    from promptc._cli.serve_methods import METHODS
    page = SERVE_PAGE
    for name, method in METHODS.items():
        assert f"| `{name}` |" in page, name
        assert all(f"`{param}`" in page for param in method.params), name
        assert f"`{name}`" in section("From any language: `promptc serve`"), name  # the README
    for code in (PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR):
        assert f"`{code}`" in page, code
    for cls, code in ERROR_CODES.items():
        assert f"`{code}` {cls.__name__}" in page or f"`{code}` any other" in page, code


def sh_lines(text: str) -> list[str]:
    """The `promptc …` lines of the sh blocks in `text`, comments dropped."""
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    return [line for b in blocks for line in b.splitlines() if line.startswith("promptc ")]


def test_the_coding_pack_commands_run_as_written(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """"The built-in coding pack": each command, in a folder of its own (the last two write and
    render a project variant there), then the new variant renders exactly as the one it extends
    until edited."""
    monkeypatch.chdir(tmp_path)
    commands = sh_lines(section("The built-in coding pack"))
    assert len(commands) >= 6
    outputs = {}
    for line in commands:
        argv = shlex.split(line, comments=True)[1:]
        assert main([*argv, "--no-user", "--no-plugins"]) == 0, line  # the folder: .promptc/
        outputs[line] = capsys.readouterr().out
        assert outputs[line], line
    mine = next(out for line, out in outputs.items() if "--variant mine" in line)
    assert main(["render", "--variant", "generic", "--provider", "openai", "--model", "gpt-4.1",
                 "--no-user", "--no-plugins"]) == 0
    assert capsys.readouterr().out == mine  # "identical to generic"
    assert (tmp_path / ".promptc" / "variants" / "mine" / "variant.toml").is_file()
