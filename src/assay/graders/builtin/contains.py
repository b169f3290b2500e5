"""The contains grader: does the expected text occur in the answer?

Both sides are normalised the same way (case folded unless ``case_sensitive``; whitespace runs collapsed
unless ``normalize_whitespace`` is off), then the expected text is searched for in the answer. By default
it must occur as *whole words* (see :mod:`assay.graders.reading.words`): ``"yes"`` is not found in
``"yesterday"``, ``"no"`` not in ``"know"`` or ``"nothing"``, ``"3"`` not in ``"3.14"``. A loose substring
check passes answers that say nothing: Inspect's ``includes()`` scored the constant answer ``"yesno"``
8000/8000 on a yes/no benchmark. Turn ``whole_words`` off (the ``substring`` preset) for a plain substring
search.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from assay.graders.contract.base import GraderInterface, Preset
from assay.graders.contract.verdict import EMPTY_RESPONSE_REASON, GradeResult, MatchStatus, verdict_result
from assay.graders.reading.text import excerpt, is_blank, read_text, text_normalizer
from assay.graders.reading.words import find_whole_word, word_around

_EMPTY_EXPECTED_REASON = "Expected output is empty: there is nothing to look for"

PRESETS: dict[str, Preset] = {
    "substring": Preset(
        "Anywhere, even inside a longer word (like promptfoo's icontains or Inspect's includes)",
        {"case_sensitive": False, "normalize_whitespace": True, "whole_words": False},
    ),
    "exact-case": Preset(
        "Whole words with their exact capitalisation",
        {"case_sensitive": True, "normalize_whitespace": True, "whole_words": True},
    ),
}


class ContainsGrader(GraderInterface):
    """Passes when the expected text occurs in the response, by default as whole words."""

    default_id: ClassVar[str] = "contains"
    name: ClassVar[str] = "Contains"
    description: ClassVar[str] = (
        "The expected text occurs in the response (whole words by default; case and whitespace options)"
    )
    type: ClassVar[str] = "contains"
    version: ClassVar[str] = "1.1.0"
    fresh_results: ClassVar[bool] = True
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "case_sensitive": {
                "type": "boolean",
                "description": "Whether capitalisation must match (otherwise both sides are case-folded)",
                "default": False,
            },
            "normalize_whitespace": {
                "type": "boolean",
                "description": (
                    "Whether to collapse every run of whitespace (line breaks too) to one space on both "
                    "sides, so a line break in the response matches a space in the expected text"
                ),
                "default": True,
            },
            "whole_words": {
                "type": "boolean",
                "description": (
                    "Whether the expected text must not continue a word or number of the response: "
                    "'yes' is not found in 'yesterday', 'no' not in 'know', '3' not in '3.14' "
                    "(Unicode-aware; Chinese, Japanese and Thai text need no spaces)"
                ),
                "default": True,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": (
            "The expected text occurs in the response (case and whitespace as configured); by default as "
            "whole words, because a plain substring check passes hedges such as 'yesno' or 'know' for 'no'"
        ),
        "0.0": (
            "The expected text does not occur, or only inside a longer word or number; or the response "
            "or the expected output is empty"
        ),
    }
    presets: ClassVar[Mapping[str, Preset]] = PRESETS

    __slots__ = ("_normalize", "_whole_words")

    def __init__(self, grader_id: str = "contains", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        self._normalize = text_normalizer(
            case_sensitive=self._config["case_sensitive"],
            normalize_whitespace=self._config["normalize_whitespace"],
        )
        self._whole_words: bool = self._config["whole_words"]
        self._freeze()

    def normalize(self, value: object) -> str:
        """The text this grader compares for ``value``."""
        return self._normalize(read_text(value))

    def check_expected(self, expected_output: Any) -> str | None:
        """An empty or blank expected text is found everywhere, so it can never be a meaningful pass."""
        return _EMPTY_EXPECTED_REASON if is_blank(self.normalize(expected_output)) else None

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Grade one response; details give where the expected text was found (``found_at``, an offset
        into ``normalized_actual``)."""
        normalize = self._normalize
        normalized_expected = normalize(read_text(expected_output))
        normalized_actual = normalize(read_text(agent_response))
        found = -1
        if is_blank(normalized_expected):
            status, reason = MatchStatus.INVALID_EXPECTED, _EMPTY_EXPECTED_REASON
        elif is_blank(normalized_actual):
            status, reason = MatchStatus.INVALID_RESPONSE, EMPTY_RESPONSE_REASON
        else:
            if self._whole_words:
                found, first = find_whole_word(normalized_actual, normalized_expected)
            else:
                found = first = normalized_actual.find(normalized_expected)
            quoted = excerpt(normalized_expected)
            if found >= 0:
                status, reason = MatchStatus.MATCH, f"Response contains {quoted} at position {found}"
            elif first >= 0:
                word = excerpt(word_around(normalized_actual, first, first + len(normalized_expected)))
                status = MatchStatus.MISMATCH
                reason = f"Response contains {quoted} only inside a longer word or number ({word})"
            else:
                status, reason = MatchStatus.MISMATCH, f"Response does not contain {quoted}"
        return verdict_result(
            status,
            reason,
            expected_output,
            agent_response,
            normalized_expected,
            normalized_actual,
            extra={"found_at": found if found >= 0 else None},
        )
