"""What every test of this suite relies on in whichever process runs it (a pytest-xdist worker,
in the default run): the plugins pyproject's addopts name are loaded, and the hypothesis profile
chosen on the command line is in force (.ci/run's `--hypothesis-profile=deep` pass would
otherwise draw the quick number of examples without a word), and the modules conftest.py keeps
on one worker are still there."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

from .conftest import SHARED_SETUP


@pytest.mark.property  # so that the deep pass checks its own profile too
def test_the_chosen_hypothesis_profile_is_in_force(request: pytest.FixtureRequest) -> None:
    chosen = request.config.getoption("hypothesis_profile") or "quick"
    assert settings.get_current_profile_name() == chosen
    assert settings.default.max_examples == settings.get_profile(chosen).max_examples


def test_the_named_plugins_are_loaded(request: pytest.FixtureRequest) -> None:
    plugins = request.config.pluginmanager
    for name in ("hypothesispytest", "syrupy", "promptc.testing", "xdist"):
        assert plugins.has_plugin(name), name
    assert not plugins.has_plugin("cacheprovider")  # `-p no:cacheprovider` reached it too


def test_the_modules_kept_together_exist() -> None:
    """A renamed module would quietly lose its place on the shared worker."""
    here = Path(__file__).parent
    assert [name for name in SHARED_SETUP if not (here / name).is_file()] == []
