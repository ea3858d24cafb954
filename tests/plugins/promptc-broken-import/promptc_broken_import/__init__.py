"""Fails on import, as a plugin with a missing dependency or a syntax slip would."""

raise RuntimeError("promptc_broken_import fails on import on purpose")
