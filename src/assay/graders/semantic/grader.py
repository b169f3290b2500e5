"""The semantic grader: does the answer mean what the expected text says? Cosine of sentence embeddings.

Both texts are embedded with all-MiniLM-L6-v2 (see :mod:`assay.graders.semantic.embedding`: CPU, offline, the
model shipped in PyPI packages of the optional ``semantic`` extra) and the answer passes when the cosine of
the two vectors reaches ``threshold``. The score is the cosine clipped to [0, 1], kept on a mismatch.

Embeddings measure topic and wording more than truth: "The answer is 42" and "The answer is 43" are about
0.86 alike, "yes" and "no" about 0.73. The grader suits free-text answers that may be phrased many ways;
a short fact (a number, a name, yes/no) is better graded by an exact grader.

Without the extra installed the grader is still listed, as unavailable with the install command: the grader
service refuses to build it, and called directly it never raises: every verdict is ``invalid_expected``
with that reason (no expected output can be matched here, and a preflight says so before any agent call).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from assay.graders.contract.base import GraderInterface, Preset
from assay.graders.contract.verdict import (
    EMPTY_RESPONSE_REASON,
    GradeResult,
    MatchStatus,
    Verdict,
    VerdictReport,
)
from assay.graders.reading.text import collapse_whitespace, is_blank, read_text
from assay.graders.reading.threshold import clamp_score, judge, threshold_schema
from assay.graders.semantic import embedding

_EMPTY_EXPECTED_REASON = "Expected output is empty: there is no meaning to compare"
_MEASURE = "Cosine similarity"

PRESETS: dict[str, Preset] = {
    "lenient": Preset("Same topic and gist, looser wording (cosine 0.7)", {"threshold": 0.7}),
    "strict": Preset("Close paraphrases only (cosine 0.9)", {"threshold": 0.9}),
}


class SemanticGrader(GraderInterface):
    """Passes when the answer's sentence embedding is at least ``threshold`` similar (cosine) to the
    expected text's."""

    default_id: ClassVar[str] = "semantic"
    name: ClassVar[str] = "Semantic Similarity"
    description: ClassVar[str] = (
        "Cosine similarity of sentence embeddings (all-MiniLM-L6-v2, on the CPU, offline) compared with a "
        f"threshold; paraphrases pass. Optional: {embedding.INSTALL_COMMAND}"
    )
    type: ClassVar[str] = "semantic"
    version: ClassVar[str] = "1.1.0"
    fresh_results: ClassVar[bool] = True
    cpu_bound: ClassVar[bool] = True  # two embeddings per answer, ~6 ms; the model is thread-safe
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {"threshold": threshold_schema(0.8, "cosine similarity")},
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "The same text, or a paraphrase too close to tell apart",
        "0.9": "A close paraphrase (passes the 'strict' preset)",
        "0.8": "The same meaning in other words (passes the default threshold); beware: so is a sentence "
        "that differs only in one number or name",
        "0.7": "Same topic and gist (passes the 'lenient' preset)",
        "0.5": "Related topic, different statement",
        "0.0": "Unrelated, or opposite in direction (negative cosines are clipped to 0); or an empty "
        "answer or expected output",
    }
    report: ClassVar[VerdictReport] = VerdictReport.SCORE
    presets: ClassVar[Mapping[str, Preset]] = PRESETS

    __slots__ = ("_threshold",)

    def __init__(self, grader_id: str = "semantic", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        self._threshold: float = float(self._config["threshold"])
        self._freeze()

    @property
    def threshold(self) -> float:
        """The lowest cosine similarity that passes."""
        return self._threshold

    def unavailable_reason(self) -> str | None:
        """The missing packages and the install command, or why the model failed to load."""
        return embedding.unavailable_reason()

    def check_expected(self, expected_output: Any) -> str | None:
        """A blank expected text has no meaning to compare; nothing can be matched without the model."""
        if is_blank(read_text(expected_output)):
            return _EMPTY_EXPECTED_REASON
        reason = embedding.unavailable_reason()
        return None if reason is None else f"The semantic grader is unavailable: {reason}"

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Grade one response; the score is the cosine similarity in [0, 1], kept on a mismatch."""
        normalized_expected = collapse_whitespace(read_text(expected_output))
        normalized_actual = collapse_whitespace(read_text(agent_response))
        score = 0.0
        truncated = False
        if is_blank(normalized_expected):
            status, reason = MatchStatus.INVALID_EXPECTED, _EMPTY_EXPECTED_REASON
        elif is_blank(normalized_actual):
            status, reason = MatchStatus.INVALID_RESPONSE, EMPTY_RESPONSE_REASON
        else:
            try:
                expected_vector = embedding.embed(normalized_expected)
                actual_vector = embedding.embed(normalized_actual)
            except Exception as exc:  # the model is missing or broken: no answer can be judged here
                status, reason = MatchStatus.INVALID_EXPECTED, f"The semantic grader is unavailable: {exc}"
            else:
                score = clamp_score(expected_vector.cosine(actual_vector))
                status, reason = judge(score, self._threshold, _MEASURE)
                truncated = expected_vector.truncated or actual_vector.truncated
                if truncated:
                    reason += f"; a long text was compared on its first {embedding.MAX_TOKENS} tokens only"
        return Verdict(
            status,
            reason,
            expected_output,
            agent_response,
            normalized_expected[: embedding.MAX_CHARS],
            normalized_actual[: embedding.MAX_CHARS],
            score=score,
            extra={"model": embedding.MODEL_ID, "threshold": self._threshold, "truncated": truncated},
        ).result()
