"""Settings shared by every test tier."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

from tests.support.requirements import IN_CI
from tests.support.xdist_groups import group_of, name_groups

# CI runs at least 1,000 examples per property (issue 2); locally fewer, so the loop stays quick.
settings.register_profile(
    "ci", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", max_examples=150, deadline=None)
settings.load_profile("ci" if IN_CI else "dev")


def _turn(item: pytest.Item) -> int:
    """Where a test goes in the run. First the grouped end-to-end tests that kill and restart processes
    ("processes": one at a time, minutes of waiting on kills, leases and restarts), so that the other workers
    compute while they wait. Last the browser tests: Playwright's sync API keeps an event loop running in its
    worker for the rest of the session, where a later ``asyncio.run`` (unit and API tests) would not start."""
    if item.get_closest_marker("browser"):
        return 2
    return 0 if group_of(item) is not None else 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the tests in their turns (``_turn``; within one, in collection order) and, under
    ``--dist loadgroup``, send the tests of one xdist group to one worker (pytest 9.2 hides xdist's own
    grouping: tests/support/xdist_groups.py). xdist keeps this order with ``--no-loadscope-reorder``."""
    items.sort(key=_turn)
    if getattr(config.option, "loadgroup", False):
        name_groups(items)
