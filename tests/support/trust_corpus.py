"""The trust corpus (tests/data/corpus, issue 23) graded: shared by its test and bench/trust.py."""

from __future__ import annotations

import functools
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.graders import ChoiceGrader, ExtractGrader, GraderInterface, NumericGrader

CORPUS = Path(__file__).parents[1] / "data" / "corpus" / "replies.jsonl"
LABELS = ("correct", "wrong", "unclear")


def load() -> list[dict[str, str]]:
    with CORPUS.open(encoding="utf-8") as rows:
        return [json.loads(line) for line in rows]


@functools.lru_cache(maxsize=64)
def grader_for(name: str, language: str) -> GraderInterface:
    """The grader a row names, for its language (extraction reads that language and English)."""
    languages = list(dict.fromkeys((language, "english")))
    if name == "tf":
        return ExtractGrader("extract", dict(ExtractGrader.presets[language].config))
    if name == "tf-multi":
        return ExtractGrader("extract", dict(ExtractGrader.presets["multilingual"].config))
    if name in ("numeric", "choice"):
        return ExtractGrader("extract", {"grader": {"grader_id": name}, "languages": languages})
    if name == "numeric-bare":
        return NumericGrader()
    if name == "choice-bare":
        return ChoiceGrader()
    raise ValueError(f"unknown corpus grader {name!r}")


@dataclass(slots=True)
class Tally:
    """What grading the corpus found: false passes by class, clear rows read by language, misses."""

    false_passes: Counter[str] = field(default_factory=Counter)
    unclear: Counter[str] = field(default_factory=Counter)
    clear: Counter[str] = field(default_factory=Counter)
    read: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    def recall(self, language: str) -> float:
        return self.read[language] / self.clear[language] if self.clear[language] else 1.0


def grade_row(row: dict[str, str]) -> dict[str, Any]:
    return grader_for(row["grader"], row["language"]).grade(row["reply"], row["expected"])


def tally(rows: list[dict[str, str]]) -> Tally:
    found = Tally()
    for row in rows:
        result = grade_row(row)
        passed, status = result["passed"], result["details"]["match_status"]
        where = f"{row['id']} {row['language']} {row['class']} {row['grader']} {row['reply'][-120:]!r}"
        if row["label"] != "correct":
            found.unclear[row["class"]] += 1
            if passed:
                found.false_passes[row["class"]] += 1
                found.failures.append(f"false pass: {where}")
        if row["label"] in ("correct", "wrong"):
            found.clear[row["language"]] += 1
            wanted = "match" if row["label"] == "correct" else "mismatch"
            if status == wanted:
                found.read[row["language"]] += 1
            else:
                found.missed.append(f"{where} -> {status}: {result['details']['reason'][:160]}")
    return found
