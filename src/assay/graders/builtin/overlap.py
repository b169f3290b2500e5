"""The overlap grader: how many of the expected words does the answer have (token F1, ROUGE-L)?"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

from rapidfuzz.distance import LCSseq

from assay.graders.contract.base import GraderInterface
from assay.graders.contract.verdict import (
    EMPTY_RESPONSE_REASON,
    GradeResult,
    MatchStatus,
    Verdict,
    VerdictReport,
)
from assay.graders.reading.text import is_blank, read_text
from assay.graders.reading.threshold import clamp_score, judge, threshold_schema
from assay.graders.reading.tokens import tokenizer

MAX_LCS_CELLS = 100_000_000
"""ROUGE-L's longest common subsequence costs O(n*m) (bit-parallel in rapidfuzz: ~5 ms at 10,000 tokens a
side, ~0.3 s at 20,000 on a slow machine). Past this many token pairs the sequences are cut (see ``_cut``)."""
LCS_SIDE = 10_000
"""Tokens kept on each side when both are longer than this; a shorter side is never cut."""

_EMPTY_EXPECTED_REASON = "Expected output is empty: there is nothing to match"


class _Overlap(NamedTuple):
    common: int
    """Tokens shared: the bag intersection's size (F1) or the longest common subsequence's (ROUGE-L)."""
    expected: int
    actual: int
    truncated: bool


def _bag_overlap(expected: list[str], actual: list[str]) -> _Overlap:
    """SQuAD's count: each token shared as many times as it occurs on both sides."""
    small, large = sorted((Counter(expected), Counter(actual)), key=len)
    common = sum(min(count, large.get(token, 0)) for token, count in small.items())
    return _Overlap(common, len(expected), len(actual), False)


def _cut(expected: list[str], actual: list[str]) -> tuple[list[str], list[str]]:
    """Prefixes within ``MAX_LCS_CELLS`` token pairs: both at ``LCS_SIDE``, or the longer one shortened."""
    shorter = min(len(expected), len(actual))
    if shorter >= LCS_SIDE:
        return expected[:LCS_SIDE], actual[:LCS_SIDE]
    keep = MAX_LCS_CELLS // shorter
    return expected[:keep], actual[:keep]


def _lcs_overlap(expected: list[str], actual: list[str]) -> _Overlap:
    """Longest common subsequence of tokens (rapidfuzz's bit-parallel LCS over token ids, exact).

    Past ``MAX_LCS_CELLS`` it is searched in prefixes only but the counts stay the full lengths, so the
    score is a lower bound: a long answer never passes on a part that was not read.
    """
    truncated = len(expected) * len(actual) > MAX_LCS_CELLS
    searched_expected, searched_actual = _cut(expected, actual) if truncated else (expected, actual)
    ids: dict[str, int] = {}  # ints compare exactly: no reliance on string hashes inside rapidfuzz
    expected_ids = [ids.setdefault(token, len(ids)) for token in searched_expected]
    actual_ids = [ids.setdefault(token, len(ids)) for token in searched_actual]
    common = int(LCSseq.similarity(expected_ids, actual_ids))
    return _Overlap(common, len(expected), len(actual), truncated)


class _Metric(NamedTuple):
    overlap: Callable[[list[str], list[str]], _Overlap]
    measure: str
    shared: str
    """How the reason says where the shared tokens are in the response."""


METRICS: dict[str, _Metric] = {
    "f1": _Metric(_bag_overlap, "Token F1", "are among"),
    "rouge_l": _Metric(_lcs_overlap, "ROUGE-L", "appear in order among"),
}


def _ratio(part: int, whole: int) -> float:
    return clamp_score(part / whole) if whole else 0.0


_REMOVED = {
    (True, True): " once punctuation and articles are removed",
    (True, False): " once punctuation is removed",
    (False, True): " once articles are removed",
    (False, False): "",  # a text of invisible characters (zero-width spaces, byte-order marks)
}


def _no_tokens_reason(ignore_punctuation: bool, ignore_articles: bool) -> str:
    return "Expected output has no words" + _REMOVED[ignore_punctuation, ignore_articles]


class OverlapGrader(GraderInterface):
    """Passes when the answer's tokens overlap the expected ones enough: SQuAD token F1 or ROUGE-L."""

    default_id: ClassVar[str] = "overlap"
    name: ClassVar[str] = "Token Overlap"
    description: ClassVar[str] = (
        "Word overlap of the answer with the expected text: SQuAD-style token F1 (bag of words) or "
        "ROUGE-L (longest common word subsequence), compared with a threshold; any script, Chinese, "
        "Japanese and Korean counted per character"
    )
    type: ClassVar[str] = "overlap"
    version: ClassVar[str] = "1.1.0"
    fresh_results: ClassVar[bool] = True
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "metric": {
                "type": "string",
                "enum": list(METRICS),
                "description": (
                    "'f1': the harmonic mean of precision (share of the answer's tokens found in the "
                    "expected text) and recall (share of the expected tokens found in the answer), "
                    "counting tokens as a bag, word order ignored (SQuAD). 'rouge_l': the same F-measure "
                    "over the longest common subsequence of tokens, so order counts (when the two token "
                    f"counts multiply past {MAX_LCS_CELLS:,}, searched in the texts' first tokens, "
                    f"{LCS_SIDE:,} a side when both are that long: the score is then a lower bound). "
                    "Negation words count like any other token: 'not Paris' has F1 0.67 against "
                    "'Paris'. Tokens: words separated by whitespace in any script, each Chinese character, "
                    "Japanese kana and Korean syllable a token of its own."
                ),
                "default": "f1",
            },
            "threshold": threshold_schema(0.5, "F-measure"),
            "case_sensitive": {
                "type": "boolean",
                "description": "Whether capitalisation counts (off: both texts are case-folded, as SQuAD)",
                "default": False,
            },
            "ignore_punctuation": {
                "type": "boolean",
                "description": (
                    "Whether punctuation is deleted before splitting, as SQuAD does ('U.S.' is 'us', "
                    "'1,000' is '1000'), except what gives a number its value: '-5' and '3.5' stay as "
                    "they are, never equal to '5' or '35'; off: punctuation stays part of the words"
                ),
                "default": True,
            },
            "ignore_articles": {
                "type": "boolean",
                "description": "Whether the English articles a, an and the are dropped, as SQuAD does",
                "default": True,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "The same tokens (f1: the same bag in any order; rouge_l: the same sequence)",
        "0.5": "About half the tokens shared, e.g. the expected answer inside a sentence twice its length",
        "0.0": "No token in common, or an empty answer or expected output",
    }
    report: ClassVar[VerdictReport] = VerdictReport.SCORE

    __slots__ = ("_metric", "_metric_name", "_no_expected_tokens", "_threshold", "_tokens")

    def __init__(self, grader_id: str = "overlap", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        self._metric_name: str = self._config["metric"]
        self._metric = METRICS[self._metric_name]
        self._threshold: float = float(self._config["threshold"])
        ignore_punctuation: bool = self._config["ignore_punctuation"]
        ignore_articles: bool = self._config["ignore_articles"]
        self._tokens = tokenizer(
            case_sensitive=self._config["case_sensitive"],
            ignore_punctuation=ignore_punctuation,
            ignore_articles=ignore_articles,
        )
        self._no_expected_tokens = _no_tokens_reason(ignore_punctuation, ignore_articles)
        self._freeze()

    @property
    def metric(self) -> str:
        """``"f1"`` or ``"rouge_l"``."""
        return self._metric_name

    @property
    def threshold(self) -> float:
        """The lowest F-measure that passes."""
        return self._threshold

    def tokens(self, value: object) -> list[str]:
        """The tokens this grader compares for ``value``."""
        return self._tokens(read_text(value))

    def _expected_problem(self, expected_text: str, expected_tokens: list[str]) -> str | None:
        if is_blank(expected_text):
            return _EMPTY_EXPECTED_REASON
        return None if expected_tokens else self._no_expected_tokens

    def check_expected(self, expected_output: Any) -> str | None:
        """Why the expected output has nothing to overlap with (blank, or only punctuation and articles)."""
        expected_text = read_text(expected_output)
        return self._expected_problem(expected_text, self._tokens(expected_text))

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Grade one response; details give precision, recall and the token counts behind the score."""
        expected_text, actual_text = read_text(expected_output), read_text(agent_response)
        expected_tokens = self._tokens(expected_text)
        actual_tokens = self._tokens(actual_text)
        score, precision, recall, overlap = 0.0, None, None, None
        problem = self._expected_problem(expected_text, expected_tokens)
        if problem is not None:
            status, reason = MatchStatus.INVALID_EXPECTED, problem
        elif is_blank(actual_text):
            status, reason = MatchStatus.INVALID_RESPONSE, EMPTY_RESPONSE_REASON
        else:  # an answer of no tokens ("...", "The") shares none: F 0, said by the counts in the reason
            overlap = self._metric.overlap(expected_tokens, actual_tokens)
            precision = _ratio(overlap.common, overlap.actual)
            recall = _ratio(overlap.common, overlap.expected)
            score = _ratio(2 * overlap.common, overlap.expected + overlap.actual)  # = 2PR / (P + R)
            status, reason = judge(score, self._threshold, self._metric.measure)
            reason += (
                f": {overlap.common} of the {overlap.expected} expected tokens {self._metric.shared} "
                f"the response's {overlap.actual}"
            )
            if overlap.truncated:
                reason += ", a lower bound: the common sequence was searched in the texts' first tokens only"
        return Verdict(
            status,
            reason,
            expected_output,
            agent_response,
            " ".join(expected_tokens),
            " ".join(actual_tokens),
            score=score,
            extra={
                "metric": self._metric_name,
                "threshold": self._threshold,
                "precision": precision,
                "recall": recall,
                "common_tokens": None if overlap is None else overlap.common,
                "expected_tokens": len(expected_tokens),
                "response_tokens": len(actual_tokens),
                "truncated": overlap is not None and overlap.truncated,
            },
        ).result()
