"""pytest helpers for promptc and its plugins (loaded as a pytest plugin via `pytest11`).

Fixtures:
- `promptc_compiler`: a session-wide Compiler for the project of pytest's rootdir: the
  project file found from there (`promptc.toml`, or `pyproject.toml` with `[tool.promptc]`;
  its `builtins`, `plugins` and prompt folder), never the user's folder or $PROMPTC_PROJECT (so
  CI is reproducible). Without a project file: `Compiler.default(project=False, user=False)`,
  the built-ins and installed plugins.
- `promptc_context`: a factory for contexts: `promptc_context("full", mode="plan")`.
- `promptc_snapshot`: the `snapshot` fixture (syrupy) writing plain `.md` files into a top-level
  `snapshots/` folder (override with the `promptc_snapshot_dir` ini option); `promptc_json_snapshot`
  the same with `.json` files. They need syrupy (`pip install syrupy`); without it the fixture
  fails saying so.

Functions:
- `assert_renders_cleanly(compiler, variant, provider, contexts)`: strict render across a context
  matrix; fails on any diagnostic, leftover `{{`, HTML escape, or empty header/separator.
- `problems_in(prompt)`: those problems of one prompt, as a list of strings (empty when clean).
- `make_context(base="full", **changes)`: a standard context (or a dict) with fields changed;
  what `promptc_context` returns.
- `context_matrix()`: the standard contexts (full, no browser, no MCP, no rules or skills, plan,
  minimal).
- `sessions_differ(compiler, provider, first, second, variant=None)`: the metamorphic check:
  render two sessions (two cwds, dates, OSes…) and report which sections differ and whether the
  static prefix stayed byte-identical.

Classes (they subclass syrupy's, so syrupy is imported when one is first used):
- `PromptSnapshotExtension`, `JsonSnapshotExtension`: the extensions behind the two snapshot
  fixtures, for `snapshot.use_extension(...)` in a fixture of your own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from ._base.errors import MissingExtraError
from ._compile.compiler import Compiler
from ._compile.compiled import CompiledPrompt
from ._model.context import PromptContext
from ._model.provider import ProviderInfo
from ._review.diff import sessions_differ
from ._text.cleanup import is_separator
from ._text.fence import OWN_TAGS, mask

__all__ = ["assert_renders_cleanly", "context_matrix", "make_context", "problems_in",
           "sessions_differ",
           "PromptSnapshotExtension", "JsonSnapshotExtension"]

_DATA = Path(__file__).parent / "_data" / "snapshot" / "contexts"
_HEADER = re.compile(r"(#{1,6})[ \t]")


def make_context(base: str | Mapping[str, Any] | None = "full", **changes: Any
                 ) -> PromptContext:
    """A context from a standard fixture name (or a dict), with fields changed."""
    if base is None:
        data: dict[str, Any] = {}
    elif isinstance(base, str):
        data = json.loads((_DATA / f"{base}.json").read_text(encoding="utf-8"))
    else:
        data = dict(base)
    data.update(changes)
    return PromptContext.from_dict(data, source=f"context {base!r}")


def context_matrix() -> dict[str, PromptContext]:
    """The standard contexts every variant should render cleanly in."""
    return {name: make_context(name) for name in
            ("full", "no_browser", "no_mcp", "no_rules_skills", "plan", "minimal")}


def _verbatim(runtime: Mapping[str, Any], tags: frozenset[str]) -> list[str]:
    """The texts runtime values put into a prompt as they are (each string, inside lists and
    objects too, and a structured value's JSON), as sent and as neutralised; longest first."""
    from ._base.frozen import compact_json, thaw
    from ._model.input_values import outside_text
    texts: set[str] = set()
    stack = [thaw(value) for value in runtime.values()]
    while stack:
        value = stack.pop()
        if isinstance(value, (list, dict)):
            texts.add(compact_json(value))
            stack.extend(value.values() if isinstance(value, dict) else value)
        elif isinstance(value, str):
            texts.add(value)
    texts |= {outside_text(t, tags) for t in texts}
    return sorted((t for t in texts if t.strip()), key=len, reverse=True)


def problems_in(prompt: CompiledPrompt, runtime: Mapping[str, Any] | None = None,
                tags: frozenset[str] | None = None) -> list[str]:
    """Structural problems a clean prompt never has (outside user-supplied values: fenced
    outside text, and the `runtime` values of the request, inserted verbatim but for the
    neutralising against the elements `tags`: the compiler's own)."""
    out = [f"diagnostic: {d.code}: {d.message}" for d in prompt.diagnostics]
    text = prompt.text
    for value in _verbatim(runtime or {}, OWN_TAGS if tags is None else tags):
        text = text.replace(value, "(input)")
    # Mask outside text (every fenced element: a rules file, an MCP schema, an escaped
    # attribute) so a value that contains `{{` or `&amp;` does not count. It becomes one line of
    # content, so masking cannot itself leave a gap, an empty header or two separators side by
    # side.
    masked = mask(text)
    if "{{" in masked or "}}" in masked:
        out.append("leftover mustache braces")
    for escape in ("&lt;", "&gt;", "&amp;", "&quot;", "&#"):
        if escape in masked:
            out.append(f"HTML escape {escape!r}")
    out.extend(_layout_problems(_strip_fences(masked)))
    return out


def _strip_fences(text: str) -> list[str]:
    """The lines of `text`, each fenced code block folded into one content line (code may hold
    blank runs, `#` lines and `===` lines: the clean-up leaves it alone, and so does this check)."""
    lines: list[str] = []
    fence = ""
    for line in text.split("\n"):
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = ""
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[0] * (len(stripped) - len(stripped.lstrip(stripped[0])))
            lines.append("(code)")
            continue
        lines.append(line)
    return lines


_Item = tuple[str, int, str]  # a non-blank line: (kind, header level, the line)


def _item(line: str) -> _Item:
    m = _HEADER.match(line)
    if m:
        return ("header", len(m.group(1)), line)
    return ("separator" if is_separator(line) else "content", 0, line)


def _items_and_blank_runs(lines: list[str]) -> tuple[list[_Item], list[str]]:
    """The non-blank lines, each with its kind, and a problem for each run of blank lines."""
    items: list[_Item] = []
    out: list[str] = []
    blank_run = 0
    for line in lines:
        if line.strip():
            blank_run = 0
            items.append(_item(line))
            continue
        blank_run += 1
        if blank_run == 2:
            out.append("blank-line run" + (f" after: {items[-1][2][:60]}" if items else ""))
    return items, out


def _is_empty_header(item: _Item, following: _Item | None) -> bool:
    """A header with nothing under it: the end, a separator, or a header of the same or a
    higher level comes next."""
    kind, level, _ = item
    return kind == "header" and (following is None or following[0] == "separator" or
                                 (following[0] == "header" and following[1] <= level))


def _layout_problems(lines: list[str]) -> list[str]:
    """What the post-processor removes, found in finished text: a header with nothing under it,
    separators at the ends or side by side, runs of blank lines."""
    items, out = _items_and_blank_runs(lines)
    for i, item in enumerate(items):
        following = items[i + 1] if i + 1 < len(items) else None
        if _is_empty_header(item, following):
            out.append("empty header: " + item[2].strip())
        if item[0] == "separator" and (i == 0 or following is None or
                                       following[0] == "separator"):
            out.append("dangling separator" + (f" after: {items[i - 1][2][:60]}" if i else
                                               " at the start"))
    return out


def assert_renders_cleanly(compiler: Compiler, variant: str, provider: ProviderInfo,
                           contexts: Mapping[str, PromptContext] | Iterable[PromptContext]
                           | None = None) -> dict[str, CompiledPrompt]:
    """Render `variant` in strict mode for each context; raise AssertionError on any problem."""
    if contexts is None:
        contexts = context_matrix()
    if not isinstance(contexts, Mapping):
        contexts = {str(i): c for i, c in enumerate(contexts)}
    out = {}
    failures = []
    for name, ctx in contexts.items():
        try:
            prompt = compiler.compile(provider, ctx, strict=True, variant=variant)
        except Exception as exc:  # noqa: BLE001 - turned into an assertion with its name
            failures.append(f"{variant} / {name}: {type(exc).__name__}: {exc}")
            continue
        failures += [f"{variant} / {name}: {p}"
                     for p in problems_in(prompt, ctx.runtime, compiler.own_tags)]
        out[name] = prompt
    if failures:
        raise AssertionError("prompt does not render cleanly:\n  " + "\n  ".join(failures))
    return out


# --- syrupy extensions (syrupy is optional: imported only when a snapshot is used) --------------

_EXTENSIONS: dict[str, type] = {}


def _snapshot_folder(test_location: Any) -> str:
    """The snapshot folder of the run the test belongs to (the `promptc_snapshot_dir` ini
    option, from the project's root)."""
    config = test_location.item.config
    return str(Path(config.rootpath) / config.getini("promptc_snapshot_dir"))


def _extension_classes() -> dict[str, type]:
    """The two extension classes, made on first use (they subclass syrupy's). They read their
    folder from the test's own run, so one class serves every folder; syrupy's xdist controller
    finds them again by their public names."""
    if _EXTENSIONS:
        return _EXTENSIONS
    from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

    class PromptSnapshotExtension(SingleFileSnapshotExtension):
        """Plain `.md` files named by the test's parameter id, in one top-level folder."""

        _write_mode = WriteMode.TEXT
        file_extension = "md"

        @classmethod
        def dirname(cls, *, test_location: Any) -> str:
            return _snapshot_folder(test_location)

        @classmethod
        def matches_test_location(cls, *, test_location: Any, snapshot_location: str) -> bool:
            """Every file of the one folder belongs to whichever test names it: the folder
            holds prompts, not per-test-file snapshot sites (syrupy warns otherwise)."""
            return True

        @classmethod
        def get_snapshot_name(cls, *, test_location: Any, index: Any = 0) -> str:
            name = test_location.snapshot_name
            m = re.search(r"\[(.*)\]$", name)
            return m.group(1) if m else name

    class JsonSnapshotExtension(PromptSnapshotExtension):
        """Plain `.json` files, as `PromptSnapshotExtension` writes `.md` ones."""

        file_extension = "json"

    for cls in (PromptSnapshotExtension, JsonSnapshotExtension):
        cls.__qualname__ = cls.__name__  # importable as promptc.testing.<name>
        _EXTENSIONS[cls.__name__] = cls
    return _EXTENSIONS


def __getattr__(name: str) -> Any:
    """`PromptSnapshotExtension` and `JsonSnapshotExtension`: syrupy extensions, for
    `snapshot.use_extension(...)` in a fixture of your own; importing syrupy only then."""
    if name in ("PromptSnapshotExtension", "JsonSnapshotExtension"):
        try:
            return _extension_classes()[name]
        except ImportError:
            raise MissingExtraError(f"promptc.testing.{name} needs syrupy, which is not "
                                    f"installed: {_INSTALL_HINT}") from None
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def pytest_configure(config: pytest.Config) -> None:
    """A snapshot is named by its parameter id (`acme-full.md`), not by the test: syrupy's
    warning that the name does not contain the test's is expected, so it is not shown."""
    config.addinivalue_line("filterwarnings",
                            r"ignore:\s*Can not relate snapshot name:UserWarning")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("promptc_snapshot_dir", "folder for promptc's .md prompt snapshots",
                  default="snapshots")


_INSTALL_HINT = "pip install syrupy"  # just the snapshot library, not promptc's whole test extra


def _syrupy_snapshot(request: pytest.FixtureRequest, fixture: str) -> Any:
    """syrupy's `snapshot` fixture, or a failure that says what to install. (Asking for it by
    argument would fail with pytest's bare "fixture 'snapshot' not found".)"""
    try:
        import syrupy  # noqa: F401
    except ImportError:
        pytest.fail(f"{fixture} needs syrupy, which is not installed: {_INSTALL_HINT}",
                    pytrace=False)
    try:
        return request.getfixturevalue("snapshot")
    except pytest.FixtureLookupError:
        pytest.fail(f"{fixture} needs syrupy's pytest plugin, which is installed but not "
                    "loaded (disabled with -p no:syrupy, or PYTEST_DISABLE_PLUGIN_AUTOLOAD "
                    "without -p syrupy)", pytrace=False)


@pytest.fixture
def promptc_snapshot(request: pytest.FixtureRequest) -> Any:
    """syrupy's snapshot, writing `<snapshots>/<param id>.md` as plain text."""
    snapshot = _syrupy_snapshot(request, "promptc_snapshot")
    return snapshot.use_extension(_extension_classes()["PromptSnapshotExtension"])


@pytest.fixture
def promptc_json_snapshot(request: pytest.FixtureRequest) -> Any:
    """syrupy's snapshot, writing `<snapshots>/<param id>.json` as plain text."""
    snapshot = _syrupy_snapshot(request, "promptc_json_snapshot")
    return snapshot.use_extension(_extension_classes()["JsonSnapshotExtension"])


@pytest.fixture(scope="session")
def promptc_compiler(pytestconfig: pytest.Config) -> Compiler:
    from ._load.project import find_project_file
    found = find_project_file(pytestconfig.rootpath)
    if found is None:
        return Compiler.default(project=False, user=False)
    return Compiler.default(project=found, user=False)


@pytest.fixture
def promptc_context() -> Callable[..., PromptContext]:
    return make_context
