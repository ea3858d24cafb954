"""Replaying a scripted session, computed by hand for each provider.

A small stand-in prompt source builds every request from five pieces of round sizes (tools
2,000 tokens, the static role 3,000, the rules 500, the mode 50, the date 20), each changing
with the context field it stands for, so each request's reads, writes, breaks and cost can be
worked out with a pencil. The story: a first request, a repeat, a mode switch, a rules edit, a
day change, a second user's new session, a model switch; 100 conversation tokens per request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from promptc import ConfigError, ProviderInfo
from promptc.session import Piece, PromptWire, SessionScript, load_script, replay
from promptc._session.wire import digest

READS = {"rules": frozenset({"rules"}), "mode": frozenset({"mode"}),
         "date": frozenset({"date"})}


class RoundNumbers:
    """A prompt source with pieces of round sizes (see the module docstring)."""

    def wire(self, provider: ProviderInfo, context: Mapping[str, Any], api: str,
             dynamic: str, breakpoints: int) -> PromptWire:
        anthropic = api == "anthropic"
        system = dynamic == "system"

        def make(where: str, cache: str, tokens: int, content: Any, marker: bool,
                 kind: str = "system") -> Piece:
            return Piece(kind, where, cache, tokens,  # type: ignore[arg-type]
                         digest(where, json.dumps(content)), "", anthropic and marker)

        tools = make("tools", "static", 2000, provider.model, breakpoints >= 1, "tools")
        role = make("role", "static", 3000, provider.model, breakpoints >= 2)
        kind = "system" if system else "message"
        rest = (make("rules", "session", 500, context.get("rules"), system and breakpoints >= 3,
                     kind),
                make("mode", "request", 50, context.get("mode"), False, kind),
                make("date", "request", 20, context.get("date"), system and breakpoints >= 4,
                     kind))
        head, message = ((tools, role, *rest), ()) if system else ((tools, role), rest)
        key = f"key-{provider.model}" if api == "openai" else None
        return PromptWire(head, message, key, "round")

    def reads(self, provider: ProviderInfo, where: str) -> frozenset[str] | None:
        return READS.get(where, frozenset())


def story(provider: str, first: str, second: str, **extra: Any) -> SessionScript:
    return SessionScript.from_dict({
        "provider": provider, "model": first, "turn_tokens": 100, **extra,
        "context": {"mode": "act", "date": "2026-01-01",
                    "rules": [{"name": "r", "text": "one"}]},
        "request": [{}, {"repeat": 1}, {"mode": "plan"},
                    {"rules": [{"name": "r", "text": "two"}]}, {"date": "2026-01-02"},
                    {"new_session": True, "rules": [{"name": "r", "text": "three"}]},
                    {"model": second}]}, source="story.toml")


def bills(report: Any) -> list[tuple[int, int, int]]:
    return [(r.cache_read, r.cache_write, r.uncached) for r in report.requests]


def breaks(report: Any) -> list[tuple[str, str, str] | None]:
    return [(r.brk.where, r.brk.cache, r.brk.kind) if r.brk else None for r in report.requests]


STORY_BREAKS = [None, None, ("mode", "request", "change"), ("rules", "session", "change"),
                ("date", "request", "change"), ("rules", "session", "new_session"),
                ("model", "static", "model")]


def test_anthropic_by_hand(builtins: Any) -> None:
    report = replay(story("anthropic", "claude-sonnet-4-5", "claude-opus-4-5"),
                    compiler=builtins, source=RoundNumbers(), dynamic="system")
    # markers: tools (2,000), role (5,000), rules (5,500) and the client's on the latest turn
    assert bills(report) == [
        (0, 5670, 0),        # everything written up to turn 1
        (5670, 100, 0),      # a repeat: turn 1's prefix read, turn 2 written
        (5500, 370, 0),      # mode switch: read up to the rules marker
        (5000, 970, 0),      # rules edit: read up to the role marker
        (5500, 570, 0),      # day change: the edited rules' prefix was written at request 4
        (5000, 670, 0),      # a second user: the static prefix is shared
        (0, 5770, 0)]        # Opus: its own cache; the tools marker is under its 4,096 minimum
    assert breaks(report) == STORY_BREAKS
    causes = [r.brk.cause if r.brk else None for r in report.requests]
    assert causes[2] == "mode act → plan" and causes[3] == "rules changed"
    assert causes[4] == "date 2026-01-01 → 2026-01-02"
    assert causes[5] == "new session: rules changed" and "claude-opus-4-5" in str(causes[6])
    assert "4,096-token minimum" in report.requests[6].notes[0]
    assert [r.markers for r in report.requests] == [4] * 7
    # Sonnet 4.5: input $3, cache write $3.75, read $0.30; Opus 4.5: write $6.25 (per MTok)
    assert report.requests[0].cost == pytest.approx(5670 * 3.75e-6)
    assert report.requests[1].cost == pytest.approx((5670 * 0.3 + 100 * 3.75) / 1e6)
    assert report.requests[6].cost == pytest.approx(5770 * 6.25e-6)
    t = report.totals
    assert (t.input, t.cache_read, t.cache_write, t.uncached) == (40790, 26670, 14120, 0)
    assert (t.breaks, t.static_breaks, t.sessions) == (5, 0, 2)
    assert t.cost == pytest.approx(0.075376)


def test_openai_by_hand(builtins: Any) -> None:
    report = replay(story("openai", "gpt-5", "gpt-5.1"), compiler=builtins,
                    source=RoundNumbers(), dynamic="system")
    # hits in steps of 128 from 1,024: 5,670 shared → 5,632; 5,500 → 5,376; 5,000 → 4,992;
    # 5,550 (up to the mode) → 5,504
    assert bills(report) == [(0, 0, 5670), (5632, 0, 138), (5376, 0, 494), (4992, 0, 978),
                             (5504, 0, 566), (4992, 0, 678), (0, 0, 5770)]
    assert breaks(report) == STORY_BREAKS
    assert report.requests[1].cost == pytest.approx((5632 * 0.125 + 138 * 1.25) / 1e6)
    assert report.totals.cost == pytest.approx(0.0211795)
    assert report.totals.cached_share == pytest.approx(26496 / 40790)


def test_gemini_by_hand(builtins: Any) -> None:
    report = replay(story("gemini", "gemini-2.5-flash", "gemini-2.5-pro"), compiler=builtins,
                    source=RoundNumbers(), dynamic="system")
    assert bills(report) == [(0, 0, 5670), (5670, 0, 100), (5500, 0, 370), (5000, 0, 970),
                             (5550, 0, 520), (5000, 0, 670), (0, 0, 5770)]
    assert breaks(report) == STORY_BREAKS
    assert report.totals.cost == pytest.approx(0.0105041)


def test_dynamic_placement_by_hand(builtins: Any) -> None:
    """With the details in the first message, a change goes with the latest message: only a
    new session (its first message) and the model switch break anything."""
    report = replay(story("anthropic", "claude-sonnet-4-5", "claude-opus-4-5"),
                    compiler=builtins, source=RoundNumbers(), dynamic="message")
    assert bills(report) == [
        (0, 5670, 0), (5670, 100, 0),
        (5770, 150, 0),      # the new mode (50) sent with turn 3
        (5920, 600, 0),      # the edited rules (500) with turn 4
        (6520, 120, 0),      # the new date (20) with turn 5
        (5000, 670, 0), (0, 5770, 0)]
    assert breaks(report) == [None] * 5 + [("rules", "session", "new_session"),
                                           ("model", "static", "model")]
    t = report.totals
    assert (t.input, t.cache_read, t.cache_write) == (41960, 28880, 13080)
    system = replay(story("anthropic", "claude-sonnet-4-5", "claude-opus-4-5"),
                    compiler=builtins, source=RoundNumbers(), dynamic="system")
    assert t.cached_share > system.totals.cached_share


def test_a_fifth_marker_is_a_rejected_request_and_fails_the_gates(builtins: Any) -> None:
    report = replay(story("anthropic", "claude-sonnet-4-5", "claude-opus-4-5"),
                    compiler=builtins, source=RoundNumbers(), breakpoints=4, dynamic="system")
    assert all(r.rejected and "5 cache_control markers" in r.rejected for r in report.requests)
    assert report.totals.rejected == 7 and report.totals.input == 0
    gates = {g.name: g.ok for g in report.gates()}
    assert gates == {"static-class breaks": True, "rejected requests": False,
                     "conversation rewrites": True}
    # a what-if without Anthropic's limit (the benchmark's bound): billed, and said so
    what_if = replay(story("anthropic", "claude-sonnet-4-5", "claude-opus-4-5"),
                     compiler=builtins, source=RoundNumbers(), breakpoints=4,
                     marker_limit=None, dynamic="system")
    assert what_if.totals.rejected == 0 and what_if.requests[0].cache_write == 5670
    assert "no limit" in what_if.rules[0]


def test_a_pause_longer_than_the_lifetime_expires_the_cache(builtins: Any) -> None:
    script = SessionScript.from_dict({
        "provider": "anthropic", "model": "claude-sonnet-4-5", "turn_tokens": 100,
        "context": {"mode": "act", "date": "2026-01-01"},
        "request": [{}, {"pause": 4}, {"pause": 6}]})
    report = replay(script, compiler=builtins, source=RoundNumbers(), dynamic="system")
    assert [r.cache_read for r in report.requests] == [0, 5670, 0]
    assert breaks(report)[2] == ("tools", "static", "expired")
    assert report.totals.static_breaks == 0  # an expiry is no defect of the prompt


def test_gates(builtins: Any) -> None:
    report = replay(story("anthropic", "claude-sonnet-4-5", "claude-opus-4-5"),
                    compiler=builtins, source=RoundNumbers(), dynamic="system")
    share = 26670 / 40790
    # the whole prompt in the system prompt: the mode switch, the rules edit and the new day
    # each write the conversation again (requests 3-5), which the rewrite gate names
    checks = {g.name: g.ok for g in report.gates(max_breaks=5, min_cached_share=share,
                                                 max_rewrites=3)}
    assert all(checks.values()) and len(checks) == 5
    checks = {g.name: g.ok for g in report.gates(max_breaks=4, min_cached_share=share + 0.01)}
    assert checks == {"static-class breaks": True, "rejected requests": True,
                      "conversation rewrites": False, "max-breaks": False,
                      "min-cached-share": False}
    [rewrites] = [g for g in report.gates() if g.name == "conversation rewrites"]
    assert rewrites.value.startswith("3: #3: 200 conversation tokens not read from the cache "
                                     "(mode: mode act → plan); #4: ")
    data = report.to_dict(max_breaks=4)
    assert data["ok"] is False and data["totals"]["cost"] == pytest.approx(0.075376)
    assert set(data["requests"][0]) >= {"cache_read", "cache_write", "uncached",
                                        "turn_tokens", "break"}
    assert data["requests"][2]["break"] == {"where": "mode", "cache": "request",
                                            "cause": "mode act → plan", "kind": "change",
                                            "static": False}
    assert "LiteLLM" in data["totals"]["price_source"]


def test_time_passes_between_requests_and_lifetimes_decide_what_survives_a_pause(
        builtins: Any) -> None:
    """`turn_seconds` (30 by default) between requests, `pause` minutes where a request says so.
    With `ttl = "1h"` promptc's markers outlive a 20-minute pause (the prompt is read, the
    conversation behind the client's 5-minute marker is written again: an expiry, which no
    gate counts against the prompt); with the 5-minute default nothing survives it."""
    def run(ttl: str, pause: float) -> Any:
        script = SessionScript.from_dict({
            "provider": "anthropic", "model": "claude-sonnet-4-5", "turn_tokens": 100,
            "ttl": ttl, "context": {"mode": "act", "date": "2026-01-01"},
            "request": [{}, {"repeat": 9}, {"pause": pause}]})
        return replay(script, compiler=builtins, source=RoundNumbers(), dynamic="system")
    hour, five = run("1h", 20), run("5m", 20)
    # ten requests 30 seconds apart: 4.5 minutes, nothing expired before the pause
    assert all(r.brk is None for r in hour.requests[:10])
    assert hour.requests[10].cache_read == 5500  # tools, role and rules (1-hour markers)
    assert hour.requests[10].brk is not None and hour.requests[10].brk.kind == "expired"
    assert hour.requests[10].rewritten == 1000 and not hour.requests[10].costly_rewrite
    assert five.requests[10].cache_read == 0 and five.totals.rewrites == 0
    assert hour.requests[0].write_long == 5500 and hour.totals.cache_write_long == 5500
    assert all(g.ok for g in hour.gates())


def test_replay_is_linear_in_requests(builtins: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request costs the same however long its conversation: the digests a replay computes
    and the pieces it looks at grow linearly with the requests, not with their square."""
    from promptc._session import wire
    counted = {"ops": 0}
    real_digest, real_item = wire.digest, wire.Sent.__getitem__

    def digest_counted(*parts: str) -> str:
        counted["ops"] += 1
        return real_digest(*parts)

    def item_counted(self: Any, i: Any) -> Any:
        counted["ops"] += 1
        return real_item(self, i)
    monkeypatch.setattr(wire, "digest", digest_counted)
    monkeypatch.setattr(wire.Sent, "__getitem__", item_counted)

    def ops(requests: int, provider: str, model: str) -> int:
        counted["ops"] = 0
        script = SessionScript.from_dict({
            "provider": provider, "model": model, "turn_tokens": 100,
            "context": {"mode": "act", "date": "2026-01-01"},
            "request": [{}, {"repeat": requests - 1}]})
        replay(script, compiler=builtins, source=RoundNumbers())
        return counted["ops"]
    for provider, model in (("anthropic", "claude-sonnet-4-5"), ("openai", "gpt-5"),
                            ("openai", "gpt-5.6"), ("gemini", "gemini-2.5-flash")):
        small, large = ops(200, provider, model), ops(800, provider, model)
        assert large < 4.4 * small, (provider, small, large)  # linear: about 4×, not 16×


# --- scripts -----------------------------------------------------------------------------------

def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    return path


HEAD = 'provider = "anthropic"\nmodel = "claude-sonnet-4-5"\n'


@pytest.mark.parametrize("body, field, words", [
    ('turn_token = 5\n[[request]]\n', "turn_token", "did you mean 'turn_tokens'"),
    ('[[request]]\nrepaet = 2\n', "request[1].repaet", "did you mean 'repeat'"),
    ('[[request]]\n[[request]]\nmode = 3\n', "request[2].mode", ""),
    ('[[request]]\nrepeat = 0\n', "request[1].repeat", "integer from 1 to 10,000"),
    ('[[request]]\nnew_session = "yes"\n', "request[1].new_session", "true or false"),
    ('dynamic = "user"\n[[request]]\n', "dynamic", "system"),
    ('context = "missing.json"\n[[request]]\n', None, "file not found"),
    ('', "request", "at least one"),
    # numbers are bounded and finite, each error naming its field (issue 33: H10, H11)
    ('[[request]]\npause = nan\n', "request[1].pause", "finite number of minutes"),
    ('[[request]]\npause = inf\n', "request[1].pause", "finite number of minutes"),
    ('[[request]]\npause = -1\n', "request[1].pause", "finite number of minutes"),
    ('turn_tokens = ' + '9' * 400 + '\n[[request]]\n', "turn_tokens",
     "got an integer of 400 digits"),
    ('[[request]]\noutput_tokens = ' + '9' * 400 + '\n', "request[1].output_tokens",
     "integer from 0 to 10,000,000"),
    ('turn_seconds = nan\n[[request]]\n', "turn_seconds", "finite number of seconds"),
    ('[[request]]\nturn_seconds = 1e9\n', "request[1].turn_seconds", "seconds from 0"),
    ('ttl = "1d"\n[[request]]\n', "ttl", '"5m" or "1h"'),
    ('retention = "forever"\n[[request]]\n', "retention", '"in_memory" or "24h"'),
])
def test_a_bad_script_names_the_field(tmp_path: Path, body: str, field: str | None,
                                      words: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_script(write(tmp_path, HEAD + body))
    if field is not None:
        assert info.value.field == field and info.value.source == str(tmp_path / "s.toml")
    assert words in str(info.value)


def test_a_script_reads_contexts_relative_to_itself(tmp_path: Path) -> None:
    (tmp_path / "ctx").mkdir()
    (tmp_path / "ctx" / "a.json").write_text('{"cwd": "/a", "date": "2026-01-01"}')
    (tmp_path / "ctx" / "b.toml").write_text('cwd = "/b"\n')
    script = load_script(write(tmp_path, HEAD + 'context = "ctx/a.json"\n[[request]]\n'
                                                '[[request]]\nnew_session = true\n'
                                                'context = "ctx/b.toml"\nrepeat = 3\n'))
    assert script.context["cwd"] == "/a" and script.steps[1].context == {"cwd": "/b"}
    assert script.requests == 4 and script.breakpoints == 3 and script.client_markers == 1


def test_an_unmodelled_provider_is_refused(builtins: Any) -> None:
    script = SessionScript.from_dict({"provider": "ollama", "model": "qwen3", "request": [{}]})
    with pytest.raises(ConfigError, match="models the caching of"):
        replay(script, compiler=builtins)


def test_a_new_conversation_with_the_same_prompt_is_no_break(builtins: Any) -> None:
    script = SessionScript.from_dict({
        "provider": "anthropic", "model": "claude-sonnet-4-5", "turn_tokens": 100,
        "context": {"mode": "act", "date": "2026-01-01"},
        "request": [{"new_session": True}, {"new_session": True}]})
    report = replay(script, compiler=builtins, source=RoundNumbers(), dynamic="system")
    # the second conversation reads the prompt up to the last marker before the date (5,500)
    # and writes the date and its own first turn (170)
    assert bills(report) == [(0, 5670, 0), (5500, 170, 0)]
    assert breaks(report) == [None, None] and report.totals.sessions == 2
    assert [r.session for r in report.requests] == [1, 2]


def test_the_bill_splits_into_prompt_and_conversation(builtins: Any) -> None:
    """The cache read covers the input's first tokens and the write the ones after it, so each
    request's bill splits between the prompt's pieces (5,570 tokens here) and the turns."""
    report = replay(story("anthropic", "claude-sonnet-4-5", "claude-opus-4-5"),
                    compiler=builtins, source=RoundNumbers(), dynamic="system")
    first, _repeat, mode = report.requests[:3]
    assert (first.prompt.tokens, first.prompt.cache_write, first.conversation.cache_write) == \
        (5570, 5570, 100)
    # the mode switch: read up to the rules (5,500), the mode and date (70) and the three turns
    # (300) written again
    assert (mode.prompt.cache_read, mode.prompt.cache_write, mode.prompt.uncached) == \
        (5500, 70, 0)
    assert (mode.conversation.tokens, mode.conversation.cache_read,
            mode.conversation.cache_write) == (300, 0, 300)
    assert mode.prompt.cost == pytest.approx((5500 * 0.3 + 70 * 3.75) / 1e6)
    t = report.totals
    assert t.prompt_cost is not None and t.conversation_cost is not None and t.cost is not None
    assert t.prompt_cost + t.conversation_cost == pytest.approx(t.cost)  # no output tokens
    gpt = replay(story("openai", "gpt-5", "gpt-5.1"), compiler=builtins, source=RoundNumbers())
    second = gpt.requests[1]  # 5,632 of 5,670 read: the prompt whole, 62 of the first turn
    assert (second.prompt.cache_read, second.conversation.cache_read,
            second.conversation.uncached) == (5570, 62, 138)
