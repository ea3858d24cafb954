"""The provider and model a request goes to, and what promptc knows about that model.

One concern per module:

- `ids`: model and provider ids folded to the form everything compares (`normalize_model_id`).
- `patterns`: the family-pattern language (`claude-*-{4..}`): tokenizer, parser, matcher.
- `capabilities`, `rows`: the capabilities and the family/model rows of the model data.
- `overlay`: the hand-kept overlay.
- `tables`: the generated table's format, read and written; `litellm_map` makes one from
  LiteLLM's model map, and `litellm_prices` the price table from the same map (tooling only).
- `paths`, `data`: where the model data lives, and the data a process uses (read once).
- `facts`: each capability's value with its source, in layers; `info`: `ProviderInfo`.
- `families`: a folder's own families (models.toml); `vendors`: which vendor serves a line.

What the rest of promptc uses is importable from here.
"""

from .capabilities import CAPABILITIES, TOKEN_ENCODINGS
from .data import ModelData, local_providers, model_data, model_table
from .facts import Fact, ModelFacts, capability_sources, model_facts
from .families import FAMILY_FILE, family_findings, merged_families, read_families
from .ids import (model_tokens, normalize_model_id, normalize_provider, tokens_start_with,
                  undated)
from .info import ProviderInfo, encoding_for, resolve_provider
from .overlay import Overlay, shipped_overlay
from .paths import shipped_table_path, user_data_dir, user_table_path
from .rows import FamilyRow
from .tables import MAX_TABLE_FILE, TABLE_FIELDS, TABLE_FORMAT, ModelTable, parse_table

__all__ = ["ProviderInfo", "resolve_provider", "encoding_for", "normalize_model_id",
           "normalize_provider", "model_tokens", "tokens_start_with", "undated",
           "CAPABILITIES", "TOKEN_ENCODINGS", "FamilyRow", "Overlay", "shipped_overlay",
           "ModelTable", "parse_table", "TABLE_FIELDS", "TABLE_FORMAT", "MAX_TABLE_FILE",
           "ModelData", "model_data", "model_table", "local_providers", "shipped_table_path",
           "user_data_dir", "user_table_path", "Fact", "ModelFacts", "model_facts",
           "capability_sources", "FAMILY_FILE", "read_families", "merged_families",
           "family_findings"]
