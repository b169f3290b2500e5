"""What a threshold grader's verdict must say about one scored answer (fuzzy, overlap, semantic)."""

from __future__ import annotations

from typing import Any

import pytest


def assert_scored(result: dict[str, Any], *, passed: bool, score: float | None = None) -> None:
    """``result`` passes or not as told, a pass is a match and a fail a mismatch (never invalid), and its
    score is ``score`` when given."""
    assert result["passed"] is passed, result["details"]["reason"]
    assert result["details"]["match_status"] == ("match" if passed else "mismatch")
    if score is not None:
        assert result["score"] == pytest.approx(score, abs=1e-9)
