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
    "fuzzy": ("1.0.0", "9f8211b3746db58d"),
    "overlap": ("1.0.0", "387828a2e3fddc9a"),
}
INPUTS: list[object] = [
    None, "", " ", "true", "True", "TRUE", "tRuE", "yes", " Yes ", "YES", "1", "0", "no", "No", "NO",
    "false", "False", "FALSE", "maybe", "on", "Paris", " paris\n", "new  york", "New York",
    True, False, 1, 0, 1.0, "straße", "STRASSE", "\x00", "\ud800",
]  # fmt: skip


def verdict_digest(grader: GraderInterface) -> str:
    digest = hashlib.sha256()
    for response, expected in itertools.product(INPUTS, repeat=2):
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
