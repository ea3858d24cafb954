"""Model id normalization and capability inference."""

from __future__ import annotations

import pytest

from promptc import ContextError, ProviderInfo, normalize_model_id


@pytest.mark.parametrize(("raw", "normalized"), [
    ("claude-sonnet-4-5", "claude-sonnet-4-5"),
    ("  Claude-Sonnet-4.5 ", "claude-sonnet-4-5"),
    ("anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"),
    ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5-20250929"),
    ("global.anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4-1-20250805"),
    ("anthropic.claude-3-5-haiku-20241022-v1:0", "claude-3-5-haiku-20241022"),
    ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5-20250929"),
    ("z-ai/glm-4.6:free", "glm-4-6"),
    ("models/gemini-2.5-pro", "gemini-2-5-pro"),
    ("accounts/fireworks/models/kimi-k2-instruct", "kimi-k2-instruct"),
    ("qwen2.5-coder:7b", "qwen2-5-coder-7b"),
    ("llama3.1:8b-instruct-q4_K_M", "llama3-1-8b-instruct-q4-k-m"),
    ("GPT-5.1", "gpt-5-1"),
])
def test_normalize(raw: str, normalized: str) -> None:
    assert normalize_model_id(raw) == normalized


@pytest.mark.parametrize(("model", "family"), [
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4"),
    ("claude-opus-4-5", "claude-opus-4-5"),
    ("claude-opus-4-1", "claude-opus-4"),
    ("gpt-4.1-mini", "gpt-4-1"),
    ("gpt-4", "gpt-4"),
    ("gpt-4o", "gpt-4o"),
    ("gpt-45-preview", "unknown"),
    ("o4-mini", "o-series"),
    ("gemini-3-pro-preview", "gemini-3"),
    ("totally-new-model", "unknown"),
])
def test_family_inference_prefers_the_longest_pattern(model: str, family: str) -> None:
    assert ProviderInfo("x", model).resolved().family == family


def test_capabilities_are_inferred_but_the_client_wins() -> None:
    inferred = ProviderInfo("anthropic", "claude-opus-4-5").resolved()
    assert inferred.native_tools is True
    assert inferred.cache_min_tokens == 4096
    assert inferred.encoding == "o200k_base" and inferred.estimated is True
    given = ProviderInfo("anthropic", "claude-opus-4-5", native_tools=False,
                         cache_min_tokens=2000).resolved()
    assert given.native_tools is False
    assert given.cache_min_tokens == 2000


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
                                   "context_window": 200000})
    assert (info.provider, info.context_window) == ("anthropic", 200000)
    with pytest.raises(ContextError, match=r"provider\.window.*unknown field"):
        ProviderInfo.from_dict({"id": "a", "model": "b", "window": 1})
    with pytest.raises(ContextError, match=r"provider\.native_tools.*boolean"):
        ProviderInfo.from_dict({"id": "a", "model": "b", "native_tools": "yes"})


def test_bedrock_ids_that_drop_the_family_name_keep_it() -> None:
    assert normalize_model_id("deepseek.v3-v1:0") == "deepseek-v3"
    assert normalize_model_id("us.deepseek.r1-v1:0") == "deepseek-r1"
    assert normalize_model_id("anthropic.claude-3-5-haiku-20241022-v1:0").startswith("claude")


def test_local_servers_keep_local_defaults_over_the_family_row() -> None:
    info = ProviderInfo("ollama", "qwen3-coder:30b").resolved()
    assert info.family == "qwen3"
    assert (info.context_window, info.native_tools) == (32768, False)
    given = ProviderInfo("ollama", "qwen3-coder:30b", context_window=131072).resolved()
    assert given.context_window == 131072


def test_a_client_named_family_drives_inference_for_custom_deployment_names() -> None:
    info = ProviderInfo("azure", "prod-chat-deployment", family="gpt-5").resolved()
    assert info.family == "gpt-5" and info.context_window == 400000 and info.native_tools
