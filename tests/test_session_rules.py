"""Each provider's caching rules on hand-built requests, every number computed by hand.

A request is a list of pieces (tokens, content digest, markers); the rules bill it against the
cache a replay keeps. Token counts are invented round numbers so each expected value can be
checked with a pencil.
"""

from __future__ import annotations

from promptc._session.rules import (AnthropicRules, CacheState, GeminiRules, OpenAIRules,
                                    rules_for)
from promptc._session.wire import Piece, common_prefix, digest


def piece(name: str, tokens: int, *, marker: bool = False, text: str = "",
          block_end: bool = True, kind: str = "system") -> Piece:
    return Piece(kind, name, "static", tokens, digest(name, text), text,  # type: ignore[arg-type]
                 marker, block_end)


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


def test_anthropic_lookback_reaches_twenty_blocks_only() -> None:
    rules = AnthropicRules(1024)
    head = [piece("static", 3000)]
    turns = [piece(f"turn {i}", 10, kind="turn") for i in range(30)]
    for back, expected in ((20, 3000), (21, 0)):
        state = CacheState()
        first = head + turns[:1]
        rules.bill(first, [0], state, 0)  # the static prefix is written
        later = head + turns[:back]
        usage = rules.bill(later, [len(later) - 1], state, 1)
        assert usage.cache_read == expected, back


def test_anthropic_cache_expires_after_five_idle_minutes() -> None:
    rules, state = AnthropicRules(1024), CacheState()
    pieces = [piece("static", 3000, marker=True)]
    rules.bill(pieces, [0], state, 0)
    assert rules.bill(pieces, [0], state, 5).cache_read == 3000   # refreshed at minute 5
    assert rules.bill(pieces, [0], state, 10).cache_read == 3000
    assert rules.bill(pieces, [0], state, 15.5).cache_read == 0    # 5.5 idle minutes


# --- OpenAI ------------------------------------------------------------------------------------

def test_openai_reads_in_steps_of_128_from_1024() -> None:
    rules, state = OpenAIRules(len), CacheState()
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


def test_providers_map_to_their_rules() -> None:
    assert rules_for("anthropic", "claude-sonnet-4-5") == "anthropic"
    assert rules_for("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0") == "anthropic"
    assert rules_for("azure", "gpt-5") == "openai"
    assert rules_for("vertex_ai", "gemini-2.5-pro") == "gemini"
    assert rules_for("vertex_ai", "claude-sonnet-4-5") == "anthropic"
    assert rules_for("ollama", "qwen3") is None
