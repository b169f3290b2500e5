"""The fuzzy grader: how similar are the answer and the expected text, character by character (rapidfuzz)?"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from assay.graders.contract.base import GraderInterface
from assay.graders.contract.verdict import (
    EMPTY_RESPONSE_REASON,
    GradeResult,
    MatchStatus,
    Verdict,
    VerdictReport,
)
from assay.graders.reading.text import is_blank, read_text, text_normalizer
from assay.graders.reading.threshold import clamp_score, judge, threshold_schema

MAX_CHARS = 10_000
"""Each text is measured on its first ``MAX_CHARS`` characters: rapidfuzz is O(n*m/64), so two 1 MB texts
would take seconds; texts this long and this different rarely change verdict past that point."""
MAX_PARTIAL_CHARS = 500
"""``partial`` slides the expected text along the answer, which costs about its length squared times the
answer's: past ~500 characters one grade takes a tenth of a second, so the expected text is cut here."""

_EMPTY_EXPECTED_REASON = "Expected output is empty: there is nothing to match"

Similarity = Callable[[str, str], tuple[float, bool]]
"""(expected, answer), both normalised and not blank -> (similarity in [0, 1], whether a text was cut)."""


def _is_cut(expected: str, actual: str, expected_limit: int = MAX_CHARS) -> bool:
    return len(expected) > expected_limit or len(actual) > MAX_CHARS


def _ratio(expected: str, actual: str) -> tuple[float, bool]:
    return fuzz.ratio(expected[:MAX_CHARS], actual[:MAX_CHARS]) / 100.0, _is_cut(expected, actual)


def _token_sort(expected: str, actual: str) -> tuple[float, bool]:
    return fuzz.token_sort_ratio(expected[:MAX_CHARS], actual[:MAX_CHARS]) / 100.0, _is_cut(expected, actual)


def _levenshtein(expected: str, actual: str) -> tuple[float, bool]:
    similarity = Levenshtein.normalized_similarity(expected[:MAX_CHARS], actual[:MAX_CHARS])
    return similarity, _is_cut(expected, actual)


def _token_set(expected: str, actual: str) -> tuple[float, bool]:
    """rapidfuzz's token_set_ratio without the comparison that lets an answer be a subset of the expected.

    token_set_ratio scores 1 as soon as either side's words are all in the other, so the answer "the" would
    pass for "the capital of France". Here only the expected words may be the subset ("Paris" in "not Paris"
    still scores 1: documented); the shared words are compared with the expected ones, and the two texts
    rebuilt as shared words plus their own are compared with each other, as rapidfuzz does.
    """
    expected_words = set(expected[:MAX_CHARS].split())
    actual_words = set(actual[:MAX_CHARS].split())
    shared = " ".join(sorted(expected_words & actual_words))
    missing = " ".join(sorted(expected_words - actual_words))
    extra = " ".join(sorted(actual_words - expected_words))
    with_missing = f"{shared} {missing}".strip()
    best = fuzz.ratio(with_missing, f"{shared} {extra}".strip())
    if shared:
        best = max(best, fuzz.ratio(shared, with_missing))
    return best / 100.0, _is_cut(expected, actual)


def _partial(expected: str, actual: str) -> tuple[float, bool]:
    """The best ratio of the expected text against any part of the answer as long as it.

    An answer shorter than the expected text is compared whole (plain ratio): rapidfuzz's partial_ratio
    would slide the shorter text, so the answer "a" would score 1 for "banana".
    """
    if len(actual) < len(expected):
        return _ratio(expected, actual)
    similarity = fuzz.partial_ratio(expected[:MAX_PARTIAL_CHARS], actual[:MAX_CHARS]) / 100.0
    return similarity, _is_cut(expected, actual, MAX_PARTIAL_CHARS)


METHODS: dict[str, Similarity] = {
    "ratio": _ratio,
    "token_set": _token_set,
    "token_sort": _token_sort,
    "partial": _partial,
    "levenshtein": _levenshtein,
}


class FuzzyGrader(GraderInterface):
    """Passes when the answer is at least ``threshold`` similar to the expected text (edit-based measures)."""

    default_id: ClassVar[str] = "fuzzy"
    name: ClassVar[str] = "Fuzzy Match"
    description: ClassVar[str] = (
        "Similarity of the answer to the expected text (rapidfuzz ratio, token set/sort, partial or "
        "normalised Levenshtein) compared with a threshold; tolerates typos and small rewordings"
    )
    type: ClassVar[str] = "fuzzy"
    version: ClassVar[str] = "1.1.0"
    fresh_results: ClassVar[bool] = True
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "method": {
                "type": "string",
                "enum": list(METHODS),
                "description": (
                    "How similarity is measured. 'ratio': characters in common (rapidfuzz ratio, Indel), "
                    "1 only when equal. 'token_sort': ratio after sorting the words (word order ignored). "
                    "'token_set': rapidfuzz token_set_ratio, except that only the expected words may be "
                    "the subset: 1 whenever every expected word is in the answer, so 'Paris' against "
                    "'not Paris' scores 1 (risky for short expected answers), while an answer made of a "
                    "few expected words ('the') does not. 'partial': best ratio of the expected text "
                    "against any part of the answer as long as it, so an answer containing the expected "
                    "text scores 1 (the same risk); a shorter answer is compared whole. 'levenshtein': 1 "
                    "minus the edit distance over the longer length. Each text is measured on its first "
                    f"{MAX_CHARS:,} characters ('partial': the expected text on its first "
                    f"{MAX_PARTIAL_CHARS})."
                ),
                "default": "ratio",
            },
            "threshold": threshold_schema(0.8, "similarity"),
            "case_sensitive": {
                "type": "boolean",
                "description": "Whether capitalisation counts (off: both texts are case-folded)",
                "default": False,
            },
            "normalize_whitespace": {
                "type": "boolean",
                "description": (
                    "Whether to strip both ends and collapse inner whitespace runs (line breaks too) "
                    "to one space before measuring"
                ),
                "default": True,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "Identical after normalisation (token_set and partial: also when the answer contains "
        "every expected word or the expected text, so 'not Paris' scores 1 against 'Paris')",
        "0.8": "Close: a typo or two, a small rewording (passes the default threshold)",
        "0.5": "Half the characters line up; usually a different answer",
        "0.0": "Nothing in common, or an empty answer or expected output",
    }
    report: ClassVar[VerdictReport] = VerdictReport.SCORE

    __slots__ = ("_measure", "_method", "_normalize", "_similarity", "_threshold")

    def __init__(self, grader_id: str = "fuzzy", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        self._method: str = self._config["method"]
        self._threshold: float = float(self._config["threshold"])
        self._similarity = METHODS[self._method]
        self._measure = f"Similarity ({self._method})"
        self._normalize = text_normalizer(
            case_sensitive=self._config["case_sensitive"],
            normalize_whitespace=self._config["normalize_whitespace"],
        )
        self._freeze()

    @property
    def method(self) -> str:
        """The similarity measure (a key of ``METHODS``)."""
        return self._method

    @property
    def threshold(self) -> float:
        """The lowest similarity that passes."""
        return self._threshold

    def check_expected(self, expected_output: Any) -> str | None:
        """A blank expected output can never pass: a blank answer is refused before it is measured."""
        return _EMPTY_EXPECTED_REASON if is_blank(self._normalize(read_text(expected_output))) else None

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Grade one response; the score is the similarity, kept on a mismatch too."""
        normalized_expected = self._normalize(read_text(expected_output))
        normalized_actual = self._normalize(read_text(agent_response))
        score = 0.0
        truncated = False
        if is_blank(normalized_expected):
            status, reason = MatchStatus.INVALID_EXPECTED, _EMPTY_EXPECTED_REASON
        elif is_blank(normalized_actual):
            status, reason = MatchStatus.INVALID_RESPONSE, EMPTY_RESPONSE_REASON
        else:
            similarity, truncated = self._similarity(normalized_expected, normalized_actual)
            score = clamp_score(similarity)
            status, reason = judge(score, self._threshold, self._measure)
            if truncated:
                reason += "; a long text was measured on its start only"
        return Verdict(
            status,
            reason,
            expected_output,
            agent_response,
            normalized_expected,
            normalized_actual,
            score=score,
            extra={"method": self._method, "threshold": self._threshold, "truncated": truncated},
        ).result()
