"""Model id normalization, family rules and capability inference (with each fact's source).

The ids come from LiteLLM's model map (tests/fixtures/litellm_chat_models.json, written by
scripts/update_models.py from the same LiteLLM version as the shipped table) and from the
providers' own spellings.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc import ConfigError, ContextError, ProviderInfo, normalize_model_id
from promptc._model.provider import (CAPABILITIES, capability_sources, model_data, model_facts,
                                     undated, user_data_dir)
from promptc._model.provider.overlay import parse_overlay
from promptc._model.provider.patterns import (TokenKind, compile_pattern, pattern_matches,
                                              tokenize)

MAP = json.loads((Path(__file__).parent / "fixtures" / "litellm_chat_models.json")
                 .read_text(encoding="utf-8"))
MAP_IDS = [row[0] for row in MAP["models"]]


# --- normalization -----------------------------------------------------------------------------

@pytest.mark.parametrize(("raw", "normalized"), [
    ("claude-sonnet-4-5", "claude-sonnet-4-5"),
    ("  Claude-Sonnet-4.5 ", "claude-sonnet-4-5"),
    ("anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"),
    ("openrouter/anthropic/claude-sonnet-4.5:free", "claude-sonnet-4-5"),
    ("vercel_ai_gateway/zai/glm-4.6", "glm-4-6"),
    ("fireworks_ai/accounts/fireworks/models/glm-4p6", "glm-4-6"),
    ("fireworks_ai/accounts/fireworks/models/qwen2p5-coder-32b-instruct",
     "qwen2-5-coder-32b-instruct"),
    ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5-20250929"),
    ("global.anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4-1-20250805"),
    ("anthropic.claude-3-5-haiku-20241022-v1:0", "claude-3-5-haiku-20241022"),
    ("anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet-20241022"),
    ("anthropic.claude-opus-4-6-v1", "claude-opus-4-6"),
    ("in.moonshotai.kimi-k3", "kimi-k3"),
    ("bedrock/us-gov-east-1/anthropic.claude-sonnet-4-5-20250929-v1:0",
     "claude-sonnet-4-5-20250929"),
    ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5-20250929"),
    ("vertex_ai/claude-opus-4-1@20250805", "claude-opus-4-1-20250805"),
    ("z-ai/glm-4.6:free", "glm-4-6"),
    ("models/gemini-2.5-pro", "gemini-2-5-pro"),
    ("accounts/fireworks/models/kimi-k2-instruct", "kimi-k2-instruct"),
    ("qwen2.5-coder:7b", "qwen2-5-coder-7b"),
    ("llama3.1:8b-instruct-q4_K_M", "llama3-1-8b-instruct-q4-k-m"),
    ("llama3.1:latest", "llama3-1"),
    ("GPT-5.1", "gpt-5-1"),
    # A model's own version is never taken for a cloud suffix.
    ("deepseek-v3", "deepseek-v3"),
    ("deepseek/deepseek-v3.2", "deepseek-v3-2"),
    ("deepseek.v3-v1:0", "deepseek-v3"),
    ("us.deepseek.r1-v1:0", "deepseek-r1"),
    ("xiaomi/mimo-v2", "mimo-v2"),
    ("anthropic.claude-v2:1", "claude-v2-1"),
    ("anthropic.claude-instant-v1", "claude-instant-v1"),
    ("amazon.titan-text-express-v1", "titan-text-express-v1"),
    ("nvidia.nemotron-nano-12b-v2", "nemotron-nano-12b-v2"),
    ("mistral.mistral-7b-instruct-v0:2", "mistral-7b-instruct-v0-2"),
    ("openai.gpt-oss-120b-1:0", "gpt-oss-120b"),
    # Fine-tunes are their base model.
    ("ft:gpt-4o-2024-08-06:acme-corp:support:9abcDEF", "gpt-4o-2024-08-06"),
    ("ft:gpt-4.1-mini-2025-04-14:acme::BxYz12", "gpt-4-1-mini-2025-04-14"),
    ("gpt-4o-2024-08-06.ft-0123456789abcdef", "gpt-4o-2024-08-06"),
    ("novita/deepseek/deepseek-v3/community", "deepseek-v3"),
    ("", ""),
])
def test_normalize(raw: str, normalized: str) -> None:
    assert normalize_model_id(raw) == normalized


def test_every_id_in_the_map_normalizes_idempotently() -> None:
    for raw in MAP_IDS:
        once = normalize_model_id(raw)
        assert normalize_model_id(once) == once, raw
        assert once and re.fullmatch(r"[^\s._:/@]+(-[^\s._:/@-]+)*", once), raw


def test_release_dates_come_off_only_when_they_are_dates() -> None:
    def u(model: str) -> str:
        return "-".join(undated(tuple(normalize_model_id(model).split("-"))))
    assert u("claude-sonnet-4-5-20250929") == "claude-sonnet-4-5"
    assert u("gpt-4o-2024-08-06") == "gpt-4o"
    assert u("gpt-4-0613") == "gpt-4"
    assert u("gemini-2.5-flash-preview-04-17") == "gemini-2-5-flash-preview"
    assert u("grok-4-20") == "grok-4-20"  # Grok 4.20: a version
    assert u("gpt-3.5") == "gpt-3-5"


# Respellings a provider, gateway, cloud or fine-tune may apply to a model id: at most one
# wrapper (around the bare model name), any of the surface changes, maybe a gateway tag.
WRAPPERS = {
    "router": lambda m: f"openrouter/acme/{m}",
    "gateway": lambda m: f"vercel_ai_gateway/acme/{m}",
    "fireworks": lambda m: f"fireworks_ai/accounts/fireworks/models/{m}",
    "bedrock": lambda m: f"us.anthropic.{m}-v1:0",
    "global": lambda m: f"global.anthropic.{m}-v2:0",
    "fine-tune": lambda m: f"ft:{m}:acme-corp:exp:AbC123",
    "vertex": lambda m: f"{m}@20250929",
    "dated": lambda m: f"{m}-20250929",
}
SURFACE = {
    "upper": str.upper,
    "dots": lambda m: re.sub(r"(?<=\d)-(?=\d)", ".", m),
    "p": lambda m: re.sub(r"(?<=\d)[.-](?=\d)", "p", m),
}


def _family(model: str) -> str:
    return model_facts(ProviderInfo("x", model)).family


@given(st.sampled_from(MAP_IDS), st.sampled_from([None, *sorted(WRAPPERS)]),
       st.lists(st.sampled_from(sorted(SURFACE)), unique=True), st.booleans())
@settings(deadline=None)
def test_respelling_keeps_the_model_and_its_family(raw: str, wrapper: str | None,
                                                   surface: list[str], tag: bool) -> None:
    base = normalize_model_id(raw)
    spelled = WRAPPERS[wrapper](base) if wrapper else raw
    for name in surface:
        spelled = SURFACE[name](spelled)
    if tag and wrapper in (None, "router", "gateway"):
        spelled += ":free"
    out = normalize_model_id(spelled)
    assert normalize_model_id(out) == out, spelled
    if wrapper in ("vertex", "dated"):
        assert out.replace("-", "") == (base + "20250929").replace("-", ""), (raw, spelled)
    elif "-" in base:  # (a one-word name keeps a `-v1:0`: it may be the model's own version)
        assert out == base, (raw, spelled)
    # One family and version stays one family, however it is spelled.
    assert _family(spelled) == _family(raw), (raw, spelled)


def test_ids_of_one_model_share_a_family() -> None:
    """Map ids that normalize alike (or differ only by a release date) get one family."""
    by_model: dict[str, set[str]] = {}
    for raw in MAP_IDS:
        tokens = tuple(normalize_model_id(raw).split("-"))
        by_model.setdefault("-".join(undated(tokens)), set()).add(_family(raw))
    split = {k: v for k, v in by_model.items() if len(v) > 1}
    assert not split


def test_one_provider_spelling_everywhere() -> None:
    """Routing, local-server defaults and the tool format fold a provider id the same way."""
    from promptc._emit.toolset import wire_format
    from promptc._model.matchers import compile_matcher
    from promptc._model.provider import normalize_provider
    assert normalize_provider("  OLLAMA\t") == "ollama"
    local = ProviderInfo(" Ollama ", "qwen3-coder:30b")
    assert local.is_local and local.resolved().context_window == 32768
    assert wire_format(ProviderInfo(" Anthropic", "claude-sonnet-4-5")) == "anthropic"
    matcher = compile_matcher({"provider": [" OpenAI "]}, "test", "match")
    assert matcher.test(ProviderInfo("openai ", "gpt-5"))[0] is True


# --- family rules ------------------------------------------------------------------------------

@pytest.mark.parametrize(("model", "family"), [
    ("claude-sonnet-4-5-20250929", "claude-4"),
    ("claude-opus-4-5", "claude-4"),
    ("claude-opus-4-1", "claude-4"),
    ("claude-4-opus-20250514", "claude-4"),
    ("claude-3-7-sonnet-20250219", "claude-3"),
    ("claude-3-5-haiku", "claude-3"),
    ("anthropic.claude-v2:1", "claude-3"),
    ("gpt-4.1-mini", "gpt-4-1"),
    ("gpt-4", "gpt-4"),
    ("gpt-4-turbo-2024-04-09", "gpt-4"),
    ("gpt-4o", "gpt-4o"),
    ("gpt-35-turbo", "gpt-3-5"),
    ("gpt-3.5-turbo-16k", "gpt-3-5"),
    ("gpt-45-preview", "unknown"),
    ("gpt-50", "unknown"),
    ("gpt-oss-120b", "gpt-oss"),
    ("o4-mini", "o-series"),
    ("o3", "o-series"),
    ("gemini-3-pro-preview", "gemini-3"),
    ("gemini-2.5-flash", "gemini-2-5"),
    ("gemini-2.0-flash", "gemini-2"),
    ("glm-4.5-air", "glm"),
    ("glm-4.5v", "glm"),
    ("glm-4-32b-0414", "unknown"),
    ("deepseek-r1-distill-llama-70b", "unknown"),
    ("deepseek-coder-v2-instruct", "unknown"),
    ("qwen2.5-coder-32b-instruct", "unknown"),
    ("databricks/databricks-claude-opus-4-5", "claude-4"),
    ("snowflake/openai-gpt-5", "gpt-5"),
    ("totally-new-model", "unknown"),
])
def test_family_rules(model: str, family: str) -> None:
    assert ProviderInfo("x", model).resolved().family == family


@pytest.mark.parametrize(("model", "family"), [
    # Releases newer than any table: the family rule carries them, no change needed.
    ("claude-opus-6", "claude-4"), ("claude-sonnet-7-2-20300101", "claude-4"),
    ("claude-newtier-5", "claude-4"), ("gpt-7", "gpt-5"), ("gpt-5.9-codex-max", "gpt-5-codex"), ("gpt-6-mini", "gpt-5"),
    ("gemini-3.9-pro", "gemini-3"), ("gemini-4-ultra", "gemini-3"), ("glm-6.1", "glm"),
    ("glm-5.7v", "glm"), ("grok-5", "grok-4"), ("kimi-k4", "kimi-k2"),
    ("deepseek-v5-pro", "deepseek"), ("deepseek-r2", "deepseek"), ("qwen4-coder", "qwen3"),
    ("qwen3.9-max", "qwen3"),
])
def test_a_newer_release_belongs_to_its_family(model: str, family: str) -> None:
    info = ProviderInfo("x", model).resolved()
    assert info.family == family
    assert info.context_window is not None and info.context_window > 32768


@pytest.mark.parametrize(("pattern", "model", "expected"), [
    ("claude-*-{4..}", "claude-opus-4-1", True),
    ("claude-*-{4..}", "claude-3-5-sonnet", False),   # `*` is a word, not a number
    ("claude-*-{4..}", "claude-opus-3", False),
    ("gemini-{2.5..3}", "gemini-2-5-pro", True),
    ("gemini-{2.5..3}", "gemini-2-0-flash", False),
    ("gemini-{2.5..3}", "gemini-3-pro", False),
    ("qwen{3..}", "qwen3-5-27b", True),
    ("qwen{3..}", "qwen35-122b", False),               # two-digit major: not a version
    ("qwen{3..}", "qwen3-32b", True),                  # 32b is a size, not a minor version
    ("kimi-k{2..}", "kimi-k2-0905", True),
    ("glm-{4.5..}v", "glm-4-6v", True),
    ("glm-{4.5..}v", "glm-4-6", False),
    ("gpt-{..}", "gpt-4o", False),
])
def test_version_patterns(pattern: str, model: str, expected: bool) -> None:
    compiled = compile_pattern(pattern, "test", "patterns")
    assert pattern_matches(compiled, normalize_model_id(model).split("-")) is expected


@pytest.mark.parametrize(("pattern", "message"), [
    ("claude-{4}", r"version range"),
    ("claude-{x..}", r"version range"),
    ("Claude-4", r"normalized"),
    ("glm-4.5", r"normalized"),
    ("claude--4", r"normalized"),
])
def test_bad_patterns_name_the_overlay_field(pattern: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        compile_pattern(pattern, "overlay.toml", "family[x].patterns")
    assert "overlay.toml" in str(info.value) and "family[x].patterns" in str(info.value)


def test_a_pattern_parses_into_typed_tokens() -> None:
    """The tokenizer classifies each piece by its shape; the parser reads the version range."""
    assert [(lx.kind, lx.text) for lx in tokenize(" glm-*-k{2..}-{4.5..5}v ")] == [
        (TokenKind.LITERAL, "glm"), (TokenKind.WORD, "*"), (TokenKind.VERSION, "k{2..}"),
        (TokenKind.VERSION, "{4.5..5}v")]
    literal, word, glued, ranged = compile_pattern("glm-*-k{2..}-{4.5..5}v", "t", "f")
    assert (literal.kind, literal.text) == (TokenKind.LITERAL, "glm")
    assert word.kind is TokenKind.WORD
    assert (glued.prefix, glued.suffix, glued.low, glued.high) == ("k", "", (2, 0), None)
    assert (ranged.prefix, ranged.suffix, ranged.low, ranged.high) == ("", "v", (4, 5), (5, 0))
    assert ranged.in_range((4, 9)) and not ranged.in_range((5, 0))


def _overlay(**changes: object) -> dict[str, object]:
    import tomllib
    data = tomllib.loads((Path(model_data().overlay.path)).read_text(encoding="utf-8"))
    data.update(changes)
    return data


@pytest.mark.parametrize(("changes", "message"), [
    ({"famly": []}, r"overlay\.famly.*unknown key.*did you mean 'family'"),
    ({"defaults": {"source": "x", "context_window": 1}}, r"defaults.*missing"),
    ({"family": [{"id": "a", "patterns": ["a"], "source": "s", "context_window": "big"}]},
     r"family\[a\]\.context_window.*non-negative integer"),
    ({"family": [{"id": "a", "patterns": ["a"], "source": "s", "encoding": "p50k"}]},
     r"family\[a\]\.encoding.*one of"),
    ({"family": [{"id": "a", "patterns": ["a"], "source": "s"},
                 {"id": "a", "patterns": ["b"], "source": "s"}]}, r"duplicate id 'a'"),
    ({"model": [{"id": "m", "patterns": ["a"], "source": "s"}]}, r"at least one fact"),
    ({"model": [{"id": "m", "patterns": [], "source": "s", "images": True}]},
     r"model\[m\]\.patterns.*at least one pattern"),
    ({"model": [{"id": "m", "patterns": ["a"], "source": "s", "images": True, "wins": 1}]},
     r"model\[m\]\.wins.*true or false"),
    ({"spellings": {"prefixes": "databricks"}}, r"spellings\.prefixes.*list"),
])
def test_a_bad_overlay_is_a_config_error_naming_the_row(changes: dict[str, object],
                                                         message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        parse_overlay(_overlay(**changes), "models.overlay.toml")
    assert str(info.value).startswith("models.overlay.toml")


# --- capabilities and their sources ------------------------------------------------------------

def test_capabilities_come_from_the_table_and_the_client_wins() -> None:
    inferred = ProviderInfo("anthropic", "claude-opus-4-5").resolved()
    assert inferred.native_tools is True
    assert inferred.cache_min_tokens == 4096
    assert inferred.encoding == "o200k_base" and inferred.estimated is True
    given = ProviderInfo("anthropic", "claude-opus-4-5", native_tools=False,
                         cache_min_tokens=2000).resolved()
    assert given.native_tools is False
    assert given.cache_min_tokens == 2000


def test_every_fact_says_where_it_came_from() -> None:
    facts = model_facts(ProviderInfo("anthropic", "claude-sonnet-4-5", images=False))
    assert [f.name for f in facts.facts] == list(CAPABILITIES)
    by_name = {f.name: f for f in facts.facts}
    assert by_name["images"].source == "client"
    source = model_data().table.source
    assert by_name["context_window"].source == "table"
    assert by_name["context_window"].ref == "claude-sonnet-4-5"
    assert f"LiteLLM {source['version']}" in by_name["context_window"].note
    assert by_name["estimated"].source == "default"
    assert facts.family == "claude-4" and facts.family_source == "rule"
    assert facts.entry == "claude-sonnet-4-5"


def test_capability_sources_for_explain() -> None:
    sources = capability_sources(ProviderInfo("ollama", "qwen3-coder:30b"))
    assert list(sources) == list(CAPABILITIES)
    window, where = sources["context_window"]
    assert window == 32768 and where.startswith("local ollama")
    value, where = sources["max_output"]
    assert where.startswith("family qwen3") and "Qwen" in where


def test_per_provider_rows_beat_the_models_row() -> None:
    """A provider that serves a model with its own limits gets those limits."""
    hosted = model_facts(ProviderInfo("fireworks_ai",
                                      "accounts/fireworks/models/qwen3-next-80b-a3b-instruct"))
    anywhere = model_facts(ProviderInfo("openrouter", "qwen/qwen3-next-80b-a3b-instruct"))
    assert hosted.value("context_window") < anywhere.value("context_window")
    assert hosted.entry is not None and hosted.entry.startswith("fireworks_ai/")
    # Spellings of one provider fold together (`bedrock_converse`, `bedrock`, `aws`).
    a = model_facts(ProviderInfo("bedrock", "us.anthropic.claude-opus-4-1-20250805-v1:0"))
    b = model_facts(ProviderInfo("bedrock_converse", "anthropic.claude-opus-4-1-20250805-v1:0"))
    assert a.facts == b.facts


def test_overlay_rows_fill_what_the_map_lacks_and_say_so() -> None:
    facts = model_facts(ProviderInfo("anthropic", "claude-3-haiku-20240307"))
    cache = next(f for f in facts.facts if f.name == "cache_min_tokens")
    assert (cache.value, cache.source, cache.ref) == (2048, "overlay", "claude-haiku-3-cache")
    # A release newer than the map: the overlay's row (Opus 4.5+: 4,096) over the family's.
    newer = model_facts(ProviderInfo("anthropic", "claude-opus-4-9"))
    assert newer.entry is None and newer.value("cache_min_tokens") == 4096


def test_overlay_rows_that_win_override_the_map_for_their_providers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from promptc._model.provider import ModelData, facts
    data = model_data()
    raw = _overlay(model=[{"id": "bedrock-sonnet-window", "patterns": ["claude-sonnet-{4.5..}"],
                           "providers": ["bedrock_converse"], "wins": True,
                           "context_window": 150000, "source": "a test's correction"}])
    overlay = parse_overlay(raw, "test-overlay.toml")
    monkeypatch.setattr(facts, "model_data", lambda user=True: ModelData(
        overlay, data.table, data.shipped))
    fixed = model_facts(ProviderInfo("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"))
    window = next(f for f in fixed.facts if f.name == "context_window")
    assert (window.value, window.source, window.ref) == (150000, "overlay",
                                                         "bedrock-sonnet-window")
    assert window.note == "a test's correction"
    elsewhere = model_facts(ProviderInfo("anthropic", "claude-sonnet-4-5"))
    assert next(f for f in elsewhere.facts if f.name == "context_window").source == "table"


def test_dated_snapshots_fall_back_to_the_undated_row() -> None:
    facts = model_facts(ProviderInfo("openai", "gpt-5.1-2099-01-01"))
    assert facts.entry == "gpt-5.1"
    assert facts.value("context_window") == model_facts(ProviderInfo("openai", "gpt-5.1")) \
        .value("context_window")


def test_unknown_models_never_default_to_a_small_window() -> None:
    info = ProviderInfo("openai-compatible", "my-finetune").resolved()
    assert info.family == "unknown" and info.context_window is not None
    assert info.context_window > 32768 and info.native_tools is False


def test_openai_families_count_exactly_and_old_ones_use_cl100k() -> None:
    assert ProviderInfo("openai", "gpt-5").resolved().estimated is False
    old = ProviderInfo("openai", "gpt-3.5-turbo").resolved()
    assert (old.encoding, old.estimated) == ("cl100k_base", False)


def test_local_providers_default_to_small_contexts_and_text_tools() -> None:
    info = ProviderInfo("ollama", "some-new-model").resolved()
    assert info.is_local
    assert info.context_window == 32768
    assert info.native_tools is False


def test_from_dict_accepts_the_context_file_spelling_and_rejects_unknown_fields() -> None:
    info = ProviderInfo.from_dict({"id": "anthropic", "model": "claude-sonnet-4-5",
                                   "context_window": 200000, "reasoning": True})
    assert (info.provider, info.context_window, info.reasoning) == ("anthropic", 200000, True)
    with pytest.raises(ContextError, match=r"provider\.window.*unknown field"):
        ProviderInfo.from_dict({"id": "a", "model": "b", "window": 1})
    with pytest.raises(ContextError, match=r"provider\.native_tools.*boolean"):
        ProviderInfo.from_dict({"id": "a", "model": "b", "native_tools": "yes"})


def test_local_servers_keep_local_defaults_over_the_table() -> None:
    info = ProviderInfo("ollama", "qwen3-coder:30b").resolved()
    assert info.family == "qwen3"
    assert (info.context_window, info.native_tools) == (32768, False)
    given = ProviderInfo("ollama", "qwen3-coder:30b", context_window=131072).resolved()
    assert given.context_window == 131072


def test_a_client_named_family_drives_inference_for_custom_deployment_names() -> None:
    info = ProviderInfo("azure", "prod-chat-deployment", family="gpt-5").resolved()
    assert info.family == "gpt-5" and info.context_window == 272000 and info.native_tools
    facts = model_facts(ProviderInfo("azure", "prod-chat-deployment", family="gpt-5"))
    assert facts.family_source == "client"
    # Old family ids still find their row.
    assert ProviderInfo("x", "deployment", family="claude-opus-4-5").resolved().images is True


# --- the user data folder (platformdirs conventions) -------------------------------------------

@pytest.mark.parametrize(("platform", "env", "expected"), [
    ("linux", {"HOME": "/h", "XDG_DATA_HOME": "/data"}, "/data/promptc"),
    ("linux", {"HOME": "/h"}, "/h/.local/share/promptc"),
    ("linux", {"HOME": "/h", "XDG_DATA_HOME": "relative/dir"}, "/h/.local/share/promptc"),
    ("freebsd14", {"HOME": "/h", "XDG_DATA_HOME": "  "}, "/h/.local/share/promptc"),
    ("darwin", {"HOME": "/Users/u", "XDG_DATA_HOME": "/data"},
     "/Users/u/Library/Application Support/promptc"),
    ("win32", {"LOCALAPPDATA": "C:/Users/u/AppData/Local", "USERPROFILE": "C:/Users/u"},
     "C:/Users/u/AppData/Local/promptc"),
    ("win32", {"USERPROFILE": "C:/Users/u"}, "C:/Users/u/AppData/Local/promptc"),
])
def test_user_data_dir(platform: str, env: dict[str, str], expected: str) -> None:
    assert user_data_dir(env, platform) == Path(expected)
