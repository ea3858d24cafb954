"""Replay a scripted session under each provider's prompt-caching rules.

    from promptc.session import replay
    report = replay("session.toml")           # or a SessionScript; compiler=, dynamic=, breakpoints=
    report.totals.cached_share, report.totals.cost
    [r.brk for r in report.requests if r.brk]  # where the cached prefix broke, and why
    report.to_dict()                           # what `promptc session --format json` prints

The script format, the providers' rules and their sources: docs/caching.md, "Replaying a session", and
`promptc help session`.
"""

from ._session.replay import PromptcSource, PromptSource, replay
from ._session.result import Break, Gate, RequestResult, SessionReport, Totals
from ._session.billing import AnthropicRules, CacheRules, GeminiRules, OpenAIRules
from ._session.script import SessionScript, Step, load_script
from ._session.wire import Piece, PromptWire

__all__ = ["replay", "load_script", "SessionScript", "Step", "SessionReport", "RequestResult",
           "Break", "Totals", "Gate", "PromptSource", "PromptcSource", "PromptWire", "Piece",
           "CacheRules", "AnthropicRules", "OpenAIRules", "GeminiRules"]
