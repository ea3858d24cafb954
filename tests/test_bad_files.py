"""A corpus of malformed files: each is refused with one line naming the file (and line), exit 2.

`tests/fixtures/bad/<case>/` is either a project folder (laid out like `.promptc/`) or holds one
context file; its `expect.toml` says what must happen:

    about   = "what is wrong"
    exit    = 2                       # 0 for the `ok-*` cases: odd but valid input is accepted
    file    = "variants/bf/variant.toml"   # the file the message must name (relative to the case)
    line    = 3                       # when the fault has a line
    error   = "VariantConfigError"    # the class the library raises
    message = "regex"                 # searched in the message
    context = "context.json"          # the case is a context file (passed with --context)
    stdout  = "text"                  # ok cases: what the prompt must contain

The 50 MB cases are generated into tmp_path at test time.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import promptc
from promptc import Compiler, PromptContext, ProviderInfo
from promptc._cli import main

HERE = Path(__file__).parent
CORPUS = HERE / "fixtures" / "bad"
GOOD = HERE / "fixtures" / "good"
ALL = sorted(p.name for p in CORPUS.iterdir() if (p / "expect.toml").is_file())
BAD = [n for n in ALL if not n.startswith("ok-")]
OK = [n for n in ALL if n.startswith("ok-")]
PROJECT_CASES = [n for n in BAD if "context" not in tomllib.loads(
    (CORPUS / n / "expect.toml").read_text(encoding="utf-8"))]
SOURCES = ["--no-user", "--no-plugins"]
BF = ProviderInfo("x", "bfmodel")


def expect(name: str) -> dict[str, Any]:
    return tomllib.loads((CORPUS / name / "expect.toml").read_text(encoding="utf-8"))


def argv(case: Path, exp: dict[str, Any], *extra: str) -> list[str]:
    args = ["render", "--provider", "x", "--model", "bfmodel", "--date", "2026-01-01", *SOURCES]
    if "context" in exp:
        args += ["--context", str(case / exp["context"])]
    if "context" in exp and exp["exit"] != 0:
        args.append("--no-project")
    else:
        args += ["--project", str(case)]
    return [*args, *extra]


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(args)
    out, err = capsys.readouterr()
    return rc, out, err


def assert_one_line_naming(err: str, where: Path, line: int | None) -> str:
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    msg = lines[0]
    assert msg.startswith("promptc: error: "), msg
    if line is not None:
        assert f"{where}:{line}: " in msg, msg
    else:
        assert str(where) in msg, msg
        assert not re.search(re.escape(str(where)) + r":\d", msg), msg
    return msg


def test_the_corpus_is_big_and_every_case_names_a_real_file() -> None:
    assert len(BAD) >= 30
    for name in BAD:
        exp = expect(name)
        assert exp["exit"] == 2 and exp["about"], name
        assert (CORPUS / name / exp["file"]).exists(), name
        assert isinstance(getattr(promptc, exp["error"]), type), name


@pytest.mark.parametrize("name", BAD)
def test_bad_file_is_one_line_naming_the_file_exit_2(name: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    case = CORPUS / name
    exp = expect(name)
    rc, out, err = run(argv(case, exp), capsys)
    assert rc == 2, err
    assert out == "" and "Traceback" not in out
    msg = assert_one_line_naming(err, case / exp["file"], exp.get("line"))
    if "message" in exp:
        assert re.search(exp["message"], msg), msg


@pytest.mark.parametrize("name", BAD)
def test_the_library_raises_the_declared_error(name: str) -> None:
    case = CORPUS / name
    exp = expect(name)
    cls = getattr(promptc, exp["error"])
    assert issubclass(cls, promptc.PromptcError) and issubclass(cls, ValueError)
    with pytest.raises(cls) as info:
        if "context" in exp:
            PromptContext.load(case / exp["context"])
        else:
            Compiler.default(project=case, user=False, plugins=False)
    assert info.value.source == str(case / exp["file"])
    assert info.value.line == exp.get("line")


@pytest.fixture(scope="module")
def before() -> tuple[Compiler, str]:
    """A compiler over the good folders, made before any case, and its prompt."""
    compiler = Compiler.default(project=GOOD, user=False, plugins=False)
    return compiler, compiler.compile(BF, PromptContext(cwd="/w", date="2026-01-01")).text


@pytest.mark.parametrize("name", PROJECT_CASES)
def test_nothing_is_half_registered_after_a_failed_load(name: str,
                                                        capsys: pytest.CaptureFixture[str],
                                                        before: tuple[Compiler, str]) -> None:
    case = CORPUS / name
    before_compiler, reference = before
    assert run(argv(case, expect(name)), capsys)[0] == 2
    with pytest.raises(promptc.PromptcError):
        Compiler.default(project=case, user=False, plugins=False)
    # A fresh compiler with the good folders: same variants, same prompt, nothing from the case.
    after = Compiler.default(project=GOOD, user=False, plugins=False)
    assert list(after.registry.variants) == list(before_compiler.registry.variants)
    assert list(after.registry.tools) == list(before_compiler.registry.tools)
    assert all(not v.path.startswith(str(case)) for v in after.registry.variants.values())
    assert all(not t.origin.startswith(str(case)) for t in after.registry.tools.values())
    assert after.registry.variants["bf"].path == str(GOOD / "variants" / "bf" / "variant.toml")
    out = after.compile(BF, PromptContext(cwd="/w", date="2026-01-01"))
    assert out.text == reference and not out.diagnostics
    assert "Marker: BF-MARKER." in out.text
    # and through the CLI
    rc, listing, err = run(["variants", "--json", "--project", str(GOOD), *SOURCES], capsys)
    assert rc == 0 and err == ""
    assert str(case) not in listing
    listed = set(re.findall(r'"id": "([^"]+)"', listing))
    assert listed == set(before_compiler.registry.variants)


# --- accepted: a BOM, CRLF line ends ----------------------------------------------------------

def _normalized_copy(case: Path, dest: Path) -> Path:
    """The same tree with every BOM dropped and every CRLF folded: the expected equivalent."""
    for path in sorted(case.rglob("*")):
        if path.is_file():
            target = dest / path.relative_to(case)
            target.parent.mkdir(parents=True, exist_ok=True)
            data = path.read_bytes()
            data = data.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")
            target.write_bytes(data)
    return dest


@pytest.mark.parametrize("name", OK)
def test_a_bom_and_crlf_are_accepted_and_normalized(name: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    case = CORPUS / name
    exp = expect(name)
    raw = [p.read_bytes() for p in case.rglob("*") if p.is_file() and p.name != "expect.toml"]
    if name == "ok-bom":
        assert all(b.startswith(b"\xef\xbb\xbf") for b in raw)
    else:
        assert all(b"\r\n" in b for b in raw)
    rc, out, err = run(argv(case, exp, "--strict"), capsys)
    assert (rc, err) == (exp["exit"], "")
    assert exp["stdout"] in out
    assert "\ufeff" not in out and "\r" not in out
    assert "Line one.\nLine two." in out  # the CRLF inside a rule's text too
    plain = _normalized_copy(case, tmp_path / "plain")
    rc2, out2, err2 = run(argv(plain, exp, "--strict"), capsys)
    assert (rc2, err2) == (0, "") and out2 == out
    # library level: the same data as the plain files
    assert PromptContext.load(case / exp["context"]) == PromptContext.load(plain /
                                                                           exp["context"])
    odd = Compiler.default(project=case, user=False, plugins=False)
    ref = Compiler.default(project=plain, user=False, plugins=False)
    assert odd.registry.tools["bf_tool"].description == ref.registry.tools["bf_tool"].description
    assert "\r" not in odd.registry.tools["bf_tool"].description
    assert odd.registry.variants["bf"].template.text == ref.registry.variants["bf"].template.text
    ctx = PromptContext.load(case / exp["context"])
    assert odd.compile(BF, ctx, strict=True).tools.openai() == \
        ref.compile(BF, ctx, strict=True).tools.openai()


# --- 50 MB files, generated --------------------------------------------------------------------

MB = 1024 * 1024
BIG = 5 * MB  # times `scale`: 5 MB (past the 4 MB data-file limit), 50 MB with --full-scale
LINE = "All work and no play makes a very long rules file. " * 20 + "\n"


def _write_big(path: Path, head: str, body_bytes: int, tail: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    chunk = LINE * 1000
    with path.open("w", encoding="utf-8", newline="\n") as f:
        f.write(head)
        written = 0
        while written < body_bytes:
            f.write(chunk)
            written += len(chunk)
        f.write(tail)


@pytest.mark.scale
def test_a_component_file_over_the_limit_is_refused_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], scale: int) -> None:
    project = shutil.copytree(GOOD, tmp_path / "proj")
    big = project / "components" / "objective.md"
    _write_big(big, "# Objective\n\n", BIG * scale, "")
    assert big.stat().st_size > BIG * scale
    rc, out, err = run(["render", "--provider", "x", "--model", "bfmodel", "--project",
                        str(project), *SOURCES], capsys)
    assert rc == 2 and out == ""
    msg = assert_one_line_naming(err, big, None)
    assert "limit" in msg
    with pytest.raises(promptc.VariantConfigError):
        Compiler.default(project=project, user=False, plugins=False)


@pytest.mark.scale
def test_a_big_context_file_is_read_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          scale: int) -> None:
    path = tmp_path / "context.json"
    body = LINE * (BIG * scale // len(LINE) + 1)
    path.write_text('{"cwd": "/w",\n "rules": [{"name": "big", "text": ' +
                    json.dumps(body) + "}]}\n", encoding="utf-8")
    assert path.stat().st_size > BIG * scale
    rc, out, err = run(["render", "--provider", "x", "--model", "y", "--context", str(path),
                        "--date", "2026-01-01", "--no-project", *SOURCES], capsys)
    assert (rc, err) == (0, "")
    assert body.strip() in out


@pytest.mark.scale
def test_a_big_context_file_with_an_error_on_its_last_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], scale: int) -> None:
    path = tmp_path / "context.json"
    _write_big(path, '{"runtime": {"NOTE": "x"},\n "rules": [\n', 0, "")
    lines = BIG * scale // len(LINE) + 1
    with path.open("a", encoding="utf-8") as f:
        for i in range(lines):
            f.write(f'  {{"name": "r{i}", "text": "{LINE.strip()}"}},\n')
        f.write("]}\n")  # the trailing comma before `]` is the error
    assert path.stat().st_size > BIG * scale
    rc, out, err = run(["render", "--provider", "x", "--model", "y", "--context", str(path),
                        "--no-project", *SOURCES], capsys)
    assert rc == 2 and out == ""
    msg = assert_one_line_naming(err, path, lines + 3)
    assert "invalid JSON" in msg


# --- end to end, in a real process -------------------------------------------------------------

@pytest.mark.parametrize("name", ["toml-too-deep", "json-lone-surrogate",
                                  "mustache-unclosed-section", "non-utf8-template",
                                  "context-unknown-field", "tool-when-unknown-has"])
def test_no_traceback_end_to_end(name: str) -> None:
    case = CORPUS / name
    exp = expect(name)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "promptc", *argv(case, exp)],
                          capture_output=True, text=True, env=env, timeout=120, cwd=case)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.stdout == ""
    assert_one_line_naming(proc.stderr, case / exp["file"], exp.get("line"))


def test_ok_cases_end_to_end() -> None:
    for name in OK:
        case = CORPUS / name
        exp = expect(name)
        proc = subprocess.run([sys.executable, "-m", "promptc", *argv(case, exp, "--strict")],
                              capture_output=True, text=True, timeout=120, cwd=case,
                              env={**os.environ, "NO_COLOR": "1"})
        assert (proc.returncode, proc.stderr) == (0, "")
        assert exp["stdout"] in proc.stdout and "\r" not in proc.stdout


def test_a_lone_short_form_in_a_project_replaces_only_the_shorter_form(tmp_path: Path) -> None:
    # Before: a project's `components/<id>.short.md` without `<id>.md` was silently ignored
    # (never parsed, never used).
    short = tmp_path / "components" / "rules.short.md"
    short.parent.mkdir(parents=True)
    short.write_text("# Rules\n\nThe project's short rules.\n", encoding="utf-8")
    c = Compiler.default(project=tmp_path, user=False, plugins=False)
    builtin = Compiler.builtins().registry.components["rules"]
    rules = c.registry.components["rules"]
    assert rules.short_template == "# Rules\n\nThe project's short rules.\n"
    assert rules.short_path == str(short)
    assert rules.short_origin == "project:components/rules.short.md"
    assert (rules.template, rules.path) == (builtin.template, builtin.path)
