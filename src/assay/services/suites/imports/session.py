"""One import in progress: the report it builds, and the rule that a check Assay cannot represent refuses the
import (every such check listed) unless the caller asked to drop it, and then it is listed as dropped."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from assay.errors import Loc, Problem, ValidationError
from assay.services.suites.case_keys import key_problems
from assay.services.suites.imports.checks import MODEL_GRADERS, checked, graders_in, unavailable_here
from assay.services.suites.imports.judged import JUDGE, JUDGED_NOTE
from assay.services.suites.imports.reading import MAX_ROWS
from assay.services.suites.imports.records import (
    Assertion,
    ImportedRow,
    ImportReport,
    LineReport,
    UnsupportedError,
)

__all__ = ["MAX_LISTED", "Session", "describe"]

MAX_LISTED = 1000
"""Refusals listed in one error; the rest are counted."""
_SHOWN_CHARS = 160
MODEL_NOTE = "model-judged: Assay's embedding model stands in for the source's, so verdicts may differ"
REGEX_NOTE = "RE2 syntax, and the answer is read without its surrounding whitespace"


def describe(assertion: Assertion) -> str:
    """A short, readable form of an assertion for the report."""
    text = json.dumps(assertion.to_json(), ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


class Session:
    """Collects rows and line reports; refuses at the end if anything could not be represented."""

    def __init__(
        self, source: str, *, drop_unsupported: bool, judge: Mapping[str, Any] | None = None
    ) -> None:
        self.source = source
        self.drop_unsupported = drop_unsupported
        self.judge = judge
        """The judge model-judged checks ask (an llm-judge config without the keys a check sets), if given."""
        self.report = ImportReport(source=source)
        self._refusals: list[Problem] = []
        self._refused = 0
        self._places: list[Loc] = []

    def line(self, place: Loc, *, file: str | None = None) -> LineReport:
        """A new line report at ``place`` (of ``file``, when not the imported file), kept in the report."""
        line = LineReport(place=place, file=file if file != self.source else None)
        self.report.lines.append(line)
        return line

    def add_row(self, row: ImportedRow, line: LineReport) -> None:
        """Keep ``row``, made from ``line``, for the output; past :data:`MAX_ROWS` rows the import stops."""
        if len(self.report.rows) >= MAX_ROWS:
            raise ValidationError(f"{self.source}: more than {MAX_ROWS:,} rows (tests times prompts)")
        self.report.rows.append(row)
        self._places.append(line.place)

    def unsupported(self, line: LineReport, problem: UnsupportedError, *, whole_line: bool = False) -> None:
        """``problem`` found on ``line``: dropped and listed when allowed, else a refusal of the import."""
        if self.drop_unsupported:
            line.dropped.append(f"{'the line: ' if whole_line else ''}{problem}")
            return
        self._refused += 1
        if len(self._refusals) < MAX_LISTED:
            where = f"in {line.file}: " if line.file else ""
            message = f"{where}{problem.what} cannot be represented: {problem.why}"
            self._refusals.append(Problem(line.place, message))

    def check(self, line: LineReport, what: str, build: Callable[[], Assertion]) -> Assertion | None:
        """The assertion ``build`` makes for the source check ``what``, checked by its grader; ``None``
        when it cannot be represented (then dropped or refused, see :meth:`unsupported`)."""
        try:
            assertion = checked(build(), what)
        except UnsupportedError as problem:  # named by the source's check, whichever step refused it
            self.unsupported(line, UnsupportedError(what, problem.why))
            return None
        line.mapped.append(f"{what} -> {describe(assertion)}")
        used = graders_in(assertion.to_json())
        if used & MODEL_GRADERS:
            line.notes.append(f"{what}: {MODEL_NOTE}")
        if JUDGE in used:
            line.notes.append(f"{what}: {JUDGED_NOTE}")
        if "regex" in used:
            line.notes.append(f"{what}: {REGEX_NOTE}")
        line.notes.extend(f"{what}: {reason}" for reason in unavailable_here(assertion))
        return assertion

    def finish(self) -> ImportReport:
        """The report; ``ValidationError`` naming the file, each line and check, when any was refused."""
        if not self._refusals:
            if not self.report.rows:
                raise ValidationError(f"{self.source}: the file holds no cases")
            keys = [row.key for row in self.report.rows]
            found = key_problems(keys, self._places).all  # the suite reader's own rule for keys
            if found:
                raise ValidationError(f"{self.source} {found[0]}", problems=found[:MAX_LISTED])
            return self.report
        listed = list(self._refusals)
        if self._refused > len(listed):
            listed.append(Problem((), f"... and {self._refused - len(listed)} more"))
        raise ValidationError(
            f"{self.source} {listed[0]} ({self._refused} in all cannot be represented exactly; nothing was "
            "written; --drop-unsupported drops them and lists each)",
            problems=listed,
        )
