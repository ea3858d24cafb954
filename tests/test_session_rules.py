"""Each provider's caching rules on hand-built requests, every number computed by hand.

A request is a list of pieces (tokens, content digest, markers); the rules bill it against the
cache a replay keeps. Token counts are invented round numbers so each expected value can be
checked with a pencil. Each rule's test names where the providers' documentation says it (read
2026-12-06; docs/caching.md quotes them):

- ANTHROPIC: https://platform.claude.com/docs/en/build-with-claude/prompt-caching
- OPENAI: https://developers.openai.com/api/docs/guides/prompt-caching (and the API
  reference's `prompt_cache_retention`)
- GEMINI: https://ai.google.dev/gemini-api/docs/caching
"""

from __future__ import annotations

import pytest

from promptc import ProviderInfo
from promptc._model.prices import model_prices
from promptc._session.replay import _cost
from promptc._session.billing import (AnthropicRules, CacheState, GeminiRules, OpenAIRules,
                                    Usage, rules_for, rules_of)
from promptc._session.wire import Piece, common_prefix, digest


def piece(name: str, tokens: int, *, marker: bool = False, text: str = "",
          block_end: bool = True, kind: str = "system", run: str = "",
          ttl: float = 5.0) -> Piece:
    return Piece(kind, name, "static", tokens, digest(name, text), text,  # type: ignore[arg-type]
                 marker, block_end, ttl, run)


def marks(pieces: list[Piece], *extra: int) -> list[int]:
    return sorted({i for i, p in enumerate(pieces) if p.marker} | set(extra))


# --- Anthropic ---------------------------------------------------------------------------------

def test_anthropic_writes_then_reads_the_marked_prefix() -> None:
    rules, state = AnthropicRules(1024), CacheState()
    first = [piece("tools", 2000, marker=True), piece("static", 3000, marker=True),
             piece("turn 1", 100, kind="turn")]
    # markers after tools (2,000), static (5,000) and the client's on turn 1 (5,100)
    usage = rules.bill(first, marks(first, 2), state, 0)
    assert (usage.cache_read, usage.cache_write, usage.uncached) == (0, 5100, 0)
    second = [*first, piece("turn 2", 100, kind="turn")]
    usage = rules.bill(second, marks(second, 3), state, 1)
    # the client's marker moved to turn 2: turn 1's prefix (5,100) is read, turn 2 written
    assert (usage.cache_read, usage.cache_write, usage.uncached) == (5100, 100, 0)
    assert usage.cached_pieces == 4


def test_anthropic_a_changed_piece_reads_up_to_the_marker_before_it() -> None:
    rules, state = AnthropicRules(1024), CacheState()
    before = [piece("tools", 2000, marker=True), piece("static", 3000, marker=True),
              piece("mode act", 50), piece("turn 1", 100, kind="turn")]
    rules.bill(before, marks(before, 3), state, 0)
    after = [*before[:2], piece("mode plan", 50), before[3], piece("turn 2", 100, kind="turn")]
    usage = rules.bill(after, marks(after, 4), state, 1)
    # read: tools + static (5,000); written: mode, turn 1, turn 2 (250)
    assert (usage.cache_read, usage.cache_write, usage.uncached) == (5000, 250, 0)


def test_anthropic_unmarked_tail_is_uncached() -> None:
    rules, state = AnthropicRules(1024), CacheState()
    pieces = [piece("static", 3000, marker=True), piece("session", 700), piece("turn", 100)]
    usage = rules.bill(pieces, marks(pieces), state, 0)
    assert (usage.cache_read, usage.cache_write, usage.uncached) == (0, 3000, 800)


def test_anthropic_a_prefix_under_the_minimum_is_not_cached() -> None:
    rules, state = AnthropicRules(4096), CacheState()  # Opus 4.5's minimum
    pieces = [piece("tools", 2000, marker=True), piece("static", 1500, marker=True),
              piece("turn 1", 100, kind="turn")]
    usage = rules.bill(pieces, marks(pieces, 2), state, 0)
    assert (usage.cache_read, usage.cache_write, usage.uncached) == (0, 0, 3600)
    assert len(usage.notes) == 3 and "4,096-token minimum" in usage.notes[0]
    again = rules.bill(pieces, marks(pieces, 2), state, 1)
    assert again.cache_read == 0  # nothing was written, so nothing is read


def test_anthropic_rejects_a_fifth_marker() -> None:
    rules, state = AnthropicRules(1024), CacheState()
    pieces = [piece(f"p{i}", 2000, marker=True) for i in range(4)] + \
        [piece("turn 1", 100, kind="turn")]
    usage = rules.bill(pieces, marks(pieces, 4), state, 0)
    assert usage.rejected is not None and "5 cache_control markers" in usage.rejected
    assert (usage.cache_read, usage.cache_write, usage.uncached) == (0, 0, 0)
    assert state.entries == {}  # a rejected request leaves nothing in the cache


@pytest.mark.parametrize(("positions", "read"), [(19, 3000), (20, 3000), (21, 0)])
def test_anthropic_lookback_counts_the_marker_as_the_first_of_20_positions(
        positions: int, read: int) -> None:
    """ANTHROPIC: "The system checks at most 20 positions per breakpoint, counting the
    breakpoint itself as the first." The entry (the static prefix) sits `positions` positions
    back from the marker, its own block counted first."""
    rules, state = AnthropicRules(1024), CacheState()
    head = [piece("static", 3000)]
    rules.bill(head, [0], state, 0)  # the static prefix is written
    later = head + [piece(f"turn {i}", 10, kind="turn") for i in range(positions - 1)]
    usage = rules.bill(later, [len(later) - 1], state, 1)
    assert usage.cache_read == read
    assert (usage.miss_kind == "lookback") == (read == 0)


def test_anthropic_the_docs_own_lookback_example() -> None:
    """ANTHROPIC's example: "Turn 3: 35 blocks, breakpoint on block 35. The system checks 20
    positions (blocks 35 through 16) and finds nothing. The turn-2 entry at block 15 is one
    position outside the window." Each block 100 tokens; an entry at block 16 is found."""
    blocks = [piece(f"block {i}", 100) for i in range(1, 36)]
    for entry, read in ((15, 0), (16, 1600)):
        rules, state = AnthropicRules(1024), CacheState()
        rules.bill(blocks[:entry], [entry - 1], state, 0)
        assert rules.bill(blocks, [34], state, 1).cache_read == read, entry


def test_anthropic_a_run_of_tool_blocks_is_one_position() -> None:
    """ANTHROPIC: "a run of consecutive tool_use blocks counts as one position, and so does a
    run of consecutive tool_result blocks, so a turn with many parallel tool calls doesn't push
    the previous request's entry out of the window on its own." After a 2,000-token prefix
    (written by the request before), 15 tool_use blocks then 15 tool_result blocks are two
    positions: the entry is the third. The same 30 blocks interleaved are 30 positions."""
    head = [piece("prefix", 2000)]
    uses = [piece(f"use {i}", 10, kind="turn", run="tool_use") for i in range(15)]
    results = [piece(f"result {i}", 10, kind="turn", run="tool_result") for i in range(15)]
    for blocks, read in ((uses + results, 2000),
                         ([b for pair in zip(uses, results) for b in pair], 0)):
        rules, state = AnthropicRules(1024), CacheState()
        rules.bill(head, [0], state, 0)
        usage = rules.bill(head + blocks, [30], state, 1)
        assert (usage.cache_read, usage.cache_write) == (read, 2300 - read)


def test_anthropic_cache_expires_after_five_idle_minutes() -> None:
    """ANTHROPIC: "By default, the cache has a 5-minute lifetime. The cache is refreshed for no
    additional cost each time the cached content is used." """
    rules, state = AnthropicRules(1024), CacheState()
    pieces = [piece("static", 3000, marker=True)]
    rules.bill(pieces, [0], state, 0)
    assert rules.bill(pieces, [0], state, 5).cache_read == 3000   # refreshed at minute 5
    assert rules.bill(pieces, [0], state, 10).cache_read == 3000
    expired = rules.bill(pieces, [0], state, 15.5)                 # 5.5 idle minutes
    assert expired.cache_read == 0 and expired.miss_kind == "expired"


def test_anthropic_one_hour_entries_outlive_a_pause_five_minute_ones_do_not() -> None:
    """ANTHROPIC: `ttl: "1h"` entries live an hour; "1-hour cache write tokens are 2 times the
    base input tokens price". The prompt (1-hour marker) survives a 30-minute pause, the
    conversation's turn (5-minute marker) does not; an hour and a minute later nothing does."""
    rules, state = AnthropicRules(1024), CacheState()
    first = [piece("prompt", 3000, ttl=60.0), piece("turn 1", 500, kind="turn")]
    usage = rules.bill(first, [0, 1], state, 0)
    assert (usage.cache_write, usage.write_long) == (3500, 3000)
    later = [*first, piece("turn 2", 500, kind="turn")]
    usage = rules.bill(later, [0, 2], state, 30)  # 30 minutes later
    assert (usage.cache_read, usage.cache_write, usage.write_long) == (3000, 1000, 0)
    assert usage.miss_kind == "expired"  # turn 1's 5-minute entry was there, and expired
    gone = rules.bill([*later, piece("turn 3", 500, kind="turn")], [0, 3], state, 30 + 61)
    assert gone.cache_read == 0 and gone.write_long == 3000


def test_anthropic_mixed_lifetimes_bill_a_b_c_and_longer_lifetimes_come_first() -> None:
    """ANTHROPIC: "Cache entries with longer TTL must appear before shorter TTLs"; when mixing,
    A = the tokens read, B = the last 1-hour marker after A (or A), C = the last marker: B − A
    is written at the 1-hour price, C − B at the 5-minute one. Sonnet 4.5 ($3 input): 5,000
    tokens at $6 (2×) and 1,100 at $3.75 (LiteLLM's cache-write price)."""
    rules, state = AnthropicRules(1024), CacheState()
    pieces = [piece("tools", 2000, ttl=60.0), piece("system", 3000, ttl=60.0),
              piece("message", 1000), piece("turn", 100, kind="turn")]
    usage = rules.bill(pieces, [0, 1, 2, 3], state, 0)
    assert (usage.cache_read, usage.cache_write, usage.write_long) == (0, 6100, 5000)
    prices = model_prices(ProviderInfo("anthropic", "claude-sonnet-4-5"))
    assert prices is not None and (prices.input, prices.cache_write) == (3.0, 3.75)
    assert _cost(usage, 0, prices) == pytest.approx((5000 * 6.0 + 1100 * 3.75) / 1e6)
    backwards = [piece("tools", 2000), piece("system", 3000, ttl=60.0)]
    refused = rules.bill(backwards, [0, 1], CacheState(), 0)
    assert refused.rejected is not None and "1-hour" in refused.rejected


# --- OpenAI ------------------------------------------------------------------------------------

def test_openai_reads_in_steps_of_128_from_1024() -> None:
    """OPENAI (older guide, kept for models before GPT-5.6): the cached part grows in steps
    of 128 tokens from the minimum."""
    rules, state = OpenAIRules(len, 1024), CacheState()
    first = [piece("tools", 2000), piece("static", 3000), piece("turn 1", 100, kind="turn")]
    usage = rules.bill(first, [], state, 0)
    assert (usage.cache_read, usage.cache_write, usage.uncached) == (0, 0, 5100)
    second = [*first, piece("turn 2", 100, kind="turn")]
    usage = rules.bill(second, [], state, 1)
    # shared 5,100 → 1,024 + 31 × 128 = 4,992
    assert (usage.cache_read, usage.cache_write, usage.uncached) == (4992, 0, 208)


def test_openai_under_1024_tokens_caches_nothing() -> None:
    rules, state = OpenAIRules(len), CacheState()
    pieces = [piece("static", 1000)]
    rules.bill(pieces, [], state, 0)
    usage = rules.bill(pieces, [], state, 1)
    assert (usage.cache_read, usage.uncached) == (0, 1000) and "1,024" in usage.notes[0]
    longer = [piece("static", 1000), piece("turn", 100, kind="turn")]
    rules.bill(longer, [], state, 2)
    # shared: the 1,000-token piece only, under 1,024: no hit
    assert rules.bill([*longer[:1], piece("other", 200)], [], state, 3).cache_read == 0


def test_openai_counts_the_common_start_of_a_changed_piece() -> None:
    rules, state = OpenAIRules(len), CacheState()  # one "token" per character
    a = [piece("static", 1000, text="s" * 1000), piece("rules", 600, text="r" * 500 + "a" * 100)]
    rules.bill(a, [], state, 0)
    b = [a[0], piece("rules", 600, text="r" * 500 + "b" * 100)]
    usage = rules.bill(b, [], state, 1)
    # shared: 1,000 + the 500 common characters = 1,500 → 1,024 + 3 × 128 = 1,408
    assert usage.cache_read == 1408 and usage.uncached == 192


def test_common_prefix() -> None:
    assert common_prefix("abcdef", "abcxyz") == 3
    assert common_prefix("", "abc") == 0 and common_prefix("same", "same") == 4
    assert common_prefix("ab", "abc") == 2


# --- Gemini ------------------------------------------------------------------------------------

def test_gemini_reads_the_exact_shared_prefix_above_its_minimum() -> None:
    rules, state = GeminiRules(len, 2048), CacheState()
    first = [piece("tools", 2000), piece("static", 3000), piece("turn 1", 100, kind="turn")]
    rules.bill(first, [], state, 0)
    second = [*first, piece("turn 2", 100, kind="turn")]
    usage = rules.bill(second, [], state, 1)
    assert (usage.cache_read, usage.cache_write, usage.uncached) == (5100, 0, 100)
    small = GeminiRules(len, 2048)
    tiny = [piece("static", 2000)]
    small.bill(tiny, [], state, 2)
    usage = small.bill(tiny, [], state, 3)
    assert usage.cache_read == 0 and "2,048" in usage.notes[0]


@pytest.mark.parametrize(("model", "minimum"), [
    ("gpt-5", 2048), ("gpt-4.1", 2048), ("gpt-4o", 2048), ("o3", 2048), ("gpt-5.6", 1024),
    ("gpt-5.6-sol", 1024)])
def test_openai_minimum_by_model(model: str, minimum: int) -> None:
    """OPENAI: "The minimum cacheable prompt length is 1,024 tokens for GPT-5.6 and later and
    2,048 tokens for models older than GPT-5.6" (promptc's model data). A 1,500-token prompt
    sent twice is cached only where the minimum allows."""
    info = ProviderInfo("openai", model)
    assert info.resolved().cache_min_tokens == minimum
    rules, state = rules_of("openai", info, len), CacheState()
    prompt = [piece("prompt", 1500)]
    rules.bill(prompt, [], state, 0)
    again = rules.bill(prompt, [], state, 1)
    assert (again.cache_read > 0) == (minimum <= 1500)


def test_openai_from_gpt_5_6_writes_cost_1_25x_and_entries_live_30_minutes() -> None:
    """OPENAI: GPT-5.6 and later "cache writes cost 1.25× the standard, uncached input-token
    rate"; "The only supported value, `30m`, is also the default" (`prompt_cache_options.ttl`);
    implicitly "a breakpoint at the end of the latest eligible message". LiteLLM prices
    gpt-5.6 at $4 input and $5 cache write."""
    info = ProviderInfo("openai", "gpt-5.6")
    rules, state = rules_of("openai", info, len), CacheState()
    first = [piece("prompt", 3000)]
    usage = rules.bill(first, [], state, 0)
    assert (usage.cache_read, usage.cache_write, usage.uncached) == (0, 3000, 0)
    prices = model_prices(info)
    assert prices is not None and prices.cache_write == pytest.approx(1.25 * prices.input)
    assert _cost(usage, 0, prices) == pytest.approx(3000 * 5.0 / 1e6)
    second = [*first, piece("turn", 100, kind="turn")]
    usage = rules.bill(second, [], state, 29)  # within 30 minutes of the write
    assert (usage.cache_read, usage.cache_write, usage.uncached) == (3000, 100, 0)
    late = rules.bill([*second, piece("turn 2", 100, kind="turn")], [], state, 29 + 31)
    assert late.cache_read == 0 and late.miss_kind == "expired"


@pytest.mark.parametrize(("model", "retention", "read"), [
    ("gpt-5", None, 2432), ("gpt-4.1", None, 2432), ("gpt-5", "in_memory", 0),
    ("gpt-4o", None, 0)])
def test_openai_extended_retention_where_documented(model: str, retention: str | None,
                                                   read: int) -> None:
    """OPENAI API reference (`prompt_cache_retention`): for the models that offer both,
    "Organizations without ZDR enabled default to 24h" (gpt-5.x before 5.6, gpt-4.1; "up to a
    maximum of 24 hours", best-effort); in memory, entries go after "5 to 10 minutes of
    inactivity". After a 60-minute pause a 2,500-token prompt is still read (2,048 + 3 × 128)
    only with 24h."""
    rules = rules_of("openai", ProviderInfo("openai", model), len, retention=retention)
    state, prompt = CacheState(), [piece("prompt", 2500)]
    rules.bill(prompt, [], state, 0)
    assert rules.bill(prompt, [], state, 60).cache_read == read


@pytest.mark.parametrize(("model", "minimum"), [
    ("gemini-3-pro-preview", 4096), ("gemini-3-flash-preview", 4096),
    ("gemini-2.5-flash", 2048), ("gemini-2.5-pro", 2048)])
def test_gemini_minimum_by_model(model: str, minimum: int) -> None:
    """GEMINI: implicit caching's minimum input is 4,096 tokens for the 3.x models and 2,048
    for 2.5 Flash and Pro. A 3,000-token prompt sent twice is read only under 2.5."""
    info = ProviderInfo("gemini", model)
    assert info.resolved().cache_min_tokens == minimum
    rules, state = rules_of("gemini", info, len), CacheState()
    prompt = [piece("prompt", 3000)]
    rules.bill(prompt, [], state, 0)
    again = rules.bill(prompt, [], state, 1)
    assert again.cache_read == (3000 if minimum <= 3000 else 0)
    assert isinstance(again, Usage) and (not again.cache_read) == bool(again.notes)


def test_providers_map_to_their_rules() -> None:
    assert rules_for("anthropic", "claude-sonnet-4-5") == "anthropic"
    assert rules_for("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0") == "bedrock"
    assert rules_for("azure", "gpt-5") == "openai"
    assert rules_for("vertex_ai", "gemini-2.5-pro") == "gemini"
    assert rules_for("vertex_ai", "claude-sonnet-4-5") == "anthropic"
    assert rules_for("ollama", "qwen3") is None
