"""The reply reader's cost per MB, from 0.1 to 10 MB, for the shapes that make naive parsers
quadratic (tests/fixtures/replies/shapes.toml): complete replies and streamed ones
(`partial=True`). A linear reader prints a flat row; the last column is the 10 MB cost per MB
over the 0.1 MB one (1.0 = flat). Medians of a few runs, in one process.

    python benchmarks/parser_scaling.py [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from promptc import Compiler, PromptContext, ProviderInfo

ROOT = Path(__file__).resolve().parent.parent
SHAPES = tomllib.loads((ROOT / "tests" / "fixtures" / "replies" / "shapes.toml")
                       .read_text(encoding="utf-8"))["shape"]
SIZES = (100_000, 1_000_000, 10_000_000)


def reply(shape: dict[str, Any], size: int) -> str:
    unit = shape["unit"]
    return shape.get("head", "") + unit * (size // len(unit) + 1) + shape.get("tail", "")


def ms_per_mb(tools: Any, text: str, partial: bool, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        tools.parse(text, partial=partial)
        times.append(time.perf_counter() - start)
    return statistics.median(times) / (len(text) / 1e6) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="0.1 and 1 MB only, one run")
    args = parser.parse_args()
    sizes = SIZES[:2] if args.quick else SIZES
    tools = Compiler.builtins().compile(
        ProviderInfo("openai", "gpt-4.1", native_tools=False),
        PromptContext.load(ROOT / "promptc" / "_data" / "snapshot" / "contexts" / "full.json"),
    ).tools
    head = ["shape", "mode", *(f"{s / 1e6:g} MB" for s in sizes), "last/first"]
    print(" | ".join(head))
    print(" | ".join("---" for _ in head))
    for name, shape in SHAPES.items():
        for partial in (False, True):
            row = [ms_per_mb(tools, reply(shape, size), partial,
                             1 if args.quick or size >= 10**7 else 3) for size in sizes]
            cells = [name, "streamed" if partial else "complete",
                     *(f"{v:,.0f} ms/MB" for v in row), f"{row[-1] / row[0]:.2f}"]
            print(" | ".join(cells), flush=True)
    print(f"\npython {sys.version.split()[0]}; each cell: the median time of a parse divided "
          "by the reply's size", flush=True)


if __name__ == "__main__":
    main()
