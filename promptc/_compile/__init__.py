"""Compiling: the per-request pipeline (route, bind, sections, assemble, wrap) and its result."""
