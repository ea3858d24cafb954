"""Model tables and deep input never crash: a bad map or table is exit 2 naming the file and
where, a bad row of the user's table is skipped with a warning (renders go on), archive members
are size-limited like files, `--builtins-only` / `--no-user` leave the user's table out, and
deep values of any shape are typed errors. Each of these once ended in exit 70 (an internal
error), a MemoryError or a RecursionError."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from promptc import Compiler, InputError, ProviderInfo
from promptc._cli import main
from promptc._model.provider import TABLE_FIELDS, TABLE_FORMAT, model_data, user_table_path

FIXTURE_MAP = (Path(__file__).parent / "fixtures" / "litellm_site" / "litellm" /
               "model_prices_and_context_window_backup.json")
ENTRY = '{"x-chat": {"mode": "chat", "litellm_provider": "x", "max_input_tokens": %s}}'


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    model_data.cache_clear()
    folder = user_table_path().parent
    folder.mkdir(parents=True)
    yield folder
    model_data.cache_clear()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("body", "says"), [
    (ENTRY % "NaN", "NaN"), (ENTRY % "Infinity", "Infinity"), (ENTRY % "-Infinity", "Infinity"),
    (ENTRY % ("9" * 5000), "digits"), ("[" * 100_000 + "]" * 100_000, "nested"),
], ids=["nan", "infinity", "minus-infinity", "5000-digits", "100k-deep"])
def test_a_bad_map_is_exit_2_naming_the_file(body: str, says: str, tmp_path: Path,
                                             user_dir: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "map.json"
    source.write_text(body, encoding="utf-8")
    code, _, err = run(capsys, "models", "update", "--from", str(source))
    assert code == 2 and str(source) in err and says in err, err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err
    if says != "nested":
        assert ":1" in err  # and the line it is on
    assert not user_table_path().exists()


def user_table(folder: Path, rows: dict[str, str]) -> Path:
    path = folder / "models.json"
    path.write_text(json.dumps({"format": TABLE_FORMAT, "fields": list(TABLE_FIELDS),
                                "source": {"name": "mine"}, "models": rows}), encoding="utf-8")
    model_data.cache_clear()
    return path


def test_a_bad_user_row_is_skipped_with_a_warning(user_dir: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A row holding '²' (a digit to str.isdigit, not to int) once made every render exit 70."""
    path = user_table(user_dir, {"claude-sonnet-4-5": "claude-sonnet-4-5|²||||||||",
                                 "gpt-5": "gpt-5|272000|128000|t|t|t|t||t|"})
    assert ProviderInfo("openai", "gpt-5").resolved().context_window == 272000
    assert ProviderInfo("anthropic", "claude-sonnet-4-5").resolved().context_window == 200000
    code, out, err = run(capsys, "render", "--no-project", "--no-plugins", "--provider",
                         "anthropic", "--model", "claude-sonnet-4-5", "--date", "2026-01-01")
    assert code == 0 and out and str(path) in err and "models.claude-sonnet-4-5" in err
    assert "skipped" in err
    code, _, err = run(capsys, "render", "--no-project", "--no-plugins", "--strict",
                       "--provider", "openai", "--model", "gpt-5", "--date", "2026-01-01")
    assert code == 1 and "models.claude-sonnet-4-5" in err  # strict: the warning fails it
    code, _, err = run(capsys, "models")  # the inspection command still names the field
    assert code == 2 and "models.claude-sonnet-4-5" in err


def test_builtins_only_and_no_user_leave_the_users_table_out(user_dir: Path) -> None:
    """`snapshot --update --builtins-only` once baked a developer's private table into the
    snapshots."""
    user_table(user_dir, {"gpt-4-1": "gpt-4.1|16000|4096|t|t|t|t|||"})
    tiny = ProviderInfo("openai", "gpt-4.1")
    assert Compiler.default(project=False, plugins=False).resolve(tiny).variant.id == "compact"
    for compiler in (Compiler.builtins(), Compiler.default(project=False, plugins=False,
                                                           user=False)):
        assert compiler.resolve(tiny).variant.id == "generic"
        assert compiler.compile(tiny, {}).provider.context_window == 1047576


def test_archive_members_are_size_limited(tmp_path: Path, user_dir: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A 1.8 MB wheel holding a 400 MB member once hit MemoryError: the limit now applies to
    what is read from an archive too (a small limit stands in for the real one here)."""
    from promptc._model.provider import litellm_map
    monkeypatch.setattr(litellm_map, "MAX_TABLE_FILE", 4096)
    wheel = tmp_path / "litellm-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("litellm/model_prices_and_context_window_backup.json",
                   '{"pad": "' + " " * 100_000 + '"}')
    code, _, err = run(capsys, "models", "update", "--from", str(wheel))
    assert code == 2 and "limit" in err and str(wheel) in err, err
    assert FIXTURE_MAP.stat().st_size > 4096  # a plain file is limited the same way
    code, _, err = run(capsys, "models", "update", "--from", str(FIXTURE_MAP))
    assert code == 2 and "limit" in err, err


def deep(depth: int) -> list[object]:
    root: list[object] = []
    node = root
    for _ in range(depth):
        node.append([])
        node = node[0]  # type: ignore[assignment]
    return root


def test_a_declared_input_given_deep_data_is_a_typed_problem(tree: object) -> None:
    folder = tree({"variants/mine/variant.toml":  # type: ignore[operator]
                   'extends = "generic"\n[inputs.TEAM]\ntype = "string"\n'})
    compiler = Compiler.from_folders(folder)
    with pytest.raises(InputError) as caught:  # refused in every mode (issue 35)
        compiler.compile(ProviderInfo("openai", "gpt-4.1"), {"runtime": {"TEAM": deep(2000)}},
                         variant="mine")
    message = caught.value.diagnostic.message
    assert "TEAM" in message and "a list" in message and len(message) < 300


def test_a_deep_context_file_is_a_context_error(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    for name, body in [("deep.json", '{"runtime": {"X": ' + "[" * 100_000 + "]" * 100_000
                        + "}}"), ("big.json", '{"runtime": {"X": ' + "9" * 5000 + "}}"),
                       ("nan.json", '{"runtime": {"X": NaN}}')]:
        path = tmp_path / name
        path.write_text(body, encoding="utf-8")
        code, _, err = run(capsys, "render", "--builtins-only", "--provider", "openai",
                           "--model", "gpt-4.1", "--context", str(path))
        assert code == 2 and str(path) in err and "internal error" not in err, err
