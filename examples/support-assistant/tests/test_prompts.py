"""The support assistant's prompts, checked on every change: run `pytest` in this folder.

`promptc_compiler` comes from promptc's pytest plugin (no import needed): the prompts of this
project's promptc.toml, never a developer's own ~/.config/promptc.
"""

from __future__ import annotations

import pytest

from promptc import NoVariantError, PromptContext, ProviderInfo
from promptc.testing import assert_renders_cleanly

CUSTOMERS = {
    "dana": PromptContext(date="2026-01-01", runtime={
        "CUSTOMER_NAME": "Dana", "CUSTOMER_TIER": "plus", "RECENT_ORDER": "NW-10482"}),
    "lee": PromptContext(date="2026-01-01", runtime={"CUSTOMER_NAME": "Lee"}),
}
MODELS = {
    "support-claude": ProviderInfo("anthropic", "claude-sonnet-4-5"),
    "support-gpt": ProviderInfo("openai", "gpt-4.1"),
}


@pytest.mark.parametrize("variant", sorted(MODELS))
def test_each_model_gets_its_variant(promptc_compiler, variant):
    assert promptc_compiler.resolve(MODELS[variant]).variant.id == variant


@pytest.mark.parametrize("variant", sorted(MODELS))
def test_renders_cleanly_for_every_customer(promptc_compiler, variant):
    # strict: no diagnostic, no leftover {{…}}, no empty heading
    prompts = assert_renders_cleanly(promptc_compiler, variant, MODELS[variant], CUSTOMERS)
    assert "You are talking with Dana, a plus member" in prompts["dana"].text
    assert "most recent order" not in prompts["lee"].text
    assert sorted(prompts["dana"].tools.names) == ["lookup_order", "start_return"]


def test_the_customer_comes_last_so_the_rest_is_cached(promptc_compiler):
    prompt = promptc_compiler.compile(MODELS["support-claude"], CUSTOMERS["dana"])
    assert [s.cache for s in prompt.sections] == ["static", "static", "static", "request"]


def test_a_model_no_variant_is_written_for_is_refused(promptc_compiler):
    with pytest.raises(NoVariantError, match="support-claude"):
        promptc_compiler.compile(ProviderInfo("openai", "o3"), CUSTOMERS["lee"])
