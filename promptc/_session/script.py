"""Session scripts: a TOML file that says which requests a session sends and what changes.

    provider = "anthropic"
    model = "claude-sonnet-4-5"
    context = "start.json"       # relative to the script (or an inline table)
    turn_tokens = 900            # conversation tokens each request adds after the prompt
    turn_seconds = 30            # time between requests (default 30; `pause` overrides)

    [[request]]                  # as the context says
    [[request]]
    repeat = 5                   # five more requests, nothing changed
    [[request]]
    mode = "plan"                # any context field, from here on
    [[request]]
    new_session = true           # a new conversation; `context = "other.json"` replaces it
    [[request]]
    model = "claude-opus-4-5"    # a model switch
    pause = 10                   # minutes since the request before (caches may expire)

Every error names the script and the field at fault (`request[3].mode`); each request's
context is checked when the script is loaded, so a bad field fails before anything is replayed.
Numbers are bounded (a 400-digit token count or a pause of `nan` or `inf` is an error naming
its field), so nothing a script says can make a replay fail later or lose its clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from .._base.errors import ConfigError, PromptcError
from .._base.files import parse_toml, read_data_file, read_text_file
from .._base.suggest import did_you_mean
from .._model.context import MAX_CONTEXT_FILE_BYTES, PromptContext

__all__ = ["SessionScript", "Step", "load_script", "SCRIPT_KEYS", "STEP_KEYS"]

SCRIPT_KEYS = ("provider", "model", "context", "turn_tokens", "output_tokens", "dynamic",
               "breakpoints", "client_markers", "title", "request", "ttl", "turn_seconds",
               "retention")
STEP_KEYS = ("repeat", "new_session", "provider", "model", "context", "turn_tokens",
             "output_tokens", "pause", "label", "turn_seconds")
_CONTEXT_FIELDS = tuple(f.name for f in attrs.fields(PromptContext) if f.name != "provider")
MAX_REQUESTS = 10_000
MAX_TOKENS = 10_000_000       # a turn's tokens: far past any context window
MAX_MINUTES = 366 * 24 * 60   # a pause: a year
MAX_SECONDS = 24 * 60 * 60    # the default time between requests: a day
TURN_SECONDS = 30.0           # between requests, unless the script says otherwise
TTLS = ("5m", "1h")
RETENTIONS = ("in_memory", "24h")


@attrs.frozen
class Step:
    """One `[[request]]` entry: what changes before it, and how many requests it sends."""

    index: int                   # its position among the script's [[request]] entries (1-based)
    repeat: int = 1
    new_session: bool = False
    changes: Mapping[str, Any] = attrs.field(factory=dict)  # context fields, from here on
    context: Mapping[str, Any] | None = None  # a whole new context (`context = …`)
    provider: str | None = None
    model: str | None = None
    turn_tokens: int | None = None
    output_tokens: int | None = None
    pause: float | None = None   # minutes since the request before it (None: turn_seconds)
    label: str = ""
    turn_seconds: float | None = None  # time between its requests, from here on


@attrs.frozen
class SessionScript:
    """A loaded, checked session script."""

    source: str
    provider: str
    model: str
    context: Mapping[str, Any]
    turn_tokens: int = 0
    output_tokens: int = 0
    dynamic: str | None = None  # None: the compiler's default placement
    breakpoints: int = 3   # promptc's markers (Anthropic); default: what the client leaves
    client_markers: int = 1
    title: str = ""
    steps: tuple[Step, ...] = ()
    ttl: str = "5m"        # the lifetime promptc's markers ask for (Anthropic)
    turn_seconds: float = TURN_SECONDS
    retention: str | None = None  # OpenAI's prompt_cache_retention (None: the default)

    @property
    def requests(self) -> int:
        return sum(step.repeat for step in self.steps)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "<script>",
                  base: Path | None = None) -> SessionScript:
        """A script from its plain data; `base` is the folder relative paths start from."""
        return _script(data, source, base or Path.cwd())


def load_script(path: str | Path) -> SessionScript:
    """Read and check a session script (TOML)."""
    p = Path(path)
    data = parse_toml(read_text_file(p, ConfigError), p, ConfigError)
    return SessionScript.from_dict(data, source=str(p), base=p.parent)


# --- checking ------------------------------------------------------------------------------------

def _fail(message: str, source: str, field: str) -> ConfigError:
    return ConfigError(message, source=source, field=field)


def _unknown(data: Mapping[str, Any], allowed: tuple[str, ...], source: str, where: str) -> None:
    for key in data:
        if key not in allowed:
            prefix = f"{where}." if where else ""
            raise _fail("unknown key" + did_you_mean(str(key), allowed), source,
                        f"{prefix}{key}")


def _int(data: Mapping[str, Any], key: str, source: str, where: str, default: int | None,
         low: int = 0, high: int = MAX_TOKENS) -> int | None:
    value = data.get(key, default)
    if value is None:
        return None
    if type(value) is not int or not low <= value <= high:
        raise _fail(f"must be an integer from {low:,} to {high:,}, got {_shown(value)}", source,
                    where + key)
    return int(value)


def _shown(value: Any) -> str:
    """A value for an error message: short, whatever its size (a huge integer by its size)."""
    if type(value) is int and value.bit_length() > 100:  # str() refuses past 4,300 digits
        digits = len(str(abs(value))) if value.bit_length() < 14_000 else \
            int(value.bit_length() * 0.30103)
        return f"an integer of {digits:,} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _number(data: Mapping[str, Any], key: str, source: str, where: str, what: str,
            high: float) -> float | None:
    """A finite number from 0 to `high`, or None when the key is absent."""
    value = data.get(key)
    if value is None:
        return None
    # NaN fails both comparisons and infinity the upper bound; an integer compares exactly
    if value.__class__ not in (int, float) or not 0 <= value <= high:
        raise _fail(f"must be a finite number of {what} from 0 to {high:,g}, got "
                    f"{_shown(value)}", source, where + key)
    return float(value)


def _seconds(data: Mapping[str, Any], source: str) -> float:
    """The script's time between requests (`turn_seconds`), 30 when it does not say."""
    given = _number(data, "turn_seconds", source, "", "seconds", MAX_SECONDS)
    return TURN_SECONDS if given is None else given


def _choice(data: Mapping[str, Any], key: str, choices: tuple[str, ...], source: str
            ) -> str | None:
    value = data.get(key)
    if value is not None and value not in choices:
        raise _fail("must be " + " or ".join(f'"{c}"' for c in choices) + f", got {value!r}",
                    source, key)
    return value


def _text(data: Mapping[str, Any], key: str, source: str, where: str) -> str | None:
    value = data.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise _fail(f"must be a non-empty string, got {value!r}", source, where + key)
    return value


def _context(value: Any, source: str, field: str, base: Path) -> dict[str, Any]:
    """A context from a file name (relative to the script) or an inline table."""
    if isinstance(value, Mapping):
        return dict(value)
    if not isinstance(value, str) or not value.strip():
        raise _fail("must be a context file name or an inline table", source, field)
    path = base / value
    data = read_data_file(path, ConfigError, MAX_CONTEXT_FILE_BYTES)
    if not isinstance(data, dict):
        raise _fail("must hold a table/object", str(path), "")
    return data


def _checked_context(data: Mapping[str, Any], source: str, field: str) -> None:
    try:
        PromptContext.from_dict(data, source=source)
    except PromptcError as exc:
        inner = f"{field}.{exc.field}" if exc.field else field
        raise _fail(exc.message, source, inner) from None


def _step(raw: Any, index: int, source: str, base: Path) -> Step:
    where = f"request[{index}]."
    if not isinstance(raw, Mapping):
        raise _fail("must be a table", source, where[:-1])
    _unknown(raw, STEP_KEYS + _CONTEXT_FIELDS, source, where[:-1])
    new_session = raw.get("new_session", False)
    if type(new_session) is not bool:
        raise _fail(f"must be true or false, got {new_session!r}", source, where + "new_session")
    pause = _number(raw, "pause", source, where, "minutes", MAX_MINUTES)
    context = _context(raw["context"], source, where + "context", base) \
        if "context" in raw else None
    return Step(index=index,
                repeat=_int(raw, "repeat", source, where, 1, 1, MAX_REQUESTS) or 1,
                new_session=new_session,
                changes={k: v for k, v in raw.items() if k in _CONTEXT_FIELDS},
                context=context, provider=_text(raw, "provider", source, where),
                model=_text(raw, "model", source, where),
                turn_tokens=_int(raw, "turn_tokens", source, where, None),
                output_tokens=_int(raw, "output_tokens", source, where, None),
                pause=pause, label=_text(raw, "label", source, where) or "",
                turn_seconds=_number(raw, "turn_seconds", source, where, "seconds",
                                     MAX_SECONDS))


def _check_steps(script: SessionScript) -> None:
    """Every request's context is valid, and the whole script is not absurdly long."""
    if script.requests > MAX_REQUESTS:
        raise _fail(f"{script.requests} requests: at most {MAX_REQUESTS}", script.source,
                    "request")
    context = dict(script.context)
    for step in script.steps:
        if step.context is not None:
            context = dict(step.context)
        context.update(step.changes)
        _checked_context(context, script.source, f"request[{step.index}]")


def _placement(data: Mapping[str, Any], source: str) -> str | None:
    return _choice(data, "dynamic", ("system", "message"), source)


def _raw_steps(data: Mapping[str, Any], source: str) -> list[Any]:
    raw = data.get("request", [])
    if not isinstance(raw, list) or not raw:
        raise _fail("a script needs at least one [[request]]", source, "request")
    return raw


def _target(data: Mapping[str, Any], source: str) -> tuple[str, str]:
    provider, model = _text(data, "provider", source, ""), _text(data, "model", source, "")
    if provider is None or model is None:
        raise _fail("a script needs `provider` and `model`", source,
                    "provider" if provider is None else "model")
    return provider, model


def _script(data: Mapping[str, Any], source: str, base: Path) -> SessionScript:
    _unknown(data, SCRIPT_KEYS, source, "")
    provider, model = _target(data, source)
    dynamic, raw_steps = _placement(data, source), _raw_steps(data, source)
    context = _context(data["context"], source, "context", base) if "context" in data else {}
    _checked_context(context, source, "context")
    client = _int(data, "client_markers", source, "", 1, 0, 4) or 0
    script = SessionScript(
        source=source, provider=provider, model=model, context=context,
        turn_tokens=_int(data, "turn_tokens", source, "", 0) or 0,
        output_tokens=_int(data, "output_tokens", source, "", 0) or 0,
        dynamic=dynamic, breakpoints=_int(data, "breakpoints", source, "", 4 - client, 0, 4) or 0,
        client_markers=client, title=_text(data, "title", source, "") or "",
        ttl=_choice(data, "ttl", TTLS, source) or "5m",
        turn_seconds=_seconds(data, source),
        retention=_choice(data, "retention", RETENTIONS, source),
        steps=tuple(_step(raw, i, source, base) for i, raw in enumerate(raw_steps, 1)))
    _check_steps(script)
    return script
