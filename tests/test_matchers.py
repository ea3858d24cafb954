"""Declarative matchers: token-boundary model patterns, providers, capabilities, combinators."""

from __future__ import annotations

import pytest

from promptc import ProviderInfo, VariantConfigError
from promptc._model.matchers import MATCH_KEYS, compile_matcher


def match(spec: dict, provider: str, model: str, **caps: object) -> tuple[bool, str]:
    return compile_matcher(spec, "test.toml")(ProviderInfo(provider, model, **caps).resolved())


@pytest.mark.parametrize(("pattern", "model", "expected"), [
    ("gpt-4", "gpt-45-preview", False),
    ("gpt-4", "gpt-4-turbo", True),
    ("gpt-4", "gpt-4o", False),
    ("claude-sonnet-4", "claude-sonnet-4-5-20250929", True),
    ("claude-sonnet-4", "claude-sonnet-45", False),
    ("claude-sonnet-4.5", "anthropic/claude-sonnet-4-5", True),
    ("claude-sonnet-4-5", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", True),
    ("gemini-*-pro", "gemini-2.5-pro", True),
    ("gemini-*-pro", "gemini-2.5-flash", False),
    ("o3", "o3-mini", True),
    ("o3", "o30", False),
])
def test_model_patterns_match_at_token_boundaries(pattern: str, model: str,
                                                  expected: bool) -> None:
    assert match({"model": [pattern]}, "x", model)[0] is expected


def test_reasons_name_the_failing_condition() -> None:
    ok, why = match({"provider": ["anthropic"], "model": ["claude-opus-4"]}, "anthropic",
                    "claude-sonnet-4-5")
    assert not ok
    assert "matches none of ['claude-opus-4']" in why
    ok, why = match({"provider": ["openai"]}, "anthropic", "x")
    assert not ok and "'anthropic' is not in ['openai']" in why


def test_capability_predicates() -> None:
    assert match({"native_tools": True}, "anthropic", "claude-sonnet-4")[0]
    assert not match({"native_tools": True}, "anthropic", "claude-sonnet-4",
                     native_tools=False)[0]
    assert match({"max_context": 32768}, "x", "y", context_window=16000)[0]
    ok, why = match({"min_context": 100000}, "x", "y", context_window=16000)
    assert not ok and "16000" in why
    assert match({"images": True}, "openai", "gpt-4o")[0]
    assert match({"local": True}, "ollama", "llama3.1:8b")[0]
    assert not match({"local": True}, "openrouter", "llama3.1:8b")[0]


def test_all_any_not() -> None:
    spec = {"any": [{"local": True}, {"max_context": 32768}]}
    assert match(spec, "ollama", "big-model", context_window=200000)[0]
    assert match(spec, "openai", "small", context_window=8000)[0]
    ok, why = match(spec, "openai", "gpt-5")
    assert not ok and why.startswith("none of:")
    assert not match({"not": {"provider": ["openai"]}}, "openai", "gpt-5")[0]
    assert match({"all": [{"provider": ["openai"]}, {"model": ["gpt-5"]}]}, "openai",
                 "gpt-5-mini")[0]


@pytest.mark.parametrize(("spec", "message"), [
    ({"modle": ["x"]}, r"match\.modle.*unknown matcher key.*did you mean 'model'"),
    ({"native_tools": "yes"}, r"match\.native_tools.*true or false"),
    ({"min_context": -1}, r"match\.min_context.*non-negative"),
    ({"any": []}, r"match\.any.*non-empty"),
    ({}, r"empty matcher"),
    ({"model": [""]}, r"empty model pattern"),
    ({"provider": [3]}, r"match\.provider"),
])
def test_bad_matcher_tables_name_the_field(spec: dict, message: str) -> None:
    with pytest.raises(VariantConfigError, match=message):
        compile_matcher(spec, "v.toml")


@pytest.mark.parametrize(("family", "model", "expected"), [
    # Families are version ranges (promptc/_data/models.overlay.toml): later releases match.
    ("claude-4", "claude-sonnet-9", True),
    ("claude-4", "anthropic/claude-opus-4.8", True),
    ("claude-4", "claude-3-7-sonnet", False),
    ("glm", "z-ai/glm-5.9v", True),
    ("gemini-3", "gemini-3.5-flash", True),
    ("gemini-3", "gemini-2.5-flash", False),
    ("gpt-5", "gpt-6.1-sol", True),
    ("gpt-5", "gpt-4o", False),
])
def test_family_matchers_follow_the_family_rules(family: str, model: str,
                                                 expected: bool) -> None:
    ok, why = match({"family": [family]}, "x", model)
    assert ok is expected
    assert f"is {'' if expected else 'not '}in ['{family}']" in why


# Every key a [match] table may hold, with a value and whether it takes the model below.
_EVERY_KEY = {"provider": (["openai"], True), "model": (["gpt-4.1"], True),
              "family": (["gpt-4-1"], True), "native_tools": (True, True),
              "images": (True, False), "parallel_tools": (False, False),
              "prompt_caching": (True, True), "local": (True, False),
              "min_context": (200_000, False), "max_context": (128_000, True),
              "any": ([{"local": True}, {"provider": "openai"}], True),
              "all": ([{"local": True}, {"provider": "openai"}], False),
              "not": ({"provider": "openai"}, False), "always": (True, True)}


def test_every_matcher_key_compiles_to_its_own_test() -> None:
    assert set(_EVERY_KEY) == set(MATCH_KEYS)  # a new key needs a case here
    for key, (value, expected) in _EVERY_KEY.items():
        ok, why = match({key: value}, "openai", "gpt-4.1", native_tools=True, images=False,
                        parallel_tools=True, prompt_caching=True, context_window=100_000)
        assert ok is expected, (key, why)
