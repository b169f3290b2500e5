"""``assay run``'s summary prints the label report's own labels (a plugin's ``yes``/``no``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from assay.cli.run_summary import print_summary
from assay.graders import StringMatchGrader, VerdictReport
from assay.services.figures.summary import ReportShape, summarize


class _Moods(StringMatchGrader):
    """A binary-report grader whose labels are ``yes``, ``no`` and ``unsure``, as a plugin's may be."""

    report = VerdictReport.BINARY
    __slots__ = ()

    @property
    def verdict_labels(self) -> tuple[str, ...]:
        return ("yes", "no", "unsure")

    def report_labels(self, details: Mapping[str, Any]) -> tuple[str | None, str | None]:
        return details["expected_original"], details["actual_original"]


def test_a_report_with_labels_other_than_true_and_false_is_printed_with_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    grader = _Moods()
    shape = ReportShape.of(grader)
    facts = []
    for expected, actual in (("yes", "yes"), ("no", "unsure"), ("unsure", "maybe")):
        verdict = grader.grade(actual, expected)
        facts.append(
            shape.facts(verdict["passed"], verdict["score"], None, 5.0, "x", None, verdict["details"])
        )

    print_summary(summarize(facts, total_cases=3, shape=shape), 0.5)

    lines = capsys.readouterr().err.splitlines()
    assert "expected \\ actual  yes  no  unsure  invalid" in lines
    assert "no                 0    0   1       0" in lines
    assert "unsure             0    0   0       1" in lines  # "maybe" is no label: invalid
