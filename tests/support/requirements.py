"""Tests that need a real server or browser skip locally when it is missing, and fail in CI."""

from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require(available: bool, what: str) -> None:
    """Skip the calling test when ``what`` is unavailable, except in CI where it must be there."""
    if available:
        return
    if IN_CI:
        pytest.fail(f"{what} is required in CI but is not available", pytrace=False)
    pytest.skip(f"{what} is not available here (required in CI)")
