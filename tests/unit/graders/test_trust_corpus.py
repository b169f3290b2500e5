"""The trust corpus (tests/data/corpus, issue 23): no false pass in any class, clear replies read in every
language. Run with ``-s`` to see the figures; bench/trust.py prints them with timings."""

from __future__ import annotations

import functools
from collections import Counter

from tests.support.trust_corpus import LABELS, Tally, load, tally

MIN_RECALL = 0.90
MIN_LANGUAGES = 6
MIN_ROWS = 1000
CLASSES = {
    "correction", "two_answers", "bound", "not_own", "echoed_question", "sarcasm", "read_window", "hedged",
    "negated", "question", "underflow", "lookalike", "emphatic", "long", "bidi", "multilingual", "json",
    "tagged", "labelled", "contrastive", "plain",
}  # fmt: skip
"""Every class of issue 23 (what passed that should not, and the clear forms to read) has rows."""


@functools.cache
def _tally() -> Tally:
    return tally(load())


def test_the_corpus_covers_the_classes_languages_and_sizes() -> None:
    rows = load()
    assert len(rows) >= MIN_ROWS
    assert {row["label"] for row in rows} == set(LABELS)
    assert {row["class"] for row in rows} >= CLASSES
    languages = Counter(row["language"] for row in rows if row["label"] != "unclear")
    assert len(languages) >= MIN_LANGUAGES
    sizes = [len(row["reply"].encode()) for row in rows]
    assert max(sizes) >= 45_000
    assert sum(5_000 <= size <= 50_000 for size in sizes) >= 50


def test_no_reply_that_is_wrong_or_unclear_passes() -> None:
    found = _tally()
    print("\nfalse passes by class:")
    for cls, count in sorted(found.unclear.items()):
        print(f"  {cls:16} {found.false_passes[cls]:4} of {count}")
    assert found.failures == []


def test_clear_replies_are_read_in_every_language() -> None:
    found = _tally()
    print("\nrecall on clear rows (correct passes, wrong fails):")
    for language in sorted(found.clear):
        read, clear = found.read[language], found.clear[language]
        print(f"  {language:12} {read:4}/{clear:<4} {found.recall(language):.1%}")
    low = {language for language in found.clear if found.recall(language) < MIN_RECALL}
    assert low == set(), "\n".join(found.missed[:30])
