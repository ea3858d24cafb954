"""`promptc init`: a new project without the built-in coding pack, in which `promptc lint
--strict`, `promptc snapshot --check` and `pytest` pass at once. The commands run here as a
user would type them, in a fresh temporary folder (in this process, with the working directory
changed; `pytest` itself in a subprocess)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptc._cli import main
from promptc._review.project_init import SCAFFOLD, scaffold_files

OTHER_PYTEST_PLUGINS = ("hypothesispytest", "xdist", "xdist.looponfail", "langsmith_plugin",
                        "anyio")
README = Path(__file__).resolve().parent.parent / "README.md"


@contextlib.contextmanager
def inside(folder: Path) -> Iterator[None]:
    here = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(here)


def promptc(capsys: pytest.CaptureFixture[str], folder: Path, *argv: str
            ) -> tuple[int, str, str]:
    """`promptc ARGV` run in `folder` (as typed there: the project is found from it)."""
    with inside(folder):
        code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def command(folder: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """`python -m ARGV` in `folder`, in a process of its own, as a user's shell runs it."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "PROMPTC")) and k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", *argv], cwd=folder, env=env, text=True,
                          capture_output=True, timeout=300, check=False)


def pytest_in(folder: Path) -> subprocess.CompletedProcess[str]:
    """`pytest` in `folder`, as its author runs it (promptc's plugin auto-loaded; this
    environment's other pytest plugins, which a new project does not use, left out)."""
    others = [arg for name in OTHER_PYTEST_PLUGINS for arg in ("-p", f"no:{name}")]
    return command(folder, "pytest", "-q", "-p", "no:cacheprovider", *others)


@pytest.fixture(autouse=True)
def _no_project_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PROMPTC_PROJECT", raising=False)


@pytest.fixture
def new_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    code, out, err = promptc(capsys, tmp_path, "init", "support-bot")
    assert code == 0, err
    assert "cd support-bot && promptc render" in out
    return tmp_path / "support-bot"


def test_the_five_minute_guide_runs_as_written(new_project: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The README's "Your own prompt in five minutes", right after `promptc init`: a project
    built from the docs alone renders, lints strictly, matches its snapshots, passes its tests,
    takes a change and is used from Python."""
    guide = README.read_text(encoding="utf-8").split(
        "\n## Your own prompt in five minutes\n", 1)[1].split("\n## ", 1)[0]
    first, change = re.findall(r"```sh\n(.*?)```", guide, re.S)
    lines = [line for line in first.splitlines() if line.startswith(("promptc ", "pytest"))]
    assert lines[0].startswith("promptc init support-bot && cd support-bot")
    assert lines[-1].startswith("pytest")
    for line in lines[1:-1]:
        code, out, err = promptc(capsys, new_project, *shlex.split(line, comments=True)[1:])
        assert code == 0, (line, err)
        assert "software engineering" not in out  # nothing of the built-in coding pack
    lint = command(new_project, "promptc", "lint", "--strict")
    check = command(new_project / "prompts", "promptc", "snapshot", "--check")  # a subfolder
    assert lint.returncode == 0 and lint.stdout.startswith("ok: 0 finding(s) in 2"), lint.stdout
    assert check.returncode == 0 and "4 snapshot(s) match" in check.stdout, check.stdout
    # (its `pytest` line: test_the_new_projects_own_tests_pass, in .ci/run's second pass)

    # Change a prompt, see the change (exit 1), accept it.
    edit, see, accept = [line for line in change.splitlines() if line]
    echo, text, append, path = shlex.split(edit)
    assert (echo, append) == ("echo", ">>")
    with (new_project / path).open("a", encoding="utf-8") as file:
        file.write(text + "\n")
    code, out, _ = promptc(capsys, new_project, *shlex.split(see, comments=True)[1:])
    assert code == 1 and f"+{text}" in out and "policies" in out
    code, _, err = promptc(capsys, new_project, *shlex.split(accept, comments=True)[1:])
    assert code == 0, err
    assert promptc(capsys, new_project, "snapshot", "--check")[0] == 0

    scope: dict[str, Any] = {}
    with inside(new_project):
        exec(guide.split("```python\n", 1)[1].split("```", 1)[0], scope)  # noqa: S102
    prompt, payload = scope["prompt"], scope["payload"]
    assert "You are talking with Sam." in prompt.text and text in prompt.text
    assert "Sam" in prompt.message and "Sam" not in prompt.system  # the per-request part
    assert [tool["name"] for tool in payload["tools"]] == ["search_help_center"]
    details, question = payload["messages"]
    assert details["role"] == "user"
    assert [block["text"] for block in details["content"]] == [prompt.message]
    assert question == {"role": "user", "content": "How do I export?"}


@pytest.mark.heavy  # a pytest run inside pytest: about a second of its own
def test_the_new_projects_own_tests_pass(new_project: Path) -> None:
    """The guide's last line, `pytest`, in the project `init` made: its own tests pass, with
    promptc's pytest plugin auto-loaded as an author's environment loads it."""
    tests = pytest_in(new_project)
    assert tests.returncode == 0 and "5 passed" in tests.stdout, tests.stdout + tests.stderr


def test_the_readme_review_commands_run_in_the_new_project(
        new_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The README's "Reviewing prompt changes", in the project `init` made, after a change."""
    readme = README.read_text(encoding="utf-8")
    section = readme.split("\n## Reviewing prompt changes\n", 1)[1].split("\n## ", 1)[0]
    lines = re.findall(r"```sh\n(.*?)```", section, re.S)[0].splitlines()
    (new_project / "prompts" / "components" / "style.md").write_text("Be brief.\n",
                                                                    encoding="utf-8")
    expected = iter([1, 0, 0, 0])  # --check sees the change, --update accepts it
    for line in lines:
        argv = shlex.split(line, comments=True)[1:]
        target = argv[argv.index(">") + 1] if ">" in argv else None
        argv = argv[:argv.index(">")] if target else argv
        code, out, err = promptc(capsys, new_project, *argv)
        assert code == next(expected), (line, err)
        if target:
            (new_project / target).write_text(out, encoding="utf-8")
        if "--to-model" in argv:
            assert "assistant-gpt" in out and "policies" in out
    assert "No prompt changed" in (new_project / "review.md").read_text(encoding="utf-8")


def test_the_new_project_has_none_of_the_coding_pack(
        new_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "builtins = false" in (new_project / "promptc.toml").read_text(encoding="utf-8")
    code, out, _ = promptc(capsys, new_project, "variants", "--json")
    assert code == 0 and '"source": "builtin"' not in out
    for snapshot in (new_project / "snapshots").glob("*.md"):
        assert "software engineering" not in snapshot.read_text(encoding="utf-8")
    code, out, err = promptc(capsys, new_project, "render", "--provider", "google", "--model",
                             "gemini-2.5-pro")
    assert code == 2 and out == "" and "no variant matches" in err


def test_the_readme_commands_of_the_new_project_run(
        new_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = (new_project / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Try it", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line]
    assert len(commands) == 4
    for command in commands:
        code, _, err = promptc(capsys, new_project, *shlex.split(command, comments=True)[1:])
        assert code == 0, (command, err)
    code, out, _ = promptc(capsys, new_project, "render", "--provider", "openai", "--model",
                           "gpt-4.1", "--set", "USER_NAME=Sam")
    assert "Keep each answer under 150 words" in out  # the GPT variant's section edit
    assert "talking with Sam" in out


def test_init_never_overwrites_a_project(new_project: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    before = (new_project / "promptc.toml").read_text(encoding="utf-8")
    code, _, err = promptc(capsys, new_project.parent, "init", "support-bot")
    assert code == 2 and "already holds" in err and "--force" in err
    assert (new_project / "promptc.toml").read_text(encoding="utf-8") == before


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600)])
def test_written_files_follow_the_umask(tmp_path: Path, umask: int, mode: int,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Once every file promptc wrote was -rw------- whatever the umask."""
    old = os.umask(umask)
    try:
        assert promptc(capsys, tmp_path, "init", "p")[0] == 0
    finally:
        os.umask(old)
    target = tmp_path / "p"
    for path in (target / "promptc.toml", target / "snapshots" / ".promptc-snapshots",
                 *(target / "snapshots").glob("*.md")):
        assert path.stat().st_mode & 0o777 == mode, (path, oct(path.stat().st_mode))


def test_the_scaffold_is_data_and_python_is_kept_out_of_the_package() -> None:
    files = scaffold_files()
    assert "tests/test_prompts.py" in files and "promptc.toml" in files
    assert not list(SCAFFOLD.rglob("*.py"))  # `.py.in`: not part of promptc's own modules


def test_the_library_starter_passes_its_checks_and_its_readme_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`init --starter library`: templates used by id, typed inputs with examples; its README's
    commands run as written (a copied template included), then lint, snapshots and its own
    tests pass, and its Python snippet compiles a template."""
    code, out, err = promptc(capsys, tmp_path, "init", "templates", "--starter", "library")
    assert code == 0, err
    assert "cd templates && promptc render --variant summary --examples" in out
    library = tmp_path / "templates"
    readme = (library / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Try it", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line]
    assert commands[-1].startswith("promptc new-variant")
    for line in commands:
        code, out, err = promptc(capsys, library, *shlex.split(line, comments=True)[1:])
        assert code == 0, (line, err)
        assert "software engineering" not in out
    code, out, _ = promptc(capsys, library, "variants", "--json")
    templates = json.loads(out)
    assert [t["id"] for t in templates] == ["reply", "summary", "summary-short"]
    assert all(t["match"] == "never" and t["source"] == "project" for t in templates)
    assert all(i["example"] is not None or i["default"] is not None
               for t in templates for i in t["inputs"])
    lint = command(library, "promptc", "lint", "--strict")
    check = command(library / "templates", "promptc", "snapshot", "--check")  # a subfolder
    assert lint.returncode == 0 and lint.stdout.startswith("ok: 0 finding(s) in 3"), lint.stdout
    assert check.returncode == 0 and "4 snapshot(s) match" in check.stdout, check.stdout
    # (its own tests: test_the_library_starters_own_tests_pass, in .ci/run's second pass)
    scope: dict[str, Any] = {}
    with inside(library):
        exec(readme.split("```python\n", 1)[1].split("```", 1)[0], scope)  # noqa: S102
    assert scope["prompt"].variant.id == "summary"
    assert "Reader: executive. Length: at most 80 words." in scope["prompt"].text


@pytest.mark.heavy  # a pytest run inside pytest: about a second of its own
def test_the_library_starters_own_tests_pass(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`init --starter library`, a template copied as its README shows, then the library's
    own tests: every template is checked, the copy too."""
    code, _out, err = promptc(capsys, tmp_path, "init", "templates", "--starter", "library")
    assert code == 0, err
    library = tmp_path / "templates"
    readme = (library / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Try it", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    [copy] = [line for line in block.splitlines() if line.startswith("promptc new-variant")]
    code, _out, err = promptc(capsys, library, *shlex.split(copy, comments=True)[1:])
    assert code == 0, err
    tests = pytest_in(library)
    assert tests.returncode == 0 and "2 passed" in tests.stdout, tests.stdout + tests.stderr


def test_an_unknown_starter_is_refused(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info, inside(tmp_path):
        raise SystemExit(main(["init", "x", "--starter", "chat"]))
    err = capsys.readouterr().err
    assert info.value.code == 2 and "invalid choice: 'chat'" in err
    assert not (tmp_path / "x").exists()
