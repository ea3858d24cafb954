"""Shared fixtures (the built-in compiler, the context fixtures, a folder builder, one provider
per built-in variant), and how pytest-xdist shares the suite between its workers."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from promptc import Compiler, PromptContext, ProviderInfo
from promptc._review.snapshot import load_matrix
from promptc.testing import make_context

# Property tests draw `quick` numbers of examples in the default run (the README's `pytest`);
# .ci/run then runs them again with `--hypothesis-profile=deep -m property`.
settings.register_profile("quick", max_examples=12, deadline=None)
settings.register_profile("deep", max_examples=2000, deadline=None)
settings.load_profile("quick")


def pytest_configure(config: pytest.Config) -> None:
    """Byte-compile promptc once, in the main pytest process, before any test runs. Many tests
    run `promptc` in a subprocess; where PYTHONDONTWRITEBYTECODE is set (as on a CI machine) no
    process writes the cache, and each one would compile all of promptc from source again."""
    if hasattr(config, "workerinput"):  # an xdist worker: the main process has done it
        return
    import compileall

    import promptc
    compileall.compile_dir(Path(promptc.__file__).parent, quiet=1, workers=1)


@pytest.fixture(autouse=True, scope="session")
def _no_user_model_table(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A developer's own `promptc models update` must not change what the tests see: the user
    data folder points at an empty temporary one for the whole run."""
    import os
    folder = tmp_path_factory.mktemp("user-data")
    os.environ["XDG_DATA_HOME"] = str(folder)
    os.environ["LOCALAPPDATA"] = str(folder)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every hypothesis test is a `property` test (selected by .ci/run's deep pass)."""
    for item in items:
        if getattr(getattr(item, "function", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.property)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--full-scale", action="store_true", default=False,
                     help="run the `scale` tests at their full sizes (tens of megabytes, tens "
                          "of thousands of levels), as .ci/run's second pass does")


@pytest.fixture(scope="session")
def scale(request: pytest.FixtureRequest) -> int:
    """How much bigger a `scale` test makes its inputs: 1 in a plain `pytest` (sizes past
    every limit and the recursion limit, small enough for the one-minute run), 10 with
    `--full-scale` (.ci/run's second pass)."""
    return 10 if request.config.getoption("full_scale") else 1


# pytest-xdist (`-n logical` in pyproject's addopts) runs the tests in one worker process per
# CPU. A test goes to whichever worker is free, except where tests share a setup that costs
# seconds in every process that makes it: those modules go to one worker together, so the
# setup is paid once. The SDK and agent-framework modules import anthropic, openai,
# google-genai, boto3, LiteLLM, the OpenAI Agents SDK, Pydantic AI, LangChain and llm; test_plugins.py
# pip-installs the example plugins once per process (its session fixture `installed`).
SHARED_SETUP = {
    "test_integrations.py": "frameworks", "test_schemas.py": "frameworks",
    "test_provider_calls.py": "frameworks", "test_dynamic_sdk.py": "frameworks",
    "test_examples.py": "frameworks", "test_doc_snippets.py": "frameworks",
    "test_integrations_details.py": "frameworks", "test_caching_doc.py": "frameworks",
    "test_bedrock.py": "frameworks",
    "test_plugins.py": "plugins",
}


@pytest.hookimpl(optionalhook=True)  # an xdist hook: unknown when xdist is not loaded
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n logical` runs the suite, a folder or a `-k` selection on one worker per CPU, and
    named test files (`pytest tests/test_x.py -x`) here, in this process: for a file or two,
    starting and collecting in two more processes costs more than it saves. None: xdist's
    own count."""
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        return None
    here = config.invocation_params.dir
    named = [here / arg.split("::", 1)[0] for arg in config.args]
    return 0 if all(path.is_file() for path in named) else None


@pytest.hookimpl(optionalhook=True)  # an xdist hook: unknown when xdist is not loaded
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist's scope scheduling, where a scope is one test or one SHARED_SETUP group (groups
    are sent first: xdist orders scopes by size). An explicit `--dist` other than the default
    `load` is left to xdist."""
    if config.getoption("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedSetupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
            return SHARED_SETUP.get(module, nodeid)

    return SharedSetupScheduling(config, log)


FIXTURES = Path(__file__).parent / "fixtures"
CONTEXTS = Path(__file__).parent.parent / "promptc" / "_data" / "snapshot" / "contexts"


@pytest.fixture(scope="session")
def builtins() -> Compiler:
    return Compiler.builtins()


@functools.cache
def variant_providers() -> dict[str, ProviderInfo]:
    """One provider per variant the default snapshot matrix renders (the first case naming
    it), in the matrix's order. Tests that go through every built-in variant take them from
    here, so a new variant needs its case in the matrix and nothing else in the tests
    (tests/test_tokens.py checks that every built-in variant has one)."""
    providers: dict[str, ProviderInfo] = {}
    for target in load_matrix().targets:
        if target.variant is not None:
            providers.setdefault(target.variant, target.provider)
    return providers


@functools.cache
def text_variants() -> tuple[str, ...]:
    """The built-in variants with a text tool catalogue (the `tools` section): those that can
    teach calls as text, whatever mode they pin."""
    registry = Compiler.builtins().registry
    return tuple(v for v in registry.variants if "tools" in registry.get(v).components)


@pytest.fixture(scope="session")
def full_context() -> PromptContext:
    return make_context("full")


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write `files` ({relative path: text or bytes}) under root; return root."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def tree(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    counter = iter(range(1000))

    def make(files: dict[str, str | bytes]) -> Path:
        return write_tree(tmp_path / f"tree{next(counter)}", files)
    return make


MINI = {
    "variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", "body"]\n'
                                  'tools = ["echo"]\n',
    "variants/base/template.md": "{{intro}}\n\n====\n\n{{body}}\n",
    "components/intro.md": "# Intro\nHello.\n",
    "components/body.md": "# Body\nWorking in {{CWD}}.\n",
    "components/tools/echo.toml": 'name = "echo"\ndescription = "Echo."\n',
}


@pytest.fixture
def mini(tree: Callable[[dict[str, str | bytes]], Path]) -> Callable[..., Compiler]:
    """A tiny, self-contained prompt tree (no built-ins) with optional extra/overridden files."""
    def make(extra: dict[str, str | bytes] | None = None, **kw: object) -> Compiler:
        files = {**MINI, **(extra or {})}
        files = {k: v for k, v in files.items() if v is not None}
        return Compiler.from_folders(tree(files), builtins=False)
    return make


def as_json(obj: object) -> str:
    return json.dumps(obj, indent=2, sort_keys=True)


def pytest_sessionfinish() -> None:
    """The tests are over: move every object left to the garbage collector's permanent
    generation, so the full collections pytest runs as it shuts down do not walk the millions
    of objects the SDK and framework imports leave behind (seconds per worker)."""
    import gc
    gc.freeze()


def python_calls(work: Callable[[], Any]) -> int:
    """How many Python and C calls `work()` makes (work counted, not timed)."""
    count = 0

    def profile(_frame: Any, event: str, _arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1
    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return count
