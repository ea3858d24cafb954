"""The CLI as documented: docs/cli.md lists exactly the options argparse takes (and the README's
command block none it does not), `--json` works where listed, global options work after the
command too, a bad option value is one line with where to look, and a lenient run's
diagnostics do not read as a failure."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from promptc._cli import main
from promptc._cli.args import PARSERS
from promptc._cli.commands import build_parser

ROOT = Path(__file__).resolve().parent.parent
CLI_MD = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


def parser_options() -> dict[str, set[str]]:
    build_parser()
    out = {}
    for name, parser in PARSERS.items():
        if name:
            out[name] = {o for a in parser._actions if a.help != argparse.SUPPRESS
                         for o in a.option_strings if o.startswith("--") and o != "--help"}
    return out


def documented(block: str, macros: dict[str, str] | None = None) -> dict[str, set[str]]:
    """{command: options} from a synopsis block: `promptc CMD …` lines, indented lines
    continuing them, and macro words (REQUEST, SOURCES) expanded."""
    out: dict[str, set[str]] = {}
    current = None
    for line in block.splitlines():
        head = re.match(r"promptc (\w[\w-]*)", line)
        if head:
            current = head.group(1)
            out.setdefault(current, set())
        elif not line.startswith(" ") or current is None:
            current = None
            continue
        text = line.split("#", 1)[0]
        for word, expansion in (macros or {}).items():
            text = re.sub(rf"\b{word}\b", expansion, text)
        out[current].update(OPTION.findall(text))
    return out


def cli_md_synopsis() -> dict[str, set[str]]:
    section = CLI_MD.split("## Every option", 1)[1]
    blocks = re.findall(r"```\n(.*?)```", section, re.S)
    macros = dict(re.findall(r"^([A-Z]+) = (.*)$", blocks[0], re.M))
    return documented(blocks[1], macros)


def test_cli_md_lists_exactly_the_parsers_options() -> None:
    docs, real = cli_md_synopsis(), parser_options()
    assert set(docs) == set(real)
    for command in real:
        assert docs[command] == real[command], (command, docs[command] ^ real[command])


def test_the_readmes_command_block_names_only_real_options() -> None:
    block = README.split("## The command line", 1)[1].split("```", 2)[1]
    real = parser_options()
    for command, options in documented(block).items():
        assert options <= real[command] | {"--version"}, (command, options - real[command])


@pytest.mark.parametrize("command", ["render", "parse"])
def test_json_where_the_docs_list_it(command: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text("<read_file>\n<path>a.txt</path>\n</read_file>", encoding="utf-8")
    args = [command, "--builtins-only", "--provider", "ollama", "--model", "qwen3:8b",
            "--date", "2026-01-01", *([str(reply)] if command == "parse" else []), "--json"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert ("text" in data) if command == "render" else ("parts" in data)


def test_global_options_after_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["render", "--builtins-only", "--provider", "openai", "--model", "gpt-4.1",
                 "--date", "2026-01-01", "--debug"]) == 0
    assert capsys.readouterr().out


@pytest.mark.parametrize("flag", ["--version", "-V"])
@pytest.mark.parametrize("command", ["render", "lint", "session", "serve"])
def test_version_after_the_command(command: str, flag: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, flag])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("promptc ")


@pytest.mark.parametrize("argv", [["render", "--format", "jsn"], ["tokens", "--budget", "x"],
                                  ["snapshot", "--lines", "some"], ["lint", "--strcit"]],
                         ids=["choice", "number", "lines", "unknown-option"])
def test_a_bad_value_is_one_line_with_where_to_look(argv: list[str],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"see `promptc {argv[0]} --help`" in err and "usage:" not in err


def test_lenient_diagnostics_do_not_read_as_failure(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    ctx = tmp_path / "ctx.json"
    ctx.write_text('{"runtime": {"TEAM": "infra"}}', encoding="utf-8")
    assert main(["render", "--builtins-only", "--provider", "openai", "--model", "gpt-4.1",
                 "--context", str(ctx)]) == 0
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines and all(line.startswith("promptc: lenient ") for line in lines[:-1]), lines
    assert not any(re.match(r"promptc: (error|warning):", line) for line in lines)
    assert "--strict" in lines[-1]  # a last line says the prompt was made anyway
