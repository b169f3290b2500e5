"""Answer extraction held to account by a corpus of real-looking replies in nine languages.

Each reply is extracted, then its span graded by TrueFalseGrader with the language's locale preset (what the
``extract`` wrapper will do). Run with ``-s`` to see the per-language table.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from assay.graders import TrueFalseGrader
from assay.graders.extraction import extract_answer
from assay.graders.true_false import PRESETS
from assay.graders.verdict import MatchStatus

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
    status: MatchStatus | None
    """The wrapped grader's verdict on the span; None when extraction refused."""

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
GRADERS = {language: TrueFalseGrader(config=dict(PRESETS[language].config)) for language in LANGUAGES}


def _outcome(row: dict[str, str | None]) -> Outcome:
    extraction = extract_answer(row["reply"])
    if extraction.span is None:
        return Outcome(row, None, extraction.rule, None)
    result = GRADERS[str(row["language"])].grade(extraction.span, row["expected"])
    return Outcome(row, extraction.span, extraction.rule, MatchStatus(result["details"]["match_status"]))


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


def test_every_reply_that_is_not_clear_is_refused(outcomes: list[Outcome]) -> None:
    accepted = [str(o) for o in outcomes if o.row["kind"] != "clear" and o.span is not None]
    assert accepted == []


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
    false_passes = sum(o.passed and o.row["means"] != o.row["expected"] for o in outcomes)
    print(f"\n{'language':<12} {'replies':>7} {'clear':>5} {'read':>5} {'recall':>7}")
    for language, (read, clear) in table.items():
        replies = sum(o.row["language"] == language for o in outcomes)
        print(f"{language:<12} {replies:>7} {clear:>5} {read:>5} {read / clear:>7.1%}")
    print(f"{'all':<12} {len(outcomes):>7} {total[1]:>5} {total[0]:>5} {total[0] / total[1]:>7.1%}")
    print(f"false passes: {false_passes}; refusals by rule: {dict(sorted(refusals.items()))}")
    missed = [str(o) for o in outcomes if o.row["kind"] == "clear" and not o.recognised]
    print("clear replies not recognised:\n  " + "\n  ".join(missed))
    assert total[0] >= MIN_RECALL * total[1]
    low = {
        language: f"{read}/{clear}" for language, (read, clear) in table.items() if read < MIN_RECALL * clear
    }
    assert low == {}
