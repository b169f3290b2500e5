"""Two results files of ``assay run`` compared case by case: the counts, the flips and the paired test.

Cases are paired by key when both files' cases have keys, else by number, as a resumed run names them; a
case of one name whose input or expected output differ between the files means they ran different suites,
and is refused, as the server refuses to compare runs of two suites. An errored case counts as failed, as in
the pass rate. The test is the server's (:mod:`assay.services.figures.paired`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from assay.errors import NotFoundError, ValidationError
from assay.services.figures.paired import CaseRuns, Flip, PairedFigures
from assay.services.local_run.result_file import read_records
from assay.services.suites.case_keys import case_label


@dataclass(frozen=True, slots=True, kw_only=True)
class FlippedRun:
    """A case that passed in one run and failed in the other, with both answers."""

    number: int
    key: str | None
    flip: Flip
    input: str
    expected_output: str
    a_response: str | None
    b_response: str | None
    a_error: str | None
    b_error: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class RunsComparison:
    """B against A: the figures over the cases both ran, and the flips (regressions first)."""

    a: str
    b: str
    figures: PairedFigures
    flips: list[FlippedRun]
    flips_total: int

    def as_dict(self) -> dict[str, object]:
        """The comparison as JSON: its figures flat, beside the runs' names and the flips."""
        flips = [asdict(flip) for flip in self.flips]
        figures = self.figures.as_dict()
        return {"a": self.a, "b": self.b, **figures, "flips": flips, "flips_total": self.flips_total}


def _records(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise NotFoundError(f"cannot read {path}: no such results file")
    records = list(read_records(path))
    if not records:
        raise ValidationError(f"{path} holds no results of assay run")
    for record in records:
        if not isinstance(record.get("number"), int) or not isinstance(record.get("passed"), bool):
            raise ValidationError(f"{path} is not a results file of assay run (a line without number/passed)")
    return records


def _by_case(records: list[dict[str, Any]], keyed: bool) -> dict[object, tuple[dict[str, Any], int, int]]:
    """``name → (first record, passes, runs)``: a run with repeats has several records of one case."""
    cases: dict[object, tuple[dict[str, Any], int, int]] = {}
    for record in records:
        name = record["key"] if keyed else record["number"]
        first, passes, runs = cases.get(name, (record, 0, 0))
        cases[name] = (first, passes + record["passed"], runs + 1)
    return cases


def compare_files(a_path: Path, b_path: Path, *, limit: int | None = None) -> RunsComparison:
    """Compare the run in ``b_path`` with the one in ``a_path``; at most ``limit`` flips listed (with repeats,
    a case flips when its pass rate moved; its first runs' answers are shown)."""
    a_records, b_records = _records(a_path), _records(b_path)
    keyed = all(r.get("key") is not None for r in a_records + b_records)
    in_a, in_b = _by_case(a_records, keyed), _by_case(b_records, keyed)
    shared: list[CaseRuns] = []
    flips: list[FlippedRun] = []
    for name, (b, b_passed, b_runs) in in_b.items():
        if name not in in_a:
            continue
        a, a_passed, a_runs = in_a[name]
        if (a.get("input"), a.get("expected_output")) != (b.get("input"), b.get("expected_output")):
            label = case_label(b["number"], b.get("key"))
            raise ValidationError(
                f"{label} differs between {a_path.name} and {b_path.name} (input or expected output): they "
                "ran different suites; only runs of one suite compare"
            )
        shared.append(CaseRuns(a_passed, a_runs, b_passed, b_runs))
        if a_passed * b_runs != b_passed * a_runs:
            flips.append(
                FlippedRun(
                    number=b["number"],
                    key=b.get("key"),
                    flip=Flip.REGRESSION if b_passed * a_runs < a_passed * b_runs else Flip.IMPROVEMENT,
                    input=b["input"],
                    expected_output=b["expected_output"],
                    a_response=a.get("agent_response"),
                    b_response=b.get("agent_response"),
                    a_error=a.get("error"),
                    b_error=b.get("error"),
                )
            )
    if not shared:
        raise ValidationError(f"{a_path.name} and {b_path.name} have no case in common")
    flips.sort(key=lambda flip: (flip.flip is not Flip.REGRESSION, flip.number))
    figures = PairedFigures.of_cases(in_a=len(in_a), in_b=len(in_b), cases=shared)
    return RunsComparison(
        a=str(a_path),
        b=str(b_path),
        figures=figures,
        flips=flips if limit is None else flips[:limit],
        flips_total=len(flips),
    )
