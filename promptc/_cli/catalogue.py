"""A template library from the command line: each variant's inputs as data, a preview with the
inputs' example values, and token counts for every variant × a set of models in one call."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from .._base.frozen import thaw
from .._model.context import PromptContext
from .._model.inputs import example_values
from .._model.provider import ProviderInfo, encoding_for
from .args import UsageError, print_diagnostics, print_json
from .format import table

if TYPE_CHECKING:
    from .._compile.compiler import Compiler
    from .._model.inputs import InputSpec
    from .._model.variant import Variant

__all__ = ["input_rows", "with_examples", "cmd_token_catalogue", "model_list"]


def input_rows(specs: Sequence[InputSpec]) -> list[dict[str, Any]]:
    """A variant's inputs as `variants --json` lists them (`options`: a select's choices, which
    a catalogue shows; the rest of a declaration is `promptc inputs --json`'s schema)."""
    return [{"name": s.name, "type": s.type, "required": s.required,
             "default": thaw(s.default), "example": thaw(s.example), "label": s.label,
             "description": s.description, "options": list(s.options)} for s in specs]


def with_examples(variant: Variant, ctx: PromptContext) -> PromptContext:
    """`ctx` with each input's example under the runtime values already given (a given value
    wins); an input that has neither an example nor a default, nor a value, is an error
    naming it."""
    examples, lacking = example_values(variant.inputs)
    lacking = [name for name in lacking if name not in ctx.runtime]
    if lacking:
        raise UsageError(f"variant {variant.id!r}: input {lacking[0]!r} has neither an "
                         "`example` nor a `default` to preview with; add one to its "
                         f"[inputs.{lacking[0]}] table, or give a value (--set)")
    return attrs.evolve(ctx, runtime={**examples, **thaw(ctx.runtime)})


def model_list(items: Sequence[str]) -> list[ProviderInfo]:
    """`--models anthropic/claude-sonnet-4-5 ollama/qwen3:8b` (a comma list works too)."""
    out = []
    for item in (part for text in items for part in text.split(",") if part.strip()):
        provider, slash, model = item.strip().partition("/")
        if not slash or not provider or not model:
            raise UsageError(f"--models expects PROVIDER/MODEL, got {item!r}")
        out.append(ProviderInfo(provider, model))
    if not out:
        raise UsageError("--models names no model")
    return out


@attrs.frozen
class _Count:
    """One variant for one model: the prompt as one string, and split into the system part
    and the first user message (`dynamic="message"`), with the native tools beside them."""

    variant: str
    model: str
    string: int
    system: int
    message: int
    tools: int
    encoding: str
    estimated: bool

    def row(self) -> list[Any]:
        return [self.variant, self.model, self.string, self.system, self.message, self.tools,
                self.encoding + ("*" if self.estimated else "")]

    def to_dict(self) -> dict[str, Any]:
        return {"variant": self.variant, "model": self.model,
                "string": self.string, "split": {"system": self.system,
                                                  "message": self.message},
                "tools": self.tools, "encoding": self.encoding, "estimated": self.estimated}


def _count(compiler: Compiler, variant: Variant, info: ProviderInfo, ctx: PromptContext,
           strict: bool) -> tuple[_Count, tuple[Any, ...]]:
    whole = compiler.compile(info, ctx, variant=variant.id, count_tokens=True, strict=strict)
    split = compiler.compile(info, ctx, variant=variant.id, dynamic="message", strict=strict)
    encoding, estimated = encoding_for(whole.provider)
    tokens = whole.tokens
    assert tokens is not None  # compiled with count_tokens
    count = compiler.tokens.count
    made = _Count(variant.id, f"{info.provider}/{info.model}", tokens.total,
                  count(split.text, encoding), count(split.message, encoding) if split.message
                  else 0, tokens.tools, encoding, estimated)
    return made, whole.diagnostics


def cmd_token_catalogue(args: argparse.Namespace, compiler: Compiler,
                        ctx: PromptContext) -> int:
    """`tokens --all-variants --models …`: every variant (its examples as input values) for
    every model, as a table or JSON."""
    models = model_list(args.models)
    variants: Mapping[str, Variant] = compiler.registry.variants
    counts: list[_Count] = []
    diagnostics: list[Any] = []
    for vid in sorted(variants):
        given = with_examples(variants[vid], ctx)
        for info in models:
            made, diags = _count(compiler, variants[vid], info, given, args.strict)
            counts.append(made)
            diagnostics.extend(diags)
    if args.json:
        print_json([c.to_dict() for c in counts])
        return 0
    sys.stdout.write(table(["variant", "model", "one string", "system", "message", "tools",
                            "encoding"], [c.row() for c in counts], "llrrrrl") + "\n")
    sys.stdout.write(f"{len(variants)} variant(s) × {len(models)} model(s); each variant with "
                     "its inputs' example values; `system` + `message`: the prompt split for "
                     "caching (render --dynamic message); tools: native tool JSON beside it; "
                     "* an estimate: the model's family has a tokenizer of its own\n")
    print_diagnostics(sorted(set(diagnostics), key=lambda d: (d.source, d.message)))
    return 0
