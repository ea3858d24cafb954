"""The reply reader is linear in the reply's length, complete or streamed, for every shape that
makes naive parsers quadratic (tests/fixtures/replies/shapes.toml).

Counted, not timed (these machines are shared and noisy): the Python calls a parse makes, per
byte, at one size and at ten times it. A reader that re-scans the text from earlier positions
makes more calls per byte as the reply grows. The default run compares 5 KB with 50 KB; the
deep run (`--hypothesis-profile=deep`, .ci/run) compares 0.1 MB with 1 MB and 10 MB (several
minutes: a 10 MB reply is parsed under the profiler for every shape, complete and streamed).
Time per MB, from 0.1 to 10 MB, is benchmarks/parser_scaling.py's table: work done inside C (a
slice, a search) is not a Python call, so only the timings show a scan that C repeats.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from promptc import Compiler, ProviderInfo
from promptc.testing import make_context


pytestmark = pytest.mark.property  # .ci/run's deep pass runs it again at the larger sizes
SHAPES = tomllib.loads((Path(__file__).parent / "fixtures" / "replies" / "shapes.toml")
                       .read_text(encoding="utf-8"))["shape"]


@pytest.fixture(scope="module")
def tools(builtins: Compiler) -> Any:
    return builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False),
                            make_context("full")).tools


@pytest.fixture(scope="module")
def sizes(request: pytest.FixtureRequest) -> tuple[int, ...]:
    deep = request.config.getoption("hypothesis_profile", None) == "deep"
    return (100_000, 1_000_000, 10_000_000) if deep else (5_000, 50_000)


def reply(shape: dict[str, Any], size: int) -> str:
    unit = shape["unit"]
    return shape.get("head", "") + unit * (size // len(unit) + 1) + shape.get("tail", "")


def calls_per_byte(tools: Any, text: str, partial: bool) -> float:
    count = 0

    def profile(_frame: Any, event: str, _arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        tools.parse(text, partial=partial)
    finally:
        sys.setprofile(None)
    return count / len(text)


@pytest.mark.parametrize("partial", [False, True], ids=["complete", "streamed"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_reader_does_the_same_work_per_byte_at_every_size(
        tools: Any, sizes: tuple[int, ...], name: str, partial: bool) -> None:
    counts = [calls_per_byte(tools, reply(SHAPES[name], size), partial) for size in sizes]
    assert max(counts) <= counts[0] * 1.25 + 0.001, (name, counts)
