"""Model and provider ids as promptc compares them.

Model ids arrive spelled many ways (gateways, clouds, fine-tunes, local servers);
`normalize_model_id` folds them to one form, so matchers, family patterns and the model tables
all see the same id. Provider ids are only trimmed and lowercased (`normalize_provider`); the
overlay's spellings fold them further (`Overlay.provider_key`).
"""

from __future__ import annotations

import re

__all__ = ["normalize_model_id", "normalize_provider", "model_tokens", "tokens_start_with",
           "undated", "digits"]

# Bedrock cross-region inference prefixes (`us.`, `global.`, …) and the vendor prefix after them.
_REGION_PREFIXES = frozenset(("us", "eu", "apac", "global", "us-gov", "ap", "ca", "jp", "au",
                              "in", "sa", "me", "af", "mx"))
_VENDOR_PREFIXES = frozenset((
    "anthropic", "openai", "google", "meta", "amazon", "mistral", "mistralai", "cohere", "ai21",
    "deepseek", "qwen", "moonshotai", "moonshot", "xai", "x-ai", "zai", "z-ai", "zhipuai",
    "writer", "minimax", "nvidia", "twelvelabs", "stability", "luma"))
# Vendors whose model names start with the vendor's own name (Bedrock drops it: `deepseek.v3`).
_SELF_NAMED = frozenset(("deepseek", "qwen", "mistral", "minimax"))
# Gateway variant tags after a colon (`:free`), and ollama's `:latest`.
_GATEWAY_SUFFIXES = frozenset(("free", "beta", "thinking", "extended", "nitro", "floor",
                               "online", "exacto", "latest"))
# A gateway path's last segment that qualifies the model instead of naming it.
_PATH_QUALIFIERS = frozenset(("community",))
_BEDROCK_REVISION = re.compile(r"-v?\d+:0$")          # `-v1:0`, `-v2:0`, gpt-oss's `-1:0`
_AZURE_FINE_TUNE = re.compile(r"\.ft-[0-9a-z]+$")      # `gpt-4o-2024-08-06.ft-1a2b…`
_VERSION_P = re.compile(r"(?<=\d)p(?=\d)")             # Fireworks spells 2.5 as `2p5`
_SEPARATORS = re.compile(r"[\s._:/@]+|-+")


def normalize_provider(provider: str) -> str:
    """A provider id as promptc compares it: trimmed and lowercase (`" OpenAI"` → `openai`)."""
    return provider.strip().lower()


def normalize_model_id(model: str) -> str:
    """Fold a provider's spelling of a model id to lowercase, dash-separated tokens.

    `anthropic/claude-sonnet-4.5`, `us.anthropic.claude-sonnet-4-5-20250929-v1:0` and
    `claude-sonnet-4-5@20250929` all start with the tokens `claude-sonnet-4-5`. Wrappers go
    (gateway paths, `ft:` fine-tunes, Bedrock region/vendor prefixes and `-v1:0`, `:free`);
    the model's own version stays (`deepseek-v3`, `mimo-v2`, `claude-v2:1`), and so do dates.
    """
    name = _without_gateway_suffix(_fine_tune_base(_last_path_segment(model.strip().lower())))
    name = _without_bedrock_revision(_VERSION_P.sub(".", _without_region_and_vendor(name)))
    tokens = [t for t in _SEPARATORS.split(name) if t]
    return "-".join(_without_bare_revision(tokens))


def _last_path_segment(name: str) -> str:
    """A gateway path's model part: openrouter `vendor/model`, `accounts/…/models/…`, ARNs."""
    if "/" not in name:
        return name
    segments = [s for s in name.split("/") if s]
    while len(segments) > 1 and segments[-1] in _PATH_QUALIFIERS:
        segments.pop()
    return segments[-1] if segments else ""


def _fine_tune_base(name: str) -> str:
    """The base model of a fine-tune: OpenAI's `ft:<base>:<org>:<name>:<id>`, Azure's
    `<base>.ft-<id>`."""
    if name.startswith("ft:"):
        name = name[3:].split(":", 1)[0]
    return _AZURE_FINE_TUNE.sub("", name)


def _without_gateway_suffix(name: str) -> str:
    head, colon, tail = name.rpartition(":")
    return head if colon and tail in _GATEWAY_SUFFIXES else name


def _without_region_and_vendor(name: str) -> str:
    """Bedrock's `us.anthropic.` style prefixes gone; a self-named vendor's name kept on the
    model (`deepseek.v3` → `deepseek-v3`)."""
    parts = name.split(".")
    if _has_region_prefix(parts):
        parts = parts[1:]
    if len(parts) > 1 and parts[0] in _VENDOR_PREFIXES:
        parts = _without_vendor(parts)
    return ".".join(parts)


def _has_region_prefix(parts: list[str]) -> bool:
    return len(parts) > 1 and parts[0] in _REGION_PREFIXES and (
        len(parts) > 2 or parts[1].split("-", 1)[0] in _VENDOR_PREFIXES)


def _without_vendor(parts: list[str]) -> list[str]:
    vendor, rest = parts[0], parts[1:]
    if vendor in _SELF_NAMED and not rest[0].startswith(vendor):
        rest[0] = f"{vendor}-{rest[0]}"
    return rest


def _without_bedrock_revision(name: str) -> str:
    """`-v1:0` gone, but never the whole name (`claude-v2:1` stays)."""
    stripped = _BEDROCK_REVISION.sub("", name)
    return stripped if stripped and _SEPARATORS.search(stripped) else name


def _without_bare_revision(tokens: list[str]) -> list[str]:
    """Bedrock's bare `-v1` revision (`claude-opus-4-6-v1`) gone, only after a versioned token,
    so `deepseek-v3` and `titan-text-express-v1` keep theirs."""
    while len(tokens) > 2 and tokens[-1] == "v1" and any(c.isdigit() for c in tokens[-2]):
        tokens.pop()
    return tokens


def model_tokens(model: str) -> tuple[str, ...]:
    normalized = normalize_model_id(model)
    return tuple(normalized.split("-")) if normalized else ()


def tokens_start_with(tokens: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    """True when `pattern` is a token prefix of `tokens`.

    A `*` pattern token matches one or more tokens (`gemini-*-pro` matches `gemini-2-5-pro`).
    Patterns are a handful of tokens, so the set-of-positions walk below stays tiny.
    """
    if "*" not in pattern:
        return len(pattern) <= len(tokens) and tokens[:len(pattern)] == pattern
    positions = {0}
    for want in pattern:
        positions = _next_positions(positions, want, tokens)
        if not positions:
            return False
    return True


def _next_positions(positions: set[int], want: str, tokens: tuple[str, ...]) -> set[int]:
    """Where the walk may stand after matching `want` from each of `positions`."""
    out: set[int] = set()
    for i in positions:
        if want == "*":
            out.update(range(i + 1, len(tokens) + 1))
        elif i < len(tokens) and tokens[i] == want:
            out.add(i + 1)
    return out


def digits(text: str, most: int = 8) -> bool:
    """ASCII digits only, 1 to `most` of them (str methods: no regex to compile at start-up)."""
    return 0 < len(text) <= most and text.isascii() and text.isdigit()


def undated(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """`tokens` without a trailing release date (`-20250929`, `-2024-08-06`, `-0613`, `-04-17`).

    A lone two-digit token is a version, not a date (`grok-4-20`), so it stays.
    """
    end = len(tokens)
    long_seen = short_seen = 0
    while end > 1 and digits(tokens[end - 1]) and len(tokens[end - 1]) in (2, 4, 6, 8):
        if len(tokens[end - 1]) == 2:
            short_seen += 1
        else:
            long_seen += 1
        end -= 1
    if long_seen or short_seen >= 2:
        return tokens[:end]
    return tokens
