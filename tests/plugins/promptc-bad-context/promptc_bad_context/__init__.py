"""Per-request hook failure: the request must still get a prompt (lenient) or fail (strict)."""

from promptc import hookimpl


@hookimpl
def promptc_contribute_context(context, provider):
    raise KeyError("promptc_bad_context fails on purpose")
