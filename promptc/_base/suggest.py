"""Did-you-mean suggestions for unknown names."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["did_you_mean", "unknown_key"]


def did_you_mean(name: str, candidates: Iterable[str], cutoff: float = 0.6) -> str:
    """Return ` (did you mean 'x'?)` for the closest candidate, or '' when none is close
    (`cutoff`: how similar, from 0 to 1, a candidate must be)."""
    import difflib  # only when a name is wrong: not worth its import on every start
    candidates = list(candidates)
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=cutoff)
    if not close:
        lowered = {c.lower(): c for c in candidates}
        if name.lower() in lowered:
            close = [lowered[name.lower()]]
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown_key(key: str, allowed: Iterable[str], what: str = "key") -> str:
    """The message for a key a table does not take: `unknown key (did you mean 'x'?); the keys
    are: a, b, c` (every allowed key, in the order given, so a reader needs no manual)."""
    allowed = list(dict.fromkeys(allowed))
    return f"unknown {what}{did_you_mean(str(key), allowed)}; the keys are: {', '.join(allowed)}"
