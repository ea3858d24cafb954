"""The README's two set-up commands stay true: CI runs the test one, the main one renders."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from promptc._cli import main

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def try_it_commands() -> list[str]:
    section = README.split("## Try it", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", section, re.S)


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
    assert main([*argv[1:], "--no-user", "--no-project", "--no-plugins"]) == 0
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


def test_the_serve_section_names_every_method_param_and_error_code() -> None:
    from promptc._cli.jsonrpc import (INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
                                      METHOD_NOT_FOUND, PARSE_ERROR)
    from promptc._cli.serve_errors import ERROR_CODES
    from promptc._cli.serve_methods import METHODS
    section = README.split("## From any language: `promptc serve`", 1)[1].split("\n## ", 1)[0]
    for name, method in METHODS.items():
        assert f"| `{name}` |" in section, name
        assert all(f"`{param}`" in section for param in method.params), name
    for code in (PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR):
        assert f"`{code}`" in section, code
    for cls, code in ERROR_CODES.items():
        assert f"`{code}` {cls.__name__}" in section or f"`{code}` any other" in section, code
