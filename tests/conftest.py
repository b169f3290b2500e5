"""Settings shared by every test tier."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

from tests.support.requirements import IN_CI

# CI runs at least 1,000 examples per property (issue 2); locally fewer, so the loop stays quick.
settings.register_profile(
    "ci", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", max_examples=150, deadline=None)
settings.load_profile("ci" if IN_CI else "dev")
