"""A grader's version must change whenever one of its verdicts could: pinned by a digest of its verdicts.

When this fails, the grader now judges some input differently. Bump its ``version`` (stored results say
which version graded them) and put the new version and digest here.
"""

from __future__ import annotations

import hashlib
import itertools
import json

import pytest

from assay.graders import BUILTIN_GRADERS, GraderInterface

PINNED = {
    "string-match": ("1.2.0", "32e779a2066e6c1b"),
    "true-false": ("1.0.0", "ee0717b774bbe50f"),
    "numeric": ("1.0.0", "6102d8ec21a739bc"),
    "json": ("1.0.0", "1cfeaa154136fef2"),
}
INPUTS: list[object] = [
    None, "", " ", "true", "True", "TRUE", "tRuE", "yes", " Yes ", "YES", "1", "0", "no", "No", "NO",
    "false", "False", "FALSE", "maybe", "on", "Paris", " paris\n", "new  york", "New York",
    True, False, 1, 0, 1.0, "straße", "STRASSE", "\x00", "\ud800",
]  # fmt: skip
EXTRA_INPUTS: dict[str, list[object]] = {
    "numeric": [
        "42", "The answer is 42.", "42.0", "1,234.5", "1234.5", "-3e2", "−300", "45%", "0.45", "$1,234",
        "3 or 4", "3.11.2", "2024-01-05", "1st", "3-5", "GPT-4", "3/4", "0.75", "1e999", 42, 7.5,
    ],
    "json": [
        '{"a": 1}', '{"a": 1.0}', '{"a": true}', '{"a": 1, "b": [1, 2]}', '[1, 2]', '"Paris"', "null", "42",
        '```json\n{"a": 1}\n```', 'Here:\n```json\n{"a": 2}\n```', '{"a": 1, "a": 2}', "{'a': 1}", "NaN",
        "[" * 101 + "]" * 101, "[" * 100 + "]" * 100,
    ],
}  # fmt: skip
"""Inputs a grader's own rules turn on, added to its product (the other graders' digests stay as they are)."""


def verdict_digest(grader: GraderInterface) -> str:
    digest = hashlib.sha256()
    inputs = INPUTS + EXTRA_INPUTS.get(grader.grader_id, [])
    for response, expected in itertools.product(inputs, repeat=2):
        result = grader.grade(response, expected)
        verdict = [
            result["passed"],
            result["score"],
            result["details"]["match_status"],
            result["details"]["reason"],
        ]
        digest.update(json.dumps(verdict, ensure_ascii=True).encode())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize("grader_class", BUILTIN_GRADERS, ids=lambda cls: cls.default_id)
def test_version_pins_verdicts(grader_class: type[GraderInterface]) -> None:
    grader = grader_class()
    version, digest = PINNED[grader.grader_id]
    assert (grader.version, verdict_digest(grader)) == (version, digest), (
        f"{grader.grader_id}: verdicts or version changed; bump the version and update PINNED"
    )
