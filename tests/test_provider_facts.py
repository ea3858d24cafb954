"""Model facts come from the request's own provider: a row of another provider (a reseller
such as Replicate, whose API may lack function calling) never decides a capability for the
model's maker or for a provider with its own row. `gemini-3-pro` on Google once got text tools
because Replicate's row said so."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from promptc import Compiler, ProviderInfo
from promptc._model.provider import model_data, model_facts

VARIANTS = Path(__file__).resolve().parent.parent / "variants"


def routed_families() -> list[str]:
    """The families the built-in variants match."""
    out: set[str] = set()
    for path in sorted(VARIANTS.glob("*/variant.toml")):
        match = tomllib.loads(path.read_text(encoding="utf-8")).get("match") or {}
        fam = match.get("family") or []
        out.update([fam] if isinstance(fam, str) else fam)
    return sorted(out)


def provider_spellings() -> list[str]:
    """Every provider spelling the model data knows (aliases, their keys, first parties)."""
    overlay = model_data().overlay
    return sorted({*overlay.provider_aliases, *overlay.provider_aliases.values(),
                   *overlay.first_party})


def entry_provider(entry: str) -> str:
    """The provider a table entry belongs to ("" for LiteLLM's unprefixed, maker's keys)."""
    overlay = model_data().overlay
    return overlay.provider_key(entry.split("/", 1)[0]) if "/" in entry else ""


@pytest.mark.parametrize("provider", ["gemini", "vertex_ai", "google"])
def test_gemini_3_pro_on_google_is_not_decided_by_replicate(provider: str,
                                                            builtins: Compiler) -> None:
    facts = {f.name: f for f in model_facts(ProviderInfo(provider, "gemini-3-pro")).facts}
    assert facts["native_tools"].value is True, facts["native_tools"]
    assert "replicate" not in facts["native_tools"].ref
    prompt = builtins.compile(ProviderInfo(provider, "gemini-3-pro"), {})
    assert prompt.variant.id == "gemini-3" and prompt.tools.mode == "native"


def test_replicates_own_row_decides_for_replicate() -> None:
    facts = {f.name: f for f in model_facts(ProviderInfo("replicate", "gemini-3-pro")).facts}
    assert facts["native_tools"].source == "table" and facts["native_tools"].value is False
    assert "replicate" in facts["native_tools"].ref


def test_a_resellers_row_fills_only_gaps_and_says_so() -> None:
    """A model only a reseller lists: its row still gives what nothing else knows, named as
    another provider's row."""
    facts = {f.name: f for f in model_facts(ProviderInfo("openrouter", "baichuan-m2-32b")).facts}
    window = facts["context_window"]
    assert window.source == "table" and window.ref.startswith("novita/")
    assert "another provider's row (novita)" in window.note
    gemini = model_facts(ProviderInfo("gemini", "gemini-3-pro")).facts
    assert all(f.source != "table" for f in gemini if f.name in ("native_tools",
                                                                 "context_window"))


def test_no_other_providers_row_decides_where_the_family_knows() -> None:
    """Every provider spelling × every example of every routed family: a fact from the table
    comes from the request's provider, the maker's row (first party or LiteLLM's unprefixed
    key), or fills a gap the family and overlay leave (it never overrides them)."""
    overlay = model_data().overlay
    checked = 0
    for family_id in routed_families():
        family = overlay.family_by_id(family_id)
        assert family is not None, family_id
        for model in family.examples:
            for provider in provider_spellings():
                key = overlay.provider_key(provider)
                for fact in model_facts(ProviderInfo(provider, model)).facts:
                    if fact.source != "table":
                        continue
                    checked += 1
                    owner = entry_provider(fact.ref)
                    own = owner in ("", key) or owner in overlay.first_party
                    assert own or fact.name not in family.facts, (provider, model, fact)
    assert checked > 100


@pytest.mark.parametrize(("provider", "model", "value", "source"), [
    ("openai", "gpt-5.1-codex", True, "table"),       # LiteLLM: "mode": "responses"
    ("openai", "gpt-5-codex", True, "table"),
    ("openai", "gpt-5.9-codex", True, "family"),      # a later release: the family's fact
    ("openai", "gpt-5", False, "table"),
    ("anthropic", "claude-sonnet-4-5", False, "table"),
    ("perplexity", "anthropic/claude-sonnet-4-5", True, "table"),  # its agent API only
])
def test_responses_only_comes_from_the_model_data(provider: str, model: str, value: bool,
                                                  source: str) -> None:
    fact = {f.name: f for f in model_facts(ProviderInfo(provider, model)).facts}
    assert (fact["responses_only"].value, fact["responses_only"].source) == (value, source)
    assert ProviderInfo(provider, model).resolved().responses_only is value


@pytest.mark.parametrize(("model", "cutoff"), [
    ("gemini-3-pro-preview", "January 2025"), ("gemini-3-flash-preview", "January 2025"),
    ("gemini-3.1-pro-preview", ""),  # another model: its cutoff is not known here
    ("gpt-5", ""), ("claude-sonnet-4-5", ""),
])
def test_a_knowledge_cutoff_only_where_a_maintained_source_gives_it(model: str,
                                                                    cutoff: str) -> None:
    fact = {f.name: f for f in model_facts(ProviderInfo("google", model)).facts}
    assert fact["knowledge_cutoff"].value == cutoff
    if cutoff:
        assert fact["knowledge_cutoff"].source == "overlay"
        assert "ai.google.dev" in fact["knowledge_cutoff"].note  # the source is recorded


def test_the_date_line_carries_the_cutoff_where_it_is_known(builtins: Compiler) -> None:
    from promptc.testing import make_context
    gemini = builtins.compile(ProviderInfo("google", "gemini-3-pro-preview"),
                              make_context("full"))
    section = gemini.section("request_info")
    assert section is not None and "January 2025" in section.text
    gpt = builtins.compile(ProviderInfo("openai", "gpt-5"), make_context("full"))
    section = gpt.section("request_info")
    assert section is not None and "cutoff" not in section.text  # unknown: no line


# Ollama's library names of models that read images, and of their text-only neighbours
# (issue 35: qwen2.5vl on Ollama was reported without vision, and so were the others here).
OLLAMA_VISION = ["qwen2.5vl", "qwen2.5vl:72b", "llava", "llava:13b", "llava-llama3",
                 "llava-phi3", "bakllava", "llama3.2-vision", "llama3.2-vision:90b", "llama4",
                 "llama4:scout", "gemma3", "gemma3:4b", "gemma3:27b", "qwen3-vl:8b",
                 "minicpm-v", "moondream", "granite3.2-vision", "mistral-small3.1",
                 "mistral-small3.2"]
OLLAMA_TEXT = ["gemma3:1b", "gemma3:270m", "gemma3n", "llama3.2", "llama3.1", "qwen2.5",
               "qwen3", "mistral-small", "gemma2"]


@pytest.mark.parametrize("provider", ["ollama", "ollama_chat"])
def test_ollama_vision_models_read_images_and_their_text_siblings_do_not(provider: str) -> None:
    for model in OLLAMA_VISION:
        facts = model_facts(ProviderInfo(provider, model))
        assert facts.value("images") is True, model
        [fact] = [f for f in facts.facts if f.name == "images"]
        assert fact.source == "overlay" and "Ollama" in fact.note, model
    for model in OLLAMA_TEXT:
        assert model_facts(ProviderInfo(provider, model)).value("images") is False, model


@pytest.mark.parametrize(("model", "caching", "minimum", "tools"), [
    ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", True, 1024, True),
    ("anthropic.claude-3-7-sonnet-20250219-v1:0", True, 1024, True),
    ("anthropic.claude-3-5-haiku-20241022-v1:0", True, 2048, True),
    ("global.anthropic.claude-haiku-4-5-20251001-v1:0", True, 4096, True),
    ("us.anthropic.claude-opus-4-5-20251101-v1:0", True, 4096, True),
    ("us.amazon.nova-pro-v1:0", True, 1000, False),
    ("amazon.nova-micro-v1:0", True, 1000, False),
    ("us.amazon.nova-premier-v1:0", True, 1000, False),
    ("meta.llama3-1-70b-instruct-v1:0", False, None, None),
    ("us.deepseek.r1-v1:0", False, None, None),
    ("anthropic.claude-3-haiku-20240307-v1:0", False, None, None),
    ("anthropic.claude-3-5-sonnet-20240620-v1:0", False, None, None),
])
def test_bedrock_caches_only_the_models_its_prompt_caching_page_lists(
        model: str, caching: bool, minimum: int | None, tools: bool | None) -> None:
    """Bedrock refuses a cache checkpoint for a model it does not cache, so the model data
    says which it caches, from what size, and whether the tools (Nova's cache takes none)."""
    info = ProviderInfo("bedrock", model).resolved()
    assert info.prompt_caching is caching
    if caching:
        assert (info.cache_min_tokens, info.cache_tools) == (minimum, tools)
    fact = {f.name: f for f in model_facts(ProviderInfo("bedrock", model)).facts}
    assert fact["prompt_caching"].source == "overlay"
    assert "docs.aws.amazon.com/bedrock" in fact["prompt_caching"].note


def test_the_bedrock_rows_stay_on_bedrock() -> None:
    """DeepSeek's own API and Anthropic's cache as before; Claude keeps caching its tools."""
    assert ProviderInfo("deepseek", "deepseek-chat").resolved().prompt_caching is True
    claude = ProviderInfo("anthropic", "claude-3-haiku-20240307").resolved()
    assert claude.prompt_caching is True and claude.cache_tools is True
    assert ProviderInfo("bedrock_converse", "us.amazon.nova-lite-v1:0").resolved() \
        .cache_tools is False  # every spelling of Bedrock
