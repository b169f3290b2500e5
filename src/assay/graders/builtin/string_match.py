"""The string-match grader: is the response the expected text, within the configured leniency?

Its options: docs/decisions.md#string-match-options.
"""

from __future__ import annotations

from typing import Any, ClassVar

from assay.graders.contract.base import GraderInterface
from assay.graders.contract.verdict import EMPTY_RESPONSE_REASON, GradeResult, MatchStatus, verdict_result
from assay.graders.reading.text import is_blank, read_text, text_normalizer

_EMPTY_EXPECTED_REASON = "Expected output is empty: there is nothing to match"


def _first_difference(expected: str, actual: str) -> int:
    """Index of the first character where the two strings differ (they are known to differ)."""
    for index, (e, a) in enumerate(zip(expected, actual, strict=False)):
        if e != a:
            return index
    return min(len(expected), len(actual))


def _mismatch_reason(expected: str, actual: str, index: int) -> str:
    if index >= len(actual):
        return f"Response ends at position {index}; expected continues with {expected[index : index + 20]!r}"
    if index >= len(expected):
        return f"Response has extra text from position {index}: {actual[index : index + 20]!r}"
    return (
        f"Response differs from expected output at position {index}: "
        f"expected {expected[index : index + 20]!r}, got {actual[index : index + 20]!r}"
    )


class StringMatchGrader(GraderInterface):
    """Passes when the response equals the expected output, optionally ignoring case and whitespace."""

    default_id: ClassVar[str] = "string-match"
    name: ClassVar[str] = "String Match Grader"
    description: ClassVar[str] = "Exact or fuzzy string matching with case and whitespace options"
    type: ClassVar[str] = "string-match"
    version: ClassVar[str] = "1.3.0"
    fresh_results: ClassVar[bool] = True
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "case_sensitive": {
                "type": "boolean",
                "description": "Whether to perform case-sensitive matching",
                "default": False,
            },
            "normalize_whitespace": {
                "type": "boolean",
                "description": (
                    "Whether to normalize whitespace before matching "
                    "(strip both ends, collapse inner runs to one space)"
                ),
                "default": True,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "Response exactly matches expected output (within configured options)",
        "0.0": "Response does not match expected output",
    }

    __slots__ = ("_case_sensitive", "_normalize", "_normalize_whitespace")

    def __init__(self, grader_id: str = "string-match", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        self._case_sensitive: bool = self._config["case_sensitive"]
        self._normalize_whitespace: bool = self._config["normalize_whitespace"]
        self._normalize = text_normalizer(
            case_sensitive=self._case_sensitive, normalize_whitespace=self._normalize_whitespace
        )
        self._freeze()

    @property
    def case_sensitive(self) -> bool:
        """Whether capitalisation must match."""
        return self._case_sensitive

    @property
    def normalize_whitespace(self) -> bool:
        """Whether ends are stripped and inner whitespace runs collapsed before comparing."""
        return self._normalize_whitespace

    def normalize(self, value: object) -> str:
        """The text this grader compares for ``value``."""
        return self._normalize(read_text(value))

    def check_expected(self, expected_output: Any) -> str | None:
        """An empty expected output (after normalisation) says nothing to match, so no answer may pass."""
        return _EMPTY_EXPECTED_REASON if is_blank(self.normalize(expected_output)) else None

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Grade one response; details give the normalised values and, on a failure, where they differ."""
        normalized_expected = self.normalize(expected_output)
        normalized_actual = self.normalize(agent_response)
        difference = None
        if is_blank(normalized_expected):
            status, reason = MatchStatus.INVALID_EXPECTED, _EMPTY_EXPECTED_REASON
        elif is_blank(normalized_actual):
            status, reason = MatchStatus.INVALID_RESPONSE, EMPTY_RESPONSE_REASON
        elif normalized_expected == normalized_actual:
            status, reason = MatchStatus.MATCH, "Response matches expected output"
        else:
            status = MatchStatus.MISMATCH
            difference = _first_difference(normalized_expected, normalized_actual)
            reason = _mismatch_reason(normalized_expected, normalized_actual, difference)
        return verdict_result(
            status,
            reason,
            expected_output,
            agent_response,
            normalized_expected,
            normalized_actual,
            extra={"first_difference": difference},
        )
