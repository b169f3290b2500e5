"""The ``extract`` grader held to account by a corpus of real-looking replies in nine languages.

Each reply is graded by ExtractGrader with its language's preset (extraction reading that language and
English, true-false judging the span). Run with ``-s`` to see the per-language table.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from assay.graders import ExtractGrader
from assay.graders.contract.verdict import MatchStatus
from assay.graders.extract.extraction import REFUSALS

CORPUS = Path(__file__).parents[2] / "data" / "answer_corpus.jsonl"
LANGUAGES = (
    "english",
    "french",
    "german",
    "spanish",
    "italian",
    "portuguese",
    "japanese",
    "chinese",
    "russian",
)
KINDS = ("clear", "negated", "hedged", "mixed", "question", "conflicting")
MIN_RECALL = 0.95


@dataclass(frozen=True, slots=True)
class Outcome:
    """One corpus reply as extracted and graded."""

    row: dict[str, str | None]
    span: str | None
    rule: str
    status: MatchStatus
    """The grader's verdict: invalid_response when extraction refused."""

    @property
    def passed(self) -> bool:
        return self.status is MatchStatus.MATCH

    @property
    def recognised(self) -> bool:
        return self.status in (MatchStatus.MATCH, MatchStatus.MISMATCH)

    def __str__(self) -> str:
        return (
            f"{self.row['language']} {self.row['kind']}: {self.row['reply']!r} -> {self.span!r} ({self.rule})"
        )


def _load() -> list[dict[str, str | None]]:
    with CORPUS.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


ROWS = _load()
GRADERS = {
    language: ExtractGrader("extract", dict(ExtractGrader.presets[language].config)) for language in LANGUAGES
}


def _outcome(row: dict[str, str | None]) -> Outcome:
    result = GRADERS[str(row["language"])].grade(row["reply"], row["expected"])
    trace = result["details"]["extraction"]
    return Outcome(row, trace["span"], trace["rule"], MatchStatus(result["details"]["match_status"]))


@pytest.fixture(scope="module")
def outcomes() -> list[Outcome]:
    return [_outcome(row) for row in ROWS]


def test_the_corpus_is_large_varied_and_well_formed() -> None:
    assert len(ROWS) >= 300
    for row in ROWS:
        assert set(row) == {"reply", "language", "kind", "expected", "means"}, row
        assert row["language"] in LANGUAGES, row
        assert row["kind"] in KINDS, row
        assert row["expected"] in ("true", "false"), row
        assert row["means"] in ("true", "false", None), row
        assert isinstance(row["reply"], str), row
        assert row["reply"].strip(), row
        if row["kind"] == "clear":
            assert row["means"] is not None, row  # a clear reply says one boolean
    assert len({(row["language"], row["reply"]) for row in ROWS}) == len(ROWS), "a reply appears twice"
    clear = [row for row in ROWS if row["kind"] == "clear"]
    assert len(ROWS) - len(clear) >= 0.4 * len(ROWS)
    assert set(Counter(row["kind"] for row in ROWS)) == set(KINDS)
    for language in LANGUAGES:
        mine = [row for row in clear if row["language"] == language]
        assert any(row["means"] == row["expected"] for row in mine), language
        assert any(row["means"] != row["expected"] for row in mine), language
        assert {row["kind"] for row in ROWS if row["language"] == language} == set(KINDS), language


def test_no_reply_passes_unless_it_means_what_was_expected(outcomes: list[Outcome]) -> None:
    false_passes = [str(o) for o in outcomes if o.passed and o.row["means"] != o.row["expected"]]
    assert false_passes == []


def test_every_reply_that_is_not_clear_is_refused_naming_the_rule(outcomes: list[Outcome]) -> None:
    accepted = [str(o) for o in outcomes if o.row["kind"] != "clear" and o.span is not None]
    assert accepted == []
    for o in outcomes:
        if o.span is None:
            assert o.status is MatchStatus.INVALID_RESPONSE, str(o)
            assert o.rule in REFUSALS, str(o)


def test_a_recognised_clear_reply_is_read_as_what_it_means(outcomes: list[Outcome]) -> None:
    misread = [
        str(o)
        for o in outcomes
        if o.row["kind"] == "clear" and o.recognised and o.passed != (o.row["means"] == o.row["expected"])
    ]
    assert misread == []


def test_clear_replies_are_recognised_overall_and_per_language(outcomes: list[Outcome]) -> None:
    table: dict[str, list[int]] = {language: [0, 0] for language in LANGUAGES}
    refusals = Counter(o.rule for o in outcomes if o.span is None)
    for o in outcomes:
        if o.row["kind"] == "clear":
            table[str(o.row["language"])][1] += 1
            table[str(o.row["language"])][0] += o.recognised
    total = [sum(v[0] for v in table.values()), sum(v[1] for v in table.values())]
    columns = ("replies", "refused", "clear", "read", "recall", "false passes")
    print(f"\n{'language':<12} " + " ".join(f"{c:>7}" for c in columns))
    for language in (*LANGUAGES, None):
        mine = [o for o in outcomes if language in (None, o.row["language"])]
        read, clear = (
            (sum(v[i] for v in table.values()) for i in (0, 1)) if language is None else table[language]
        )
        false_passes = sum(o.passed and o.row["means"] != o.row["expected"] for o in mine)
        refused = sum(o.span is None for o in mine)
        print(
            f"{language or 'all':<12} {len(mine):>7} {refused:>7} {clear:>5} {read:>5} {read / clear:>7.1%} "
            f"{false_passes:>7}"
        )
    print(f"refusals by rule: {dict(sorted(refusals.items()))}")
    missed = [str(o) for o in outcomes if o.row["kind"] == "clear" and not o.recognised]
    print("clear replies not recognised:\n  " + "\n  ".join(missed))
    assert total[0] >= MIN_RECALL * total[1]
    low = {
        language: f"{read}/{clear}" for language, (read, clear) in table.items() if read < MIN_RECALL * clear
    }
    assert low == {}
