"""What a grader returns, typed: one outcome vocabulary for graders, storage, API, summary and UI.

``grade()`` keeps returning the dict ``{"passed", "score", "details"}`` with ``details.match_status`` and
``details.reason`` (docs/decisions.md#the-grading-result and docs/decisions.md#match-statuses). Graders
build it through :class:`Verdict`, so every grader fills the same keys the same way and ``passed`` always
means ``match_status == "match"``.

A verdict may also give ``details.reason_code``: a short word naming the rule that decided it (the
``extract`` grader's refusals: ``hedged``, ``negated``...). The platform stores it beside the match status,
so results can be counted and filtered by it, without knowing the grader. Two more shared keys: the answer
a grader read in a longer reply (``details.extraction.span``, answer extraction's) and a judge's reasoning
(``details.explanation``).

The platform reads a result once, at ``grade()``'s boundary, into a :class:`VerdictRecord` whose typed
fields every reader after it uses; ``details`` stays the grader's own, whole.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, NamedTuple, TypedDict

from assay.graders.contract.reply import AgentReply
from assay.json_types import JsonObject


class MatchStatus(StrEnum):
    """The kind of a verdict. Only ``match`` passes; the ``invalid_*`` kinds say an input was unusable."""

    MATCH = "match"
    MISMATCH = "mismatch"
    INVALID_RESPONSE = "invalid_response"
    """The answer is empty, unreadable or ambiguous: it does not say anything the grader can judge."""
    INVALID_EXPECTED = "invalid_expected"
    """The expected output can never be matched (a preflight finds these before any agent call)."""

    @property
    def is_invalid(self) -> bool:
        """Whether this kind says an input was unusable (rather than judged)."""
        return self in INVALID_STATUSES


INVALID_STATUSES = frozenset({MatchStatus.INVALID_RESPONSE, MatchStatus.INVALID_EXPECTED})


class VerdictReport(StrEnum):
    """What a grader's verdicts support beyond pass/fail, declared by the grader class."""

    PASS_FAIL = "pass_fail"
    """Pass rate and counts by outcome only."""
    BINARY = "binary"
    """A confusion matrix of expected by actual label (see ``GraderInterface.report_labels``)."""
    SCORE = "score"
    """A distribution of scores in [0, 1] (graded similarity, overlap, weighted composition)."""


class GradeResult(TypedDict):
    """The grading result ``grade()`` returns: ``details`` always holds ``match_status`` and ``reason``."""

    passed: bool
    score: float
    details: JsonObject


EMPTY_RESPONSE_REASON = "Empty or null response"

ERROR_KEY = "error"
"""A details key set only when the grader could not judge at all (its model judge failed, say): the value is
an error reason (``invalid_judgement``...). Such a verdict is ``invalid_response`` and fails; an evaluation
stores it as a case error with that reason, like a target's, so it can be counted and filtered apart."""


_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})


class Verdict(NamedTuple):
    """One verdict before it becomes ``grade()``'s dict; ``extra`` holds the grader's own details keys.

    A named tuple rather than a frozen dataclass: just as immutable, and built in a third of the time,
    which matters when the record is most of a fast grader's cost per call.
    """

    status: MatchStatus
    reason: str
    expected_original: Any
    actual_original: Any
    normalized_expected: Any = None
    normalized_actual: Any = None
    score: float | None = None
    """Defaults to 1.0 for a match and 0.0 otherwise; graded graders give their similarity."""
    extra: Mapping[str, Any] = _NO_EXTRA
    leading: Mapping[str, Any] = _NO_EXTRA
    """Grader keys placed before the common ones (true-false's ``expected_bool``/``actual_bool``)."""

    def result(self) -> GradeResult:
        """The dict ``grade()`` returns."""
        leading = dict(self.leading) if self.leading else None
        return verdict_result(*self[:-1], leading=leading)


def verdict_result(
    status: MatchStatus,
    reason: str,
    expected_original: Any,
    actual_original: Any,
    normalized_expected: Any = None,
    normalized_actual: Any = None,
    score: float | None = None,
    extra: Mapping[str, Any] = _NO_EXTRA,
    leading: JsonObject | None = None,
) -> GradeResult:
    """The dict ``grade()`` returns for a :class:`Verdict` with these fields.

    Fast graders call it directly: building the record first costs more than the rest of their work.
    ``leading``, a dict made for this call, becomes the details, its keys first (true-false's, as
    docs/decisions.md#true-false-details orders them): filled in place rather than copied.
    """
    passed = status is MatchStatus.MATCH
    if actual_original.__class__ is AgentReply:  # details are stored as JSON: the reply's text stands for it
        actual_original = actual_original.text
    details: JsonObject = {} if leading is None else leading
    details["match_status"] = status._value_
    details["reason"] = reason
    details["expected_original"] = expected_original
    details["actual_original"] = actual_original
    details["normalized_expected"] = normalized_expected
    details["normalized_actual"] = normalized_actual
    if extra:
        details.update(extra)
    return {
        "passed": passed,
        "score": (1.0 if passed else 0.0) if score is None else float(score),
        "details": details,
    }


def _mapping(value: object) -> Mapping[str, object] | None:
    # ``type(...) is dict`` first: an ABC isinstance check is slow, and this runs for every result
    return value if type(value) is dict or isinstance(value, Mapping) else None


def _status(raw: object, passed: object) -> MatchStatus:
    status = _BY_VALUE.get(raw) if isinstance(raw, str) else None
    if status is not None:
        return status
    return MatchStatus.MATCH if passed is True else MatchStatus.MISMATCH


def _error(raw: object, passed: object) -> str | None:
    return raw if isinstance(raw, str) and passed is not True and _ERROR_REASON.fullmatch(raw) else None


def _code(raw: object) -> str | None:
    return raw if isinstance(raw, str) and _REASON_CODE.fullmatch(raw) else None


def _text(raw: object) -> str | None:
    return raw if isinstance(raw, str) else None


def _span(extraction: object) -> str | None:
    if extraction is None:  # most verdicts: an ABC isinstance check of None is slow
        return None
    return _text(extraction.get("span")) if isinstance(extraction, Mapping) else None


def status_of(result: Mapping[str, object]) -> MatchStatus:
    """The outcome kind of a grading result (one without a known kind: match if it passed, else mismatch)."""
    details = _mapping(result.get("details"))
    return _status(details.get("match_status") if details is not None else None, result.get("passed"))


def error_of(result: Mapping[str, object]) -> str | None:
    """The error reason of a verdict whose grader could not judge (see ``ERROR_KEY``), else ``None``."""
    details = _mapping(result.get("details"))
    return _error(details.get(ERROR_KEY), result.get("passed")) if details is not None else None


_ERROR_REASON = re.compile(r"[a-z][a-z0-9_]{0,99}")
"""An error reason (``invalid_judgement``, ``judge_http_503_after_retries``), as stored in a 100-character
column; any other value under the key is a grader's own detail, not an error."""


_BY_VALUE: dict[str, MatchStatus] = {status.value: status for status in MatchStatus}


REASON_CODE = "reason_code"
"""The details key of a verdict's reason code."""
MAX_REASON_CODE_LENGTH = 40
_REASON_CODE = re.compile(r"[a-z][a-z0-9_.-]{0,39}")


def reason_code_of(details: object) -> str | None:
    """The reason code a verdict's details give, if it is one (lower-case word, at most 40 characters).

    Details come from any grader, plugins included: anything else reads as no code rather than an error.
    """
    read = _mapping(details)
    return _code(read.get(REASON_CODE)) if read is not None else None


EXPLANATION_KEY = "explanation"
"""The details key of a judge's reasoning."""
EXTRACTION_KEY = "extraction"
"""The details key of answer extraction's trace: ``{"span", "rule", "reason"}``, the span being the answer."""


def reason_of(details: Mapping[str, object]) -> str | None:
    """The reason a verdict's details give, if it is text."""
    return _text(details.get("reason"))


def answer_of(details: Mapping[str, object]) -> str | None:
    """The answer a grader read in a longer reply (answer extraction's span), if it read one."""
    return _span(details.get(EXTRACTION_KEY))


def explanation_of(details: Mapping[str, object]) -> str | None:
    """A judge's reasoning, if the verdict has one."""
    return _text(details.get(EXPLANATION_KEY))


@dataclass(slots=True)
class VerdictRecord:
    """A ``grade()`` result read once into typed fields; ``details`` is the grader's own, unchanged.

    ``error`` is set when the grader could not judge at all (:func:`error_of`): such a verdict fails and is
    stored as a case error. Made once per graded case, on a run's hot path, by :meth:`of` alone: positional
    arguments and no freezing there, since keywords cost twice and a frozen dataclass six times as much.
    """

    passed: bool
    score: float
    match_status: MatchStatus
    reason: str | None
    reason_code: str | None
    answer: str | None
    explanation: str | None
    error: str | None
    details: JsonObject

    @classmethod
    def of(cls, result: GradeResult) -> VerdictRecord:
        """The record of a grading result (its shared keys read as they are typed, anything else left out)."""
        details = result["details"]
        if type(details) is not dict:
            details = dict(details) if isinstance(details, Mapping) else {}
        # Positional, in field order: see the class docstring.
        get = details.get
        passed = result["passed"]
        return cls(
            bool(passed),
            float(result["score"]),
            _status(get("match_status"), passed),
            _text(get("reason")),
            _code(get(REASON_CODE)),
            _span(get(EXTRACTION_KEY)),
            _text(get(EXPLANATION_KEY)),
            _error(get(ERROR_KEY), passed),
            details,
        )
