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
from assay.services.figures.paired import Flip, PairedFigures
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


def compare_files(a_path: Path, b_path: Path, *, limit: int | None = None) -> RunsComparison:
    """Compare the run in ``b_path`` with the one in ``a_path``; at most ``limit`` flips listed."""
    a_records, b_records = _records(a_path), _records(b_path)
    keyed = all(r.get("key") is not None for r in a_records + b_records)

    def name(record: dict[str, Any]) -> object:
        return record["key"] if keyed else record["number"]

    in_a = {name(record): record for record in a_records}
    common = passed_a = passed_b = 0
    flips: list[FlippedRun] = []
    for b in b_records:
        a = in_a.get(name(b))
        if a is None:
            continue
        if (a.get("input"), a.get("expected_output")) != (b.get("input"), b.get("expected_output")):
            label = case_label(b["number"], b.get("key"))
            raise ValidationError(
                f"{label} differs between {a_path.name} and {b_path.name} (input or expected output): they "
                "ran different suites; only runs of one suite compare"
            )
        common += 1
        passed_a += a["passed"]
        passed_b += b["passed"]
        if a["passed"] != b["passed"]:
            flips.append(
                FlippedRun(
                    number=b["number"],
                    key=b.get("key"),
                    flip=Flip.REGRESSION if a["passed"] else Flip.IMPROVEMENT,
                    input=b["input"],
                    expected_output=b["expected_output"],
                    a_response=a.get("agent_response"),
                    b_response=b.get("agent_response"),
                    a_error=a.get("error"),
                    b_error=b.get("error"),
                )
            )
    if common == 0:
        raise ValidationError(f"{a_path.name} and {b_path.name} have no case in common")
    regressions = sum(flip.flip is Flip.REGRESSION for flip in flips)
    flips.sort(key=lambda flip: (flip.flip is not Flip.REGRESSION, flip.number))
    figures = PairedFigures.of(
        in_a=len(in_a),
        in_b=len(b_records),
        common=common,
        a_passed=passed_a,
        b_passed=passed_b,
        pass_to_fail=regressions,
        fail_to_pass=len(flips) - regressions,
    )
    return RunsComparison(
        a=str(a_path),
        b=str(b_path),
        figures=figures,
        flips=flips if limit is None else flips[:limit],
        flips_total=len(flips),
    )
