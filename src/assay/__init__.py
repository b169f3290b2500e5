"""Assay: a self-hosted platform for evaluating AI agents."""

from __future__ import annotations

import functools

__all__ = ["__version__"]


@functools.cache
def _installed_version() -> str:
    # Asked only when wanted: importlib.metadata takes tens of milliseconds to load, which every `assay`
    # command would pay at start-up.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("assay")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0"


def __getattr__(name: str) -> str:
    if name == "__version__":
        return _installed_version()
    raise AttributeError(f"module 'assay' has no attribute {name!r}")
