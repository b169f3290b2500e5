"""The one exit-code rule of ``assay grade``, ``grade-file`` and ``run``.

0 when the pass rate reaches the gate (``--min-pass-rate``, or every case when there is none), 1 when it
does not, 2 for a usage or configuration error (raised as :mod:`assay.errors` classes elsewhere), 3 when
the command stopped otherwise (``assay.cli.main``); a ``run`` a signal stopped exits 130 (SIGINT) or 143
(SIGTERM) (``assay.cli.interruption``). A row
that could not be read and a case whose target failed count as failed: a gate never passes on what was
not graded, and nothing graded at all is not a pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.cli.console import err

if TYPE_CHECKING:
    from assay.services.figures.limits import SpendLimits
    from assay.services.figures.summary_records import Summary

PASSED, FAILED = 0, 1


def limits_held(limits: SpendLimits, summaries: list[Summary]) -> bool:
    """Print each cost and latency limit's verdict (``--max-cost-usd``...); whether every one held (an
    unknown cost holds none)."""
    from assay.services.figures.limits import judge_limits

    verdicts = judge_limits(limits, summaries)
    for verdict in verdicts:
        err.print(verdict.line(), markup=False)
    return all(verdict.held for verdict in verdicts)


def check_gate(*, passed: int, counted: int, min_pass_rate: float | None) -> None:
    """Exit 1 (saying why) unless ``passed`` of ``counted`` reaches the gate; return when it does."""
    if counted == 0:
        err.print("nothing was graded", markup=False)
        raise SystemExit(FAILED)
    rate = passed / counted
    if min_pass_rate is None:
        if passed < counted:
            err.print(f"{counted - passed} of {counted} did not pass (pass rate {rate:.2%})", markup=False)
            raise SystemExit(FAILED)
        return
    if rate < min_pass_rate:
        err.print(f"pass rate {rate:.2%} is below the gate {min_pass_rate:.2%}", markup=False)
        raise SystemExit(FAILED)
