"""`promptc init`: a new project without the built-in coding pack, in which `promptc lint
--strict`, `promptc snapshot --check` and `pytest` pass at once (each run here as a user would,
in a subprocess, in a fresh temporary folder)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from promptc._review.project_init import SCAFFOLD, scaffold_files

OTHER_PYTEST_PLUGINS = ("hypothesispytest", "xdist", "xdist.looponfail", "langsmith_plugin",
                        "anyio")


def env() -> dict[str, str]:
    """This environment without pytest's, promptc's or a PYTHONPATH of its own."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("PYTEST_", "PROMPTC")) and k != "PYTHONPATH"}


def run(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=cwd, env=env(), text=True,
                          capture_output=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def new_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    here = tmp_path_factory.mktemp("fresh")
    done = run(here, "promptc", "init", "bot")
    assert done.returncode == 0, done.stderr
    assert "cd bot && promptc render" in done.stdout
    return here / "bot"


def test_right_after_init_lint_snapshots_and_pytest_pass(new_project: Path) -> None:
    lint = run(new_project, "promptc", "lint", "--strict")
    check = run(new_project / "prompts", "promptc", "snapshot", "--check")  # from a subfolder
    others = [arg for name in OTHER_PYTEST_PLUGINS for arg in ("-p", f"no:{name}")]
    tests = run(new_project, "pytest", "-q", "-p", "no:cacheprovider", *others)
    assert lint.returncode == 0 and lint.stdout.startswith("ok: 0 finding(s) in 2"), lint.stdout
    assert check.returncode == 0 and "4 snapshot(s) match" in check.stdout, check.stdout
    assert tests.returncode == 0 and "5 passed" in tests.stdout, tests.stdout + tests.stderr


def test_the_new_project_has_none_of_the_coding_pack(new_project: Path) -> None:
    settings = (new_project / "promptc.toml").read_text(encoding="utf-8")
    assert "builtins = false" in settings
    variants = run(new_project, "promptc", "variants", "--json")
    assert variants.returncode == 0 and '"source": "builtin"' not in variants.stdout
    for snapshot in (new_project / "snapshots").glob("*.md"):
        assert "software engineering" not in snapshot.read_text(encoding="utf-8")
    unmatched = run(new_project, "promptc", "render", "--provider", "google", "--model",
                    "gemini-2.5-pro")
    assert unmatched.returncode == 2 and "no variant matches" in unmatched.stderr


def test_the_readme_commands_of_the_new_project_run(new_project: Path) -> None:
    readme = (new_project / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Try it", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line]
    assert len(commands) == 4
    for command in commands:
        done = run(new_project, *shlex.split(command, comments=True))
        assert done.returncode == 0, (command, done.stderr)
    differs = run(new_project, "promptc", "render", "--provider", "openai", "--model",
                  "gpt-4.1", "--set", "USER_NAME=Sam")
    assert "Keep each answer under 150 words" in differs.stdout  # the GPT variant's edit
    assert "talking with Sam" in differs.stdout


def test_init_never_overwrites_a_project(new_project: Path) -> None:
    before = (new_project / "promptc.toml").read_text(encoding="utf-8")
    again = run(new_project.parent, "promptc", "init", "bot")
    assert again.returncode == 2 and "already holds" in again.stderr and "--force" in again.stderr
    assert (new_project / "promptc.toml").read_text(encoding="utf-8") == before


def test_written_files_follow_the_umask(tmp_path: Path) -> None:
    """Once every file promptc wrote was -rw------- whatever the umask."""
    for umask, mode in ((0o022, 0o644), (0o077, 0o600)):
        target = tmp_path / f"u{umask:o}"
        done = subprocess.run([sys.executable, "-c",
                               f"import os, sys; os.umask({umask}); from promptc._cli import "
                               f"main; sys.exit(main(['init', {str(target)!r}]))"],
                              env=env(), capture_output=True, text=True, timeout=300,
                              check=False)
        assert done.returncode == 0, done.stderr
        for path in (target / "promptc.toml", target / "snapshots" / ".promptc-snapshots",
                     *(target / "snapshots").glob("*.md")):
            assert path.stat().st_mode & 0o777 == mode, (path, oct(path.stat().st_mode))


def test_the_scaffold_is_data_and_python_is_kept_out_of_the_package() -> None:
    files = scaffold_files()
    assert "tests/test_prompts.py" in files and "promptc.toml" in files
    assert not list(SCAFFOLD.rglob("*.py"))  # `.py.in`: not part of promptc's own modules
