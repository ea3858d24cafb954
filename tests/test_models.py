"""Model data: the table generated from LiteLLM's map, the hand-kept overlay, the user's newer
table (`promptc models update`), and `promptc models` showing each fact with its source."""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import io
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any
from pathlib import Path

import pytest

from promptc import Compiler, ConfigError, PromptcError, ProviderInfo
from promptc._cli.args import UsageError
from promptc._cli.models import add_models_command
from promptc._model.provider import (TABLE_FIELDS, TABLE_FORMAT, model_data, model_facts,
                                     parse_table, shipped_table_path, user_table_path)
from promptc._model.provider.paths import overlay_path

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "scripts" / "update_models.py"
SITE = Path(__file__).parent / "fixtures" / "litellm_site"
FIXTURE_MAP = SITE / "litellm" / "model_prices_and_context_window_backup.json"


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The user data folder in tmp_path (every platform's variable), model data read afresh."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "data"))
    model_data.cache_clear()
    assert str(user_table_path()).startswith(str(tmp_path))
    yield user_table_path().parent
    model_data.cache_clear()


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`promptc models …` through add_models_command, with main's error handling (exit 2 and
    one line on stderr for bad usage or bad input)."""
    parser = argparse.ArgumentParser(prog="promptc")
    sub = parser.add_subparsers(dest="command", required=True)
    commands: dict[str, object] = {}
    add_models_command(sub, commands)  # type: ignore[arg-type]
    args = parser.parse_args(argv)
    try:
        code = commands[args.command](args)  # type: ignore[operator]
    except (UsageError, PromptcError) as exc:
        sys.stderr.write(f"promptc: error: {exc}\n")
        code = 2
    out, err = capsys.readouterr()
    return code, out, err


# --- the shipped data --------------------------------------------------------------------------

def test_the_shipped_table_names_its_source() -> None:
    data = json.loads(shipped_table_path().read_text(encoding="utf-8"))
    source = data["source"]
    assert data["format"] == TABLE_FORMAT and data["fields"] == list(TABLE_FIELDS)
    assert source["name"] == "LiteLLM" and source["package"] == "litellm"
    assert re.fullmatch(r"\d+\.\d+\.\d+", source["version"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", source["date"])
    assert re.fullmatch(r"[0-9a-f]{64}", source["sha256"])
    assert source["by"] == "scripts/update_models.py"
    table = parse_table(shipped_table_path().read_text(encoding="utf-8"),
                        str(shipped_table_path()), deep=True)
    assert len(table.models) > 1000
    # The test fixture of the map's chat entries comes from the same LiteLLM.
    ids = json.loads((Path(__file__).parent / "fixtures" / "litellm_chat_models.json")
                     .read_text(encoding="utf-8"))
    assert ids["source"]["version"] == source["version"]
    assert ids["source"]["sha256"] == source["sha256"]


def test_the_shipped_overlay_is_read_from_its_toml(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from promptc._model.provider import overlay
    toml = tmp_path / "models.overlay.toml"
    toml.write_text(overlay_path().read_text(encoding="utf-8").replace(
        'title = "GPT-5 and later"', 'title = "GPT-5 and everything after"'), encoding="utf-8")
    monkeypatch.setattr(overlay, "overlay_path", lambda: toml)
    overlay.shipped_overlay.cache_clear()
    try:
        titles = {f.id: f.title for f in overlay.shipped_overlay().families}
        assert titles["gpt-5"] == "GPT-5 and everything after"
    finally:
        monkeypatch.undo()
        overlay.shipped_overlay.cache_clear()


def test_the_vendor_table_is_data_checked_when_read() -> None:
    """`diff --to-model`'s vendors come from _data/vendors.toml; a bad row names its field."""
    from promptc._model.provider.vendors import parse_vendors, shipped_vendors
    vendors = shipped_vendors()
    assert vendors.vendor_of("us.anthropic.claude-opus-4-1-20250805-v1:0") == "anthropic"
    assert vendors.vendor_of("o3-mini") == "openai" and vendors.vendor_of("my-finetune") is None
    assert vendors.is_vendor(" Google ") and not vendors.is_vendor("openrouter")
    for table, message in [
        ({"anthropic": ["claude"], "acme": ["claude"]}, r"vendors\.acme.*already 'anthropic'"),
        ({"openai": ["GPT"]}, r"vendors\.openai.*normalized model id"),
        ({"openai": ["gpt-5"]}, r"vendors\.openai.*normalized model id"),
        ({"OpenAI": ["gpt"]}, r"vendors\.OpenAI.*lowercase"),
        ({"openai": "gpt"}, r"vendors\.openai.*list of non-empty strings"),
    ]:
        with pytest.raises(ConfigError, match=message) as info:
            parse_vendors({"vendors": table}, "vendors.toml")
        assert "vendors.toml" in str(info.value)
    with pytest.raises(ConfigError, match=r"vendrs.*did you mean 'vendors'"):
        parse_vendors({"vendrs": {}}, "vendors.toml")


# Where the overlay's model rows and LiteLLM's map disagree (the map wins unless the row says
# `wins = true`). A refresh of the table that changes this list shows up here, in review.
DISAGREEMENTS = {
    # Anthropic's docs (shared/models.md): 4,096 for Opus 4.5+; LiteLLM has newer per-model
    # minimums for the later releases.
    ("claude-opus-4-5-cache", "cache_min_tokens", 4096, 2048): [
        "claude-opus-4-7", "databricks-claude-opus-4-7"],
    ("claude-opus-4-5-cache", "cache_min_tokens", 4096, 1024): [
        "claude-opus-4-8", "databricks-claude-opus-4-8"],
    ("claude-opus-4-5-cache", "cache_min_tokens", 4096, 512): [
        "claude-haiku-5-5", "claude-opus-5", "claude-opus-5-5", "databricks-claude-haiku-5-5",
        "databricks-claude-opus-5", "databricks-claude-opus-5-5"],
}


def test_where_the_overlay_and_the_map_disagree() -> None:
    data = model_data()
    overlay, table = data.overlay, data.table
    found: dict[tuple[str, str, object, object], set[str]] = {}
    for row in overlay.models:
        for key in table.models:
            tokens = tuple(key.split("-"))
            if not row.matches(tokens, overlay.starts(tokens)):
                continue
            base, _ = table.row(key)
            assert base is not None
            mapped = dict(zip(TABLE_FIELDS, base[1:]))
            for name, value in row.facts.items():
                if mapped.get(name) is not None and mapped[name] != value:
                    # One entry per model: its dated, `-default`, `-fast`… spellings fold in.
                    model = re.sub(r"-(\d{8}|default|fast|think)$", "", key)
                    found.setdefault((row.id, name, value, mapped[name]), set()).add(model)
    assert {k: sorted(v) for k, v in found.items()} == DISAGREEMENTS
    # ... and where they do, the map's value is what promptc uses (the rows only fill gaps).
    facts = model_facts(ProviderInfo("anthropic", "claude-opus-4-7"))
    cache = next(f for f in facts.facts if f.name == "cache_min_tokens")
    assert (cache.value, cache.source) == (2048, "table")


# --- the script --------------------------------------------------------------------------------

@functools.cache
def _script_main() -> Callable[[list[str]], int]:
    spec = importlib.util.spec_from_file_location("update_models", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    main: Callable[[list[str]], int] = module.main
    return main


def _script(*args: str) -> subprocess.CompletedProcess[str]:
    """Run scripts/update_models.py's main in this process (as the command line would)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = _script_main()(list(args))
    return subprocess.CompletedProcess([str(SCRIPT), *args], code, out.getvalue(),
                                       err.getvalue())


def test_the_script_runs_as_a_program(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--from", str(FIXTURE_MAP), "--out",
                           str(tmp_path / "m.json"), "--date", "2026-01-01"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0 and "12 models" in done.stdout, done.stderr


def test_the_script_regenerates_the_same_shape_from_a_fixture_map(tmp_path: Path) -> None:
    out = tmp_path / "models.json"
    done = _script("--from", str(FIXTURE_MAP), "--out", str(out), "--date", "2026-01-01")
    assert done.returncode == 0, done.stderr
    assert "LiteLLM 1.99.0" in done.stdout
    new = json.loads(out.read_text(encoding="utf-8"))
    shipped = json.loads(shipped_table_path().read_text(encoding="utf-8"))
    assert list(new) == list(shipped)
    assert new["format"] == shipped["format"] and new["fields"] == shipped["fields"]
    assert set(new["source"]) == set(shipped["source"])
    assert new["source"]["version"] == "1.99.0"  # read from the install's dist-info
    assert new["source"]["date"] == "2026-01-01"
    parse_table(out.read_text(encoding="utf-8"), str(out), deep=True)
    models = new["models"]
    # Only chat-capable entries, each once per normalized id; unusable values dropped.
    assert "text-embedding-3-large" not in models and "dall-e-3" not in models
    assert "sample-spec" not in models and "broken-numbers" not in models
    assert not any("|" in k for k in models)
    assert models["claude-sonnet-4-5-20250929"] == \
        "claude-sonnet-4-5-20250929|200000|64000|t|t||t|1024|t|f"
    assert models["claude-opus-9"].split("|")[7] == "4096"  # 4096.0 in the map
    assert models["gpt-5-1-codex"].startswith("gpt-5.1-codex|400000|")  # a responses model
    assert models["gpt-5-1-codex"].split(";")[0].endswith("|t")  # … served only there
    assert models["deepseek-v3"].startswith("deepseek/deepseek-v3|65536|")  # v3 kept
    # A provider that differs gets a row of just the differences.
    assert models["gpt-5-1"] == \
        "gpt-5.1|272000|128000|t|t|t|t||t|f;azure=azure/gpt-5.1|128000||||||||"
    # Bedrock's entries agree with Anthropic's: no provider part.
    assert ";" not in models["claude-sonnet-4-5-20250929"]
    # The model's row is a reseller's (Fireworks): every provider listing it has a part, an
    # empty one when it agrees, so a provider without one is known not to list the model.
    parts = models["deepseek-v3-1"].split(";")
    assert parts[0].startswith("fireworks_ai/") and len(parts) == 4
    assert parts[2] == "fireworks=fireworks_ai/accounts/fireworks/models/deepseek-v3p1" + \
        "|" * 9  # agrees: empty
    assert parts[1].startswith("deepinfra=") and parts[3].startswith("together=")  # differ
    # The same input gives the same bytes.
    again = tmp_path / "again.json"
    assert _script("--from", str(FIXTURE_MAP), "--out", str(again), "--date",
                   "2026-01-01").returncode == 0
    assert again.read_bytes() == out.read_bytes()


def test_the_script_takes_a_wheel_and_refuses_bad_input(tmp_path: Path) -> None:
    import zipfile
    wheel = tmp_path / "litellm-9.8.7-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.write(FIXTURE_MAP, "litellm/model_prices_and_context_window_backup.json")
    out = tmp_path / "models.json"
    done = _script("--from", str(wheel), "--out", str(out), "--date", "2026-01-01")
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["source"]["version"] == "9.8.7"
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    for bad, message in [(tmp_path / "missing.json", "file not found"),
                         (tmp_path / "list.json", "must be a JSON object"),
                         (wheel.with_name("x.whl"), "cannot read")]:
        done = _script("--from", str(bad), "--out", str(out))
        assert done.returncode == 2 and message in done.stderr and str(bad.name) in done.stderr
        assert "Traceback" not in done.stderr
    assert _script("--from", str(FIXTURE_MAP), "--out", str(out), "--date",
                   "yesterday").returncode == 2


# --- the user's table --------------------------------------------------------------------------

def test_update_writes_the_users_table_and_it_wins(user_dir: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    before = model_facts(ProviderInfo("acme", "acme/acme-coder-9"))
    assert before.entry is None and before.value("context_window") == 128000
    assert Compiler.builtins().resolve(ProviderInfo("acme", "acme-coder-9")).variant.id == \
        "generic"
    code, out, err = run(["models", "update", "--from", str(FIXTURE_MAP)], capsys)
    assert (code, err) == (0, "")
    assert str(user_dir / "models.json") in out and "LiteLLM 1.99.0" in out
    assert "wins over the shipped table" in out
    # The user's table wins: its new model, measured at 16k, now routes to compact.
    after = model_facts(ProviderInfo("acme", "acme-coder-9"))
    assert after.entry == "acme/acme-coder-9" and after.value("context_window") == 16000
    assert "user table" in after.table and "1.99.0" in after.table
    with_user = Compiler.default(project=False, plugins=False)
    assert with_user.resolve(ProviderInfo("acme", "acme-coder-9")).variant.id == "compact"
    # --builtins-only and --no-user leave it out (tests/test_model_tables.py)
    assert Compiler.builtins().resolve(ProviderInfo("acme", "acme-coder-9")).variant.id == \
        "generic"
    code, out, _ = run(["models", "--json"], capsys)
    summary = json.loads(out)
    assert summary["table"]["user"] is True and summary["table"]["source"]["version"] == "1.99.0"
    assert summary["table"]["path"] == str(user_dir / "models.json")
    # A promptc table is accepted as it is (e.g. one written on another machine).
    copy = user_dir.parent / "copy.json"
    copy.write_text((user_dir / "models.json").read_text(encoding="utf-8"), encoding="utf-8")
    assert run(["models", "update", "--from", str(copy), "--json"], capsys)[0] == 0
    code, out, _ = run(["models", "reset"], capsys)
    assert code == 0 and "removed" in out and not (user_dir / "models.json").exists()
    assert model_facts(ProviderInfo("acme", "acme-coder-9")).entry is None
    code, out, _ = run(["models", "reset"], capsys)
    assert code == 0 and "no user table" in out


def test_a_malformed_user_table_is_a_config_error_naming_the_file(
        user_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = user_dir / "models.json"
    target.parent.mkdir(parents=True)
    for text, message in [
        ("{not json", r"invalid JSON"),
        ('{"format": "something-else"}', r"not a promptc model table"),
        (json.dumps({"format": TABLE_FORMAT, "fields": ["context_window"]}), r"fields must be"),
        (json.dumps({"format": TABLE_FORMAT, "fields": list(TABLE_FIELDS), "source": {},
                     "models": {}}), r"models.*non-empty"),
    ]:
        target.write_text(text, encoding="utf-8")
        model_data.cache_clear()
        with pytest.raises(ConfigError, match=message) as info:
            ProviderInfo("anthropic", "claude-sonnet-4-5").resolved()
        assert str(target) in str(info.value)
        code, out, err = run(["models", "claude-sonnet-4-5"], capsys)
        assert code == 2 and out == "" and str(target) in err and len(err.splitlines()) == 1
    # A bad row is left out (lookups go on without it, and compilers warn: see
    # tests/test_model_tables.py); `promptc models` names it and fails.
    # (written by an older promptc, before the `responses_only` column: its rows read as
    # unknown there)
    good: dict[str, Any] = {
        "format": TABLE_FORMAT, "fields": list(TABLE_FIELDS[:-1]), "source": {"name": "x"},
        "models": {"claude-sonnet-4-5": "claude-sonnet-4-5|lots|||||||",
                   "gpt-5": "gpt-5|272000|128000|t|t|t|t||t"}}
    target.write_text(json.dumps(good), encoding="utf-8")
    model_data.cache_clear()
    assert ProviderInfo("openai", "gpt-5").resolved().context_window == 272000
    assert model_facts(ProviderInfo("openai", "gpt-5")).facts[-2].source != "table"
    sonnet = model_facts(ProviderInfo("anthropic", "claude-sonnet-4-5"))
    assert sonnet.entry is None and sonnet.family == "claude-4"  # the row is skipped
    assert "whole number" in model_data().problems[0]
    code, _, err = run(["models"], capsys)
    assert code == 2 and "models.claude-sonnet-4-5" in err and "whole number" in err
    good["models"]["gpt-5"] = "gpt-5|272000"
    target.write_text(json.dumps(good), encoding="utf-8")
    model_data.cache_clear()
    assert model_facts(ProviderInfo("openai", "gpt-5")).entry is None
    assert any("models.gpt-5" in p and "entry id and 8 values" in p
               for p in model_data().problems)


def test_update_errors_are_one_line_with_exit_2(user_dir: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from promptc._cli import models as cli
    monkeypatch.setattr(cli, "installed_litellm", lambda: None)
    code, out, err = run(["models", "update"], capsys)
    assert code == 2 and "--from FILE" in err and len(err.splitlines()) == 1
    not_a_map = tmp_path / "other.json"
    not_a_map.write_text('{"a": {"mode": "embedding"}}', encoding="utf-8")
    for argv, message in [
        (["models", "update", "--from", str(tmp_path / "nope.json")], "file not found"),
        (["models", "update", "--from", str(not_a_map)], "no chat models found"),
        (["models", "update", "gpt-5"], "takes no model ids"),
        (["models", "gpt-5", "--from", str(FIXTURE_MAP)], "are for `promptc models update`"),
    ]:
        code, out, err = run(argv, capsys)
        assert code == 2 and message in err and len(err.splitlines()) == 1, err
    assert not (user_dir / "models.json").exists()


def test_update_reads_an_installed_litellm_without_importing_it(
        user_dir: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(SITE))
    assert not (SITE / "litellm" / "__init__.py").exists()  # data only: nothing to import
    before = set(sys.modules)  # (the real LiteLLM may be loaded already by another test)
    code, out, err = run(["models", "update"], capsys)
    assert code == 0, err
    assert "LiteLLM 1.99.0" in out
    assert not {n for n in set(sys.modules) - before if n.split(".")[0] == "litellm"}


# --- promptc models MODEL ----------------------------------------------------------------------

def test_models_shows_each_fact_and_its_source(user_dir: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["models", "--provider", "ollama", "qwen3-coder:30b", "llama3.1:8b"],
                         capsys)
    assert code == 0 and err == ""
    assert "family      qwen3" in out and "family      llama" in out
    assert re.search(r"context_window\s+32768\s+local\s+ollama", out)
    code, out, _ = run(["models", "--json", "us.anthropic.claude-opus-4-1-20250805-v1:0",
                        "--provider", "bedrock"], capsys)
    (report,) = json.loads(out)
    assert report["normalized"] == "claude-opus-4-1-20250805"
    assert report["family"] == {"id": "claude-4", "source": "rule",
                                "title": report["family"]["title"]}
    caps = report["capabilities"]
    version = model_data().table.source["version"]
    assert caps["context_window"]["source"] == "table"
    assert caps["context_window"]["ref"] == report["entry"]
    assert f"LiteLLM {version}" in caps["context_window"]["note"]
    assert caps["encoding"]["source"] == "default"
    assert {c["source"] for c in caps.values()} <= {"table", "family", "overlay", "default"}


def test_models_summary_and_a_near_miss(user_dir: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["models"], capsys)
    assert code == 0
    assert "LiteLLM" in out and "claude-4" in out and "none; `promptc models update`" in out
    code, out, err = run(["models", "updat"], capsys)
    assert code == 0 and "did you mean 'update'" in err
