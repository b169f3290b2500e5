"""Assay: a self-hosted platform for evaluating AI agents."""

from __future__ import annotations

import functools

__all__ = ["EvaluationResult", "__version__", "evaluate", "evaluate_async"]

_API = frozenset({"EvaluationResult", "evaluate", "evaluate_async"})
"""The Python API's names (:mod:`assay.python_api`), loaded when first named: ``import assay`` stays cheap
for the commands, which never name them."""


@functools.cache
def _installed_version() -> str:
    # Asked only when wanted: importlib.metadata takes tens of milliseconds to load, which every `assay`
    # command would pay at start-up.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("assay")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0"


def __getattr__(name: str) -> object:
    if name == "__version__":
        return _installed_version()
    if name in _API:
        from assay import python_api

        return getattr(python_api, name)
    raise AttributeError(f"module 'assay' has no attribute {name!r}")
