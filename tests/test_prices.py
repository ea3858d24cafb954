"""Model prices: generated from LiteLLM's map beside the model table, never kept by hand.

The shipped price table comes from the same LiteLLM file as the shipped model table, and its
figures are the map's (per token × 10⁶); a user's `promptc models update` writes its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptc import ConfigError, ProviderInfo
from promptc._cli import main
from promptc._model.provider.litellm_map import installed_litellm
from promptc._model.provider.litellm_prices import dump_prices, prices_from_litellm
from promptc._model.prices import (model_prices, parse_prices, price_table,
                                   shipped_prices_path, user_prices_path)
from promptc._model.provider import shipped_table_path

MAP: dict[str, Any] = {
    "claude-sonnet-4-5": {"litellm_provider": "anthropic", "mode": "chat",
                          "input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05,
                          "cache_read_input_token_cost": 3e-07,
                          "cache_creation_input_token_cost": 3.75e-06},
    # Bedrock's entries for the same model, dearer in one region
    "anthropic.claude-sonnet-4-5": {"litellm_provider": "bedrock_converse", "mode": "chat",
                                    "input_cost_per_token": 3.3e-06},
    "eu.anthropic.claude-sonnet-4-5": {"litellm_provider": "bedrock_converse", "mode": "chat",
                                       "input_cost_per_token": 3.3e-06},
    "openrouter/anthropic/claude-sonnet-4-5": {"litellm_provider": "openrouter",
                                               "mode": "chat", "input_cost_per_token": 3e-06},
    "gpt-5": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 1.25e-06,
              "cache_read_input_token_cost": 1.25e-07},
    "text-embedding-3-large": {"litellm_provider": "openai", "mode": "embedding",
                               "input_cost_per_token": 1.3e-07},
    "free-model": {"litellm_provider": "acme", "mode": "chat"},
}
SOURCE = {"name": "LiteLLM", "version": "1.2.3", "date": "2026-01-01"}


def test_the_generator_groups_entries_and_keeps_per_provider_differences() -> None:
    table = prices_from_litellm(MAP, SOURCE)
    assert table["fields"] == ["input", "output", "cache_read", "cache_write"]
    assert table["models"] == {
        "claude-sonnet-4-5": "claude-sonnet-4-5|3|15|0.3|3.75;bedrock=anthropic.claude-sonnet"
                             "-4-5|3.3|||",
        "gpt-5": "gpt-5|1.25||0.125|"}  # no embeddings, no model without a price
    parsed = parse_prices(dump_prices(table), "t.json", deep=True)
    assert parsed.row("claude-sonnet-4-5", "bedrock") == [
        "anthropic.claude-sonnet-4-5", 3.3, 15.0, 0.3, 3.75]  # its own input, the rest shared
    assert parsed.row("claude-sonnet-4-5", "") == ["claude-sonnet-4-5", 3.0, 15.0, 0.3, 3.75]


@pytest.mark.parametrize("models, words", [
    ({"m": "m|1|2|3"}, "entry id and 4 prices"),
    ({"m": "m|1|x|3|4"}, "output must be a number"),
    ({"m": "m|1|2|3|4;bedrock"}, "provider=row"),
])
def test_a_bad_price_row_names_the_model(models: dict[str, str], words: str) -> None:
    text = json.dumps({"format": "promptc-prices/1", "source": {}, "fields":
                       ["input", "output", "cache_read", "cache_write"], "models": models})
    with pytest.raises(ConfigError, match=words) as info:
        parse_prices(text, "p.json", deep=True)
    assert "models.m" in str(info.value) and "p.json" in str(info.value)


def test_the_shipped_prices_come_from_the_shipped_tables_litellm() -> None:
    prices = json.loads(shipped_prices_path().read_text(encoding="utf-8"))
    models = json.loads(shipped_table_path().read_text(encoding="utf-8"))
    for key in ("name", "version", "sha256", "date"):
        assert prices["source"][key] == models["source"][key], key
    found = installed_litellm()
    if found is None:
        pytest.skip("no litellm installed to compare with")
    path, version = found
    if version != prices["source"]["version"]:
        pytest.skip(f"installed litellm {version} is not the table's")
    litellm = json.loads(path.read_text(encoding="utf-8"))
    for provider, model in (("anthropic", "claude-sonnet-4-5"), ("openai", "gpt-5"),
                            ("gemini", "gemini-2.5-pro")):
        entry = litellm[model]
        mine = model_prices(ProviderInfo(provider, model))
        assert mine is not None and mine.entry == model
        assert mine.input == pytest.approx(entry["input_cost_per_token"] * 1e6)
        assert mine.output == pytest.approx(entry["output_cost_per_token"] * 1e6)
        assert mine.cache_read == pytest.approx(entry["cache_read_input_token_cost"] * 1e6)
        write = entry.get("cache_creation_input_token_cost")
        assert mine.cache_write == (None if write is None else pytest.approx(write * 1e6))


def test_lookup_folds_the_id_like_model_facts() -> None:
    dated = model_prices(ProviderInfo("anthropic", "anthropic/claude-sonnet-4-5-20250929"))
    plain = model_prices(ProviderInfo("anthropic", "claude-sonnet-4-5"))
    assert dated is not None and plain is not None and dated.input == plain.input == 3.0
    assert "LiteLLM" in plain.source and plain.date
    assert model_prices(ProviderInfo("acme", "no-such-model-anywhere")) is None


def test_models_update_writes_the_users_prices_and_reset_removes_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from promptc._model.provider import model_data
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    source = tmp_path / "model_prices_and_context_window.json"
    facts = {k: {**v, "max_input_tokens": 100_000} for k, v in MAP.items()}  # a model table too
    source.write_text(json.dumps(facts), encoding="utf-8")
    price_table.cache_clear()
    try:
        code = main(["models", "update", "--from", str(source), "--json"])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert json.loads(out)["prices"] == str(user_prices_path())
        mine = model_prices(ProviderInfo("openai", "gpt-5"))
        assert mine is not None and mine.source == "LiteLLM unknown" and mine.output is None
        assert main(["models", "reset"]) == 0
        assert not user_prices_path().exists()
        shipped = model_prices(ProviderInfo("openai", "gpt-5"))
        assert shipped is not None and shipped.output == 10.0
    finally:
        price_table.cache_clear()
        model_data.cache_clear()
        capsys.readouterr()
