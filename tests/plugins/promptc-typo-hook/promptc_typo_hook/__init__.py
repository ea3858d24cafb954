"""A misspelled hook name (promptc_variant, not promptc_variants): without check_pending() it would
be silently ignored; promptc must reject the plugin instead, with the valid hook below too."""

from promptc import hookimpl


@hookimpl
def promptc_variant():
    return []


@hookimpl
def promptc_variants():
    return [{"id": "typo-registered", "extends": "generic", "priority": 500,
             "match": {"model": ["typo-registered"]}}]
