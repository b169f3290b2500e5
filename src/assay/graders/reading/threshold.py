"""A similarity against a threshold: the option, the pass rule and the reason, alike in graded graders."""

from __future__ import annotations

from typing import Any

from assay.graders.contract.verdict import MatchStatus

SCORE_DIGITS = 9
"""Scores are rounded to this many decimals, so float noise (0.7999999999) never decides a verdict."""


def threshold_schema(default: float, measure: str) -> dict[str, Any]:
    """The ``threshold`` option: the lowest ``measure`` that passes, above 0 (0 would pass any answer)."""
    return {
        "type": "number",
        "exclusiveMinimum": 0,
        "maximum": 1,
        "description": f"Lowest {measure} (0 to 1, above 0) that passes; 1 asks for identical texts",
        "default": default,
    }


def clamp_score(raw: float) -> float:
    """``raw`` in [0, 1] with ``SCORE_DIGITS`` decimals."""
    return round(min(max(float(raw), 0.0), 1.0), SCORE_DIGITS)


def shown_score(score: float, threshold: float) -> str:
    """``score`` with the fewest decimals (2 or more) that still show on which side of ``threshold`` it is.

    0.888 reads ``0.89``, but 0.7996 against 0.8 reads ``0.7996``: never a failing ``0.80`` beside ``0.8``.
    """
    passed = score >= threshold
    for digits in range(2, SCORE_DIGITS + 1):
        rounded = round(score, digits)
        if (rounded >= threshold) is passed:
            return f"{rounded:.{digits}f}"
    return repr(score)  # unreachable: a score has SCORE_DIGITS decimals and passed was judged on it


def judge(score: float, threshold: float, measure: str) -> tuple[MatchStatus, str]:
    """The verdict for ``score`` (already clamped) and the sentence saying it, e.g. "Token F1 0.67 is ..."."""
    shown = shown_score(score, threshold)
    if score >= threshold:
        return MatchStatus.MATCH, f"{measure} {shown} meets the threshold {threshold:g}"
    return MatchStatus.MISMATCH, f"{measure} {shown} is below the threshold {threshold:g}"
