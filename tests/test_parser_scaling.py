"""The reply reader is linear in the reply's length, complete or streamed, for every shape that
makes naive parsers quadratic (tests/fixtures/replies/shapes.toml).

Counted, not timed (these machines are shared and noisy): the Python calls a parse makes, per
byte, at one size and at ten times it. A reader that re-scans the text from earlier positions
makes more calls per byte as the reply grows. The default run compares 5 KB with 50 KB; the
deep run (`--hypothesis-profile=deep` or `--full-scale`, .ci/run) compares 0.1 MB with 1 MB and
10 MB (several minutes: a 10 MB reply is parsed under the profiler for every shape, complete and
streamed).
Work done inside C (a slice, a search) is not a Python call, so a second count covers it: the
characters the reader's string operations touch on the reply (`Counted`, a `str` whose `find`,
`startswith`, slicing… add up how far they reach), per byte, at both sizes. That is how a reader
that searched the rest of the reply again for every call (issue 33, H7: 16,000 CDATA values that
never close, 1.25 MB, 20.5 s) fails here. Time per MB, from 0.1 to 10 MB, is
benchmarks/parser_scaling.py's table.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from promptc import Compiler, ProviderInfo
from promptc.testing import make_context

from .conftest import python_calls


pytestmark = pytest.mark.property  # .ci/run's deep pass runs it again at the larger sizes
SHAPES = tomllib.loads((Path(__file__).parent / "fixtures" / "replies" / "shapes.toml")
                       .read_text(encoding="utf-8"))["shape"]


@pytest.fixture(scope="module")
def tools(builtins: Compiler) -> Any:
    return builtins.compile(ProviderInfo("openai", "gpt-4.1", native_tools=False),
                            make_context("full")).tools


@pytest.fixture(scope="module")
def sizes(request: pytest.FixtureRequest) -> tuple[int, ...]:
    deep = request.config.getoption("hypothesis_profile", None) == "deep" or \
        request.config.getoption("full_scale")
    return (100_000, 1_000_000, 10_000_000) if deep else (5_000, 50_000)


def reply(shape: dict[str, Any], size: int) -> str:
    unit = shape["unit"]
    return shape.get("head", "") + unit * (size // len(unit) + 1) + shape.get("tail", "")


def calls_per_byte(tools: Any, text: str, partial: bool) -> float:
    return python_calls(lambda: tools.parse(text, partial=partial)) / len(text)


@pytest.mark.parametrize("partial", [False, True], ids=["complete", "streamed"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_reader_does_the_same_work_per_byte_at_every_size(
        tools: Any, sizes: tuple[int, ...], name: str, partial: bool) -> None:
    counts = [calls_per_byte(tools, reply(SHAPES[name], size), partial) for size in sizes]
    assert max(counts) <= counts[0] * 1.25 + 0.001, (name, counts)


class Counted(str):
    """A reply that counts the characters its string operations reach: a search counts up to
    where it found (or the end), a slice or a comparison its length."""

    touched = 0

    def _add(self, count: int) -> None:
        Counted.touched += max(count, 1)

    def _end(self, found: int, start: int | None, end: int | None) -> int:
        stop = len(self) if end is None else min(end, len(self))
        return (stop if found < 0 else found) - (start or 0)

    def find(self, sub: str, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        found = str.find(self, sub, start, end)
        self._add(self._end(found, start, end) + len(sub))
        return found

    def rfind(self, sub: str, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        found = str.rfind(self, sub, start, end)
        stop = len(self) if end is None else min(end, len(self))
        self._add(stop - (found if found >= 0 else (start or 0)))
        return found

    def index(self, sub: str, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        return self.find(sub, start, end) if sub in self else str.index(self, sub, start, end)

    def startswith(self, prefix: Any, start: Any = None, end: Any = None) -> bool:  # type: ignore[override]
        self._add(max(map(len, prefix)) if isinstance(prefix, tuple) else len(prefix))
        return str.startswith(self, prefix, start, end)

    def __getitem__(self, key: Any) -> str:  # type: ignore[override]
        item = str.__getitem__(self, key)
        self._add(len(item))
        return item

    def count(self, sub: str, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        self._add(len(self) - (start or 0))
        return str.count(self, sub, start, end)


def touched_per_byte(tools: Any, text: str, partial: bool) -> float:
    Counted.touched = 0
    tools.parse(Counted(text), partial=partial)
    return Counted.touched / len(text)


@pytest.mark.parametrize("partial", [False, True], ids=["complete", "streamed"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_reader_touches_each_byte_a_bounded_number_of_times(
        tools: Any, sizes: tuple[int, ...], name: str, partial: bool) -> None:
    """Two sizes ten times apart show quadratic work plainly; the deep run stops at 1 MB here
    (the calls-per-byte test and benchmarks/parser_scaling.py go on to 10 MB)."""
    counts = [touched_per_byte(tools, reply(SHAPES[name], size), partial)
              for size in sizes[:2]]
    assert max(counts) <= counts[0] * 1.25 + 0.01, (name, counts)
