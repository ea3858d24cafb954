"""One JSON Schema, normalized for each provider's function calling.

The same schema (a built-in tool's, or an MCP server's as it arrived) is shaped once per tool
set, each form by its own module:

* clean.py: a schema from outside loses its malformed keyword values (`"minimum": "zero"`),
  each reported, so one sloppy server cannot make a provider refuse every tool;
* root.py, `object_root`: every provider wants an object at the root, without a union there;
* strict.py, `openai_strict`: OpenAI's strict mode, or None when it cannot say the schema (the
  caller then sends the schema as it is with `strict: false`);
* gemini.py, `gemini_schema`: the OpenAPI subset of Gemini's `parameters`, references copied in
  within a budget linear in the schema's size;
* `drop_unasked_nulls` (promptc/_calls/nulls.py): the other half of strict mode, the nulls a
  model sent for optional arguments removed before the tool runs.

The converters are keyword visitors (visitor.py): one visit method per keyword group. The
`*_form` functions also return the `SchemaProblem`s met, which the tool set reports as
diagnostics naming the tool. Recursion is bounded (`MAX_DEPTH`), so no input reaches Python's
recursion limit: strict mode gives up on a deeper schema and Gemini gets it cut at that depth.
"""

from __future__ import annotations

from ..._calls.nulls import drop_unasked_nulls
from ..._model.json_schema import allows_null
from .clean import clean
from .gemini import EXPANSION_FLOOR, EXPANSION_GROWTH, TOO_LARGE, gemini_form, gemini_schema
from .root import checked_root, object_root
from .strict import (MAX_DEPTH, REQUIRED_UNKNOWN, STRICT_MAX_OBJECT_DEPTH, openai_strict,
                     strict_form)
from .visitor import Converted, SchemaProblem

__all__ = ["object_root", "checked_root", "openai_strict", "strict_form", "gemini_schema",
           "gemini_form", "clean", "drop_unasked_nulls", "allows_null", "Converted",
           "SchemaProblem", "MAX_DEPTH", "STRICT_MAX_OBJECT_DEPTH", "EXPANSION_GROWTH",
           "EXPANSION_FLOOR", "TOO_LARGE", "REQUIRED_UNKNOWN", "KEYWORD_DROPPED"]

KEYWORD_DROPPED = "schema-keyword-dropped"
