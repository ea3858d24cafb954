"""Run the modules that import big third-party frameworks or wait on subprocesses in a second
pytest process.

tests/test_integrations.py and tests/test_schemas.py drive the real LiteLLM, OpenAI Agents SDK,
Pydantic AI, LangChain, llm and google-genai packages; importing them alone takes several
seconds of one core. tests/test_plugins.py installs plugins and runs promptc and pytest in
child processes. When they are collected together with other tests, this plugin starts one
child pytest for exactly the selected tests of those modules as soon as collection ends, and
puts a single item at the end of the run that waits for the child and fails with its report if
any of its tests failed. The child runs on the second core while this process runs everything else.
Run such a module on its own (`pytest tests/test_integrations.py`) and its tests run here, one
by one, as usual.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

# Modules whose time goes into big imports or child processes (test_plugins installs plugins
# and runs pytest and promptc in subprocesses; test_faults runs promptc in subprocesses;
# test_examples drives the anthropic and openai SDKs, which the child imports anyway):
# together about a third of the suite.
HEAVY = frozenset({"test_integrations.py", "test_schemas.py", "test_plugins.py",
                   "test_faults.py", "test_examples.py", "test_provider_calls.py",
                   "test_dynamic_sdk.py", "test_doc_snippets.py", "test_report_html.py"})
CHILD = "PROMPTC_TESTS_ASIDE"


class ChildFailed(Exception):
    pass


class AsideRun(pytest.Item):
    """Waits for the child pytest; passes when all of its tests passed."""

    def __init__(self, *, proc: subprocess.Popen[bytes], log: Path, count: int,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.proc = proc
        self.log = log
        self.count = count

    def runtest(self) -> None:
        try:
            code = self.proc.wait(timeout=900)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise ChildFailed("the second process did not finish in 900 s") from None
        report = self.log.read_text(encoding="utf-8", errors="replace")
        if code != 0:
            raise ChildFailed(f"{self.count} tests run in a second process; exit {code}:\n"
                              f"{report}")

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, ChildFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"{self.count} tests of {', '.join(sorted(HEAVY))} (second process)"


class Aside:
    @pytest.hookimpl(trylast=True)  # after -k / -m deselection
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        if os.environ.get(CHILD) or config.getoption("collectonly"):
            return
        heavy = [i for i in items if i.path.name in HEAVY]
        if not heavy or len(heavy) == len(items):
            return
        log = Path(tempfile.mkstemp(prefix="promptc-aside-", suffix=".log")[1])
        root = Path(str(config.rootpath))
        profile = config.getoption("hypothesis_profile", None)  # .ci/run's deep pass
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                *([f"--hypothesis-profile={profile}"] if profile else []),
                *(i.nodeid for i in heavy)]
        with log.open("wb") as out:
            proc = subprocess.Popen(argv, cwd=root, stdout=out, stderr=subprocess.STDOUT,
                                    env={**os.environ, CHILD: "1"})
        item = AsideRun.from_parent(heavy[0].parent, name="second_process", proc=proc,
                                    log=log, count=len(heavy))
        moved = set(map(id, heavy))
        # last, so that this process only waits for what is left of the child's work
        items[:] = [x for x in items if id(x) not in moved] + [item]

        def cleanup() -> None:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            log.unlink(missing_ok=True)
        config.add_cleanup(cleanup)
