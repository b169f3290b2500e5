"""Assay: a self-hosted platform for evaluating AI agents."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("assay")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = ["__version__"]
