"""A command line that explains itself: help on every command and option, examples that parse,
exit codes, help topics, --version, tables that fit, budget reports, progress, and output that a
hostile name cannot turn into terminal escapes."""

from __future__ import annotations

import argparse
import io
import json
import shlex
import sys
from pathlib import Path

import attrs
import pytest

import promptc
from promptc import PromptContext
from promptc._cli import main
from promptc._cli.commands import build_parser
from promptc._cli.format import Progress, bound, clean, table
from promptc._cli.help import TOPICS, TOPICS_DIR

from .conftest import CONTEXTS

SONNET = ["--builtins-only", "--provider", "anthropic", "--model", "claude-sonnet-4-5",
          "--date", "2026-01-01"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_every_command_and_option_has_help() -> None:
    parser = build_parser()
    missing = []
    for name, p in {"": parser, **subcommands()}.items():
        for action in p._actions:
            if action.help == argparse.SUPPRESS:
                continue
            if not (action.help or "").strip():
                missing.append(f"promptc {name} {'/'.join(action.option_strings) or action.dest}")
        if name:
            assert (p.description or "").strip(), f"promptc {name} has no description"
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    missing += [f"promptc {c.dest}" for c in sub._choices_actions if not (c.help or "").strip()]
    assert not missing, "options without help text: " + ", ".join(missing)


@pytest.mark.parametrize("name", sorted(subcommands()))
def test_each_command_help_ends_with_examples_and_exit_codes(
        name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, name, "--help")
    assert code == 0
    tail = out[out.index("\nexamples:\n") + 1:]
    examples = [line.strip() for line in tail.split("\n\n")[0].splitlines()[1:]]
    assert 2 <= len(examples) <= 3, examples
    parser = build_parser()
    for example in examples:  # each one is a real command line: it parses
        argv = shlex.split(example.split(" > ")[0])
        assert argv[:2] == ["promptc", name], example
        parser.parse_args(argv[1:])
    codes = tail.split("exit codes:\n", 1)[1].split("\n\n")[0].splitlines()
    assert codes[0].strip().startswith("0 ") and all(c.strip()[0].isdigit() for c in codes)
    assert "More: " in tail


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    for flag in ("--version", "-V"):
        code, out, _ = run(capsys, flag)
        assert code == 0 and out == f"promptc {promptc.__version__}\n"


def test_top_level_help_names_the_topics_and_exit_codes(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "--version" in out and "exit codes:" in out
    assert "promptc help TOPIC" in out and all(topic in out for topic in TOPICS)
    code, same, _ = run(capsys, "help")
    assert code == 0 and same == out


def test_help_topics(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "help", "context")
    assert code == 0
    for field in attrs.fields(PromptContext):  # the topic keeps up with the context's fields
        assert field.name in out, field.name
    code, out, _ = run(capsys, "help", "folders")
    assert code == 0 and ".promptc/" in out and "XDG_CONFIG_HOME" in out
    for topic in TOPICS:
        assert run(capsys, "help", topic)[0] == 0
    code, out, _ = run(capsys, "help", "render")
    assert code == 0 and out == run(capsys, "render", "--help")[1]
    code, out, _ = run(capsys, "help", "serve")  # a command and a topic: the two, in order
    topic = (TOPICS_DIR / "serve.md").read_text(encoding="utf-8")
    assert code == 0 and out == run(capsys, "serve", "--help")[1] + "\n" + topic
    code, out, err = run(capsys, "help", "contxt")
    assert code == 2 and out == "" and "did you mean 'context'" in err


def test_the_matrix_topic_names_every_case_key_and_the_matrix_file_its_reader(
        capsys: pytest.CaptureFixture[str]) -> None:
    """(issue 35) `help matrix` left out `max_tokens`; the built-in matrix's comment named a
    module that no longer exists."""
    import re
    from pathlib import Path

    from promptc._review import snapshot
    code, out, _ = run(capsys, "help", "matrix")
    assert code == 0
    for key in (*snapshot._CASE_KEYS, *snapshot._CAP_KEYS):
        assert re.search(rf"\b{key}\b", out), key
    text = snapshot.default_matrix_path().read_text(encoding="utf-8")
    named = re.findall(r"promptc/[\w/]+\.py", text)
    root = Path(snapshot.__file__).resolve().parents[2]
    assert named and all((root / path).is_file() for path in named), named


def test_the_serve_topic_names_every_method_param_and_error_code(
        capsys: pytest.CaptureFixture[str]) -> None:
    from promptc._cli.serve_errors import ERROR_CODES
    from promptc._cli.serve_methods import METHODS
    topic = run(capsys, "help", "serve")[1].split("# The `promptc serve` protocol", 1)[1]
    for name, method in METHODS.items():
        assert f"\n{name} " in topic, name
        assert all(param in topic for param in method.params), name
    for code in (-32700, -32600, -32601, -32602, -32603):
        assert f"  {code}  " in topic, code
    for cls, code in ERROR_CODES.items():
        assert f"  {code}  {cls.__name__} " in topic, code


# --- tables that fit ----------------------------------------------------------------------------

@pytest.mark.parametrize("columns", [100, 72])
@pytest.mark.parametrize("argv, key", [
    (["explain", "--builtins-only", "--provider", "openai", "--model", "gpt-4.1"], "trace"),
    (["variants", "--builtins-only"], None),
])
def test_tables_fit_the_terminal_and_json_keeps_everything(
        argv: list[str], key: str | None, columns: int, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= columns
    code, data, _ = run(capsys, *argv, "--json")
    rows = json.loads(data)[key] if key else json.loads(data)
    text = " ".join(out.split())
    for row in rows:  # every row is there; its long text whole in JSON, started in the table
        long = row.get("reason") or row["match"]
        assert long.split()[0] in text


def test_a_table_wraps_only_its_last_column() -> None:
    rows = [["a", "word " * 30], ["b", "short"]]
    lines = table(["id", "text"], rows, width=40).splitlines()
    assert max(len(line) for line in lines) <= 40
    assert sum(line.startswith("a ") for line in lines) == 1 and len(lines) > 4
    cut = table(["id", "text"], rows, width=40, max_lines=2).splitlines()
    assert cut[3].endswith("…") and cut[-1].startswith("(cut to fit")


# --- budgets ------------------------------------------------------------------------------------

def test_budget_output_is_a_sentence_and_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    ctx = str(CONTEXTS / "full.json")
    code, out, _ = run(capsys, "tokens", *SONNET, "--context", ctx, "--budget", "0", "--json")
    least = json.loads(out)["tokens"]  # the smallest prompt a budget can make
    budget = str(least + 150)  # fits, but only after shortening and dropping sections
    code, out, err = run(capsys, "render", *SONNET, "--context", ctx, "--budget", budget)
    assert code == 0 and out
    lines = err.splitlines()
    assert lines[0].startswith("promptc: budget: the prompt needed ")
    assert f"over the budget of {int(budget):,}" in lines[0] and "dropped" in lines[0]
    assert lines[1].split() == ["section", "status", "priority", "tokens", "saved"]
    statuses = {line.split()[0]: line.split()[1] for line in lines[3:]}
    assert statuses["agent_role"] == "kept" and "dropped" in statuses.values()
    assert "shortened" in lines[0]  # (a shortened section may have been dropped after all)
    assert "budget-dropped" not in err and "budget-shortened" not in err  # no info-line flood
    code, out, _ = run(capsys, "render", *SONNET, "--context", ctx, "--budget", budget,
                       "--format", "json")
    data = json.loads(out)
    assert data["budget_report"]["budget"] == int(budget)
    assert {r["status"] for r in data["budget_report"]["sections"]} >= {"kept", "dropped"}
    assert data["dropped"]  # the documented field stays (docs/cli.md: next to budget_report)


def test_a_budget_that_cannot_be_met(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "render", *SONNET, "--budget", "100")
    assert code == 3 and out == ""
    first, *rest = err.splitlines()
    assert first.startswith("promptc: budget: the prompt cannot fit the budget of 100 tokens")
    assert "agent_role" in first and first.count("required sections") == 1
    assert rest[0].split()[:2] == ["section", "status"]
    assert any("kept (required)" in line for line in rest)
    assert any("dropped" in line for line in rest)
    code, out, err = run(capsys, "tokens", *SONNET, "--budget", "100", "--json")
    data = json.loads(out)
    assert code == 3 and data["error"] == "budget" and data["budget"] == 100
    assert any(r["required"] and r["status"] == "kept" for r in data["sections"])


# --- progress -----------------------------------------------------------------------------------

class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal_for_long_work() -> None:
    tty = Terminal()
    progress = Progress("rendering", 20, stream=tty)
    progress(3, "case\x1b[2J")
    progress.clear()
    assert "\rrendering" in tty.getvalue().replace("\r\x1b[K", "\r")
    assert "3/20" in tty.getvalue() and "\x1b[2J" not in tty.getvalue()
    for quiet, total, stream in ((True, 20, Terminal()), (False, 3, Terminal()),
                                 (False, 20, io.StringIO())):
        p = Progress("x", total, quiet=quiet, stream=stream)
        p(1, "y")
        p.clear()
        assert stream.getvalue() == ""


# --- output hygiene -----------------------------------------------------------------------------

def test_clean_and_bound() -> None:
    assert clean("a\x1b[31mb\nc\rd\te\x07\x9b\u202e") == "a\\x1b[31mb\\nc\\rd\\te\\x07\\x9b\\u202e"
    assert clean("plain – ünïcode") == "plain – ünïcode"
    long = bound("x" * 10_000)
    assert len(long) < 500 and "9,600 more characters" in long


HOSTILE = "evil\x1b[2J\x1b]0;pwned\x07\nline2\r"


def test_names_from_a_context_cannot_drive_the_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ctx = json.loads((CONTEXTS / "full.json").read_text(encoding="utf-8"))
    ctx["mcp_servers"][0]["name"] = HOSTILE
    ctx["mcp_servers"][0]["tools"][0]["name"] = "t" + HOSTILE
    ctx["runtime"] = {"R" + HOSTILE: "x" * 5000}
    path = tmp_path / "ctx.json"
    path.write_text(json.dumps(ctx), encoding="utf-8")
    for command in ("explain", "render", "tools", "tokens"):
        code, out, err = run(capsys, command, *SONNET, "--context", str(path),
                             "--native-tools", "no")
        text = out if command != "render" else ""  # render prints the prompt itself, verbatim
        for stream in (text, err):
            assert "\x1b" not in stream and "\r" not in stream and "\x07" not in stream, command
        assert all(len(line) < 1200 for line in err.splitlines()), command
    code, out, _ = run(capsys, "explain", *SONNET, "--context", str(path), "--json")
    found = json.loads(out)["diagnostics"]  # the unknown runtime value, named exactly in JSON
    assert code == 0 and any("R" + HOSTILE in d["message"] or "R" + HOSTILE in d["source"]
                             for d in found)


def test_paths_and_arguments_in_errors_are_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "render", *SONNET, "--context", "/nonexistent/" + HOSTILE)
    assert code == 2 and out == "" and "\x1b" not in err and err.count("\n") == 1
    code, _, err = run(capsys, "render", *SONNET, "--set", HOSTILE)
    assert code == 2 and "\x1b" not in err and err.count("\n") == 1
    code, _, err = run(capsys, "render", "--bogus" + HOSTILE)
    assert code == 2 and "\x1b" not in err and "\r" not in err


# --- promptc.testing without syrupy -------------------------------------------------------------

def test_promptc_snapshot_without_syrupy_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import inspect

    from promptc import testing
    for fixture in (testing.promptc_snapshot, testing.promptc_json_snapshot):
        # asking for syrupy's `snapshot` as an argument is what gave "fixture not found"
        wrapped = getattr(fixture, "__wrapped__", fixture)
        assert "snapshot" not in inspect.signature(wrapped).parameters
    monkeypatch.setitem(sys.modules, "syrupy", None)  # as if it were not installed
    with pytest.raises(pytest.fail.Exception) as info:
        testing._syrupy_snapshot(None, "promptc_snapshot")  # type: ignore[arg-type]
    assert "pip install syrupy" in str(info.value) and "[test]" not in str(info.value)
    assert "promptc_snapshot needs syrupy" in str(info.value)


@pytest.mark.parametrize("columns", [60, 72, 100])
def test_variants_never_breaks_an_id(columns: int, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Once `gpt-5-codex` came out as `gpt-5-` over `codex`, and ids of ten letters and more
    were cut mid-word. The id column stays whole; other names break only after a hyphen."""
    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, _ = run(capsys, "variants", "--builtins-only")
    assert code == 0
    first_column = [line.split()[0] for line in out.splitlines()[2:]
                    if line and not line.startswith((" ", "("))]
    assert first_column == [v["id"] for v in json.loads(run(capsys, "variants",
                                                            "--builtins-only", "--json")[1])]
    assert max(len(line) for line in out.splitlines()) <= max(columns, 72)
