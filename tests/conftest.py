"""Settings shared by every test tier."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

from tests.support.requirements import IN_CI
from tests.support.xdist_groups import name_groups

# CI runs at least 1,000 examples per property (issue 2); locally fewer, so the loop stays quick.
settings.register_profile(
    "ci", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", max_examples=150, deadline=None)
settings.load_profile("ci" if IN_CI else "dev")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``--dist loadgroup``, send the tests of one xdist group to one worker (pytest 9.2 hides xdist's
    own grouping: tests/support/xdist_groups.py). xdist hands out the largest groups first: the end-to-end
    tests that kill and restart processes ("processes", one at a time) then wait while the others compute."""
    if getattr(config.option, "loadgroup", False):
        name_groups(items)
