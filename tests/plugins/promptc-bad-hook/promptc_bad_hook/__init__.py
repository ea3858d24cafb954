"""Load-time hook failure: promptc_variants works, promptc_tools raises, so promptc must register
nothing from this plugin (not even the variant)."""

from promptc import hookimpl


@hookimpl
def promptc_variants():
    return [{"id": "half-registered", "extends": "generic", "priority": 500,
             "match": {"model": ["half-registered"]}}]


@hookimpl
def promptc_tools():
    raise ValueError("promptc_bad_hook.promptc_tools fails on purpose")
