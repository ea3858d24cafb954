"""scripts/check_code.py, the complexity and size limits .ci/run holds promptc to: it fails
naming what is over (too many functions ranked C or worse, one ranked at the failing rank, a
module too long, source made into code at run time, marshal'd data) and passes what is within,
with the limits given on its command line."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "check_code.py"


@pytest.fixture(scope="module")
def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_code", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def branchy(name: str, branches: int, indent: str = "") -> str:
    """A function of cyclomatic complexity branches + 1."""
    body = "".join(f"{indent}    if x == {i}:\n{indent}        return {i}\n"
                   for i in range(branches))
    return f"{indent}def {name}(x):\n{body}{indent}    return -1\n"


def simple(count: int) -> str:
    return "".join(f"def simple_{i}(x):\n    return x\n\n" for i in range(count))


Run = Callable[..., tuple[int, str]]


@pytest.fixture
def run(script: ModuleType, capsys: pytest.CaptureFixture[str]) -> Run:
    def go(*argv: str) -> tuple[int, str]:
        code = script.main(list(argv))
        out, err = capsys.readouterr()
        return code, out + err
    return go


def package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_within_the_limits_passes_and_shows_the_counts(tmp_path: Path, run: Run) -> None:
    pkg = package(tmp_path / "pkg", {"a.py": simple(19) + branchy("middling", 11)})
    code, out = run(str(pkg), "--max-share", "5")
    assert code == 0, out
    assert "20 functions: A 19, B 0, C 1" in out and "C or worse: 1 (5.0%)" in out


def test_too_many_functions_ranked_c_or_worse_fail(tmp_path: Path, run: Run) -> None:
    pkg = package(tmp_path / "pkg", {"a.py": simple(18) + branchy("one", 11) +
                                     branchy("two", 21)})
    code, out = run(str(pkg), "--max-share", "7")
    assert code == 1
    assert "2 of 20 functions (10.0%) rank C or worse; the limit is 7%" in out
    assert run(str(pkg), "--max-share", "10")[0] == 0  # at the limit is within it


def test_any_function_at_the_failing_rank_fails_by_name(tmp_path: Path, run: Run) -> None:
    pkg = package(tmp_path / "pkg", {"sub/deep.py": simple(99) + branchy("worst", 31)})
    code, out = run(str(pkg))
    assert code == 1
    assert "deep.py:" in out and "worst ranks E (complexity 32)" in out
    assert run(str(pkg), "--fail-rank", "F")[0] == 0


def test_a_branchy_nested_function_does_not_hide_in_its_parent(tmp_path: Path,
                                                              run: Run) -> None:
    nested = "def outer(x):\n" + branchy("inner", 45, indent="    ") + "    return inner(x)\n"
    code, out = run(str(package(tmp_path / "pkg", {"a.py": simple(99) + nested})))
    assert code == 1 and "outer.inner ranks F (complexity 46)" in out


def test_a_module_over_the_line_limit_fails_by_name(tmp_path: Path, run: Run) -> None:
    pkg = package(tmp_path / "pkg", {"long.py": simple(11), "short.py": simple(1)})
    code, out = run(str(pkg), "--max-lines", "32")
    assert code == 1 and "long.py: 33 lines; the limit is 32" in out and "short.py:" not in out
    assert run(str(pkg), "--max-lines", "33")[0] == 0


def test_a_module_that_does_not_parse_is_named(tmp_path: Path, run: Run) -> None:
    code, out = run(str(package(tmp_path / "pkg", {"ok.py": simple(1),
                                                   "bad.py": "def broken(:\n"})))
    assert code == 1 and "bad.py:1: cannot be parsed" in out


@pytest.mark.parametrize("argv", [["--max-share", "120"], ["--max-lines", "0"],
                                  ["--fail-rank", "Z"]])
def test_bad_limits_are_usage_errors(argv: list[str], run: Run) -> None:
    with pytest.raises(SystemExit) as info:
        run(*argv)
    assert info.value.code == 2


def test_a_folder_without_python_is_a_usage_error(tmp_path: Path, run: Run) -> None:
    code, out = run(str(tmp_path))
    assert code == 2 and "not a folder with Python modules" in out


@pytest.mark.parametrize("call", ["exec(text)", "eval('1 + 1')", "compile(text, 'x', 'exec')",
                                  "builtins.eval(text)", "__builtins__.exec(text)"])
def test_source_made_into_code_fails_by_line(tmp_path: Path, run: Run, call: str) -> None:
    pkg = package(tmp_path / "pkg", {"ok.py": simple(1),
                                     "gen.py": f"import builtins\n\ndef f(text):\n    {call}\n"})
    code, out = run(str(pkg))
    name = call.split("(")[0].rsplit(".", 1)[-1]
    assert code == 1 and f"gen.py:4: calls {name}()" in out and "ok.py:" not in out


def test_methods_named_like_the_builtins_pass(tmp_path: Path, run: Run) -> None:
    text = ("import re\n\nPATTERN = re.compile('x')\n\ndef f(compiler, code):\n"
            "    return compiler.compile(code), compiler.eval(code)\n")
    assert run(str(package(tmp_path / "pkg", {"a.py": text})))[0] == 0


def test_a_marshal_file_fails_by_name(tmp_path: Path, run: Run) -> None:
    pkg = package(tmp_path / "pkg", {"a.py": simple(1)})
    (pkg / "data").mkdir()
    (pkg / "data" / "table.marshal").write_bytes(b"\xe3")
    code, out = run(str(pkg))
    assert code == 1 and "table.marshal: marshal'd data" in out


def test_promptc_itself_is_measured_whole_and_makes_no_source_into_code(script: ModuleType
                                                                       ) -> None:
    """The default folder parses throughout (the limits it is held to are .ci/run's), with
    no call of the exec, eval or compile builtins under promptc/ and no .marshal file. One
    check of the whole package serves both (it parses every module twice: seconds)."""
    findings = script.check(SCRIPT.parent.parent / "promptc", script.Limits(100.0, "F", 10**6))
    assert len(findings.functions) > 500
    assert any(path == "promptc/__init__.py" for path, _ in findings.sizes)
    assert not [p for p in findings.problems if "cannot be parsed" in p]
    assert not [p for p in findings.problems if "calls " in p or "marshal" in p]
