"""The pytest plugin (entry point ``pytest11``): a suite declared on a test function, each case a test item,
the gate applied to the aggregate (docs/ci.md#the-pytest-plugin).

    @pytest.mark.assay(suite="capitals.jsonl", grader="true-false", min_pass_rate=0.8)
    def test_capitals(question: str) -> str:
        return my_agent(question)

The function is the target (or the marker's ``target``: an agent's URL or a target spec). The run is
:func:`assay.evaluate` (no second runner), once per declaration, when its first item runs. Each case is an
item ``test_capitals::case #3 (key it-rome)``; one more, ``test_capitals::gate``, holds the gate. A case that
failed fails its item when the gate is missed, and is reported ``xfailed`` (with its verdict) when the gate
holds: a flaky case fails the build only when the pass rate falls below ``min_pass_rate`` (default 1.0,
every case). ``--assay-output DIR`` keeps each run's results file, ``--assay-server URL`` pushes it as
``assay push`` does.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from assay.errors import AssayError, ValidationError

if TYPE_CHECKING:
    from assay.python_api import EvaluationResult
    from assay.services.execution.case_results import CaseResult

__all__ = ["AssayDeclaration"]

MARKER = "assay"
_SHOWN_CHARS = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class AssayDeclaration:
    """What ``@pytest.mark.assay(...)`` declares: the suite (a file, relative to the test's folder, or cases
    as mappings), the grader and its config, the target (default: the test function), the gate."""

    suite: str | Path | list[Mapping[str, Any]]
    grader: str
    config: Mapping[str, Any] | None = None
    target: Any = None
    min_pass_rate: float = 1.0
    concurrency: int = 8
    eval_file: str | None = None
    """Seam (issue 24): a config file run by ``assay eval``; refused until that lands."""

    @classmethod
    def of(cls, marker: pytest.Mark) -> AssayDeclaration:
        """The marker's declaration; ``ValidationError`` for one that names no suite or grader."""
        if marker.args:
            raise ValidationError("@pytest.mark.assay takes keywords only: suite=..., grader=...")
        try:
            declared = cls(**marker.kwargs)
        except TypeError as exc:
            raise ValidationError(f"@pytest.mark.assay: {exc}") from None
        if declared.eval_file is not None:
            raise ValidationError(
                "@pytest.mark.assay(eval_file=...) needs `assay eval`, which this Assay lacks"
            )
        if not 0 <= declared.min_pass_rate <= 1:
            raise ValidationError(f"min_pass_rate must be within 0-1, got {declared.min_pass_rate}")
        return declared


class CaseFailedError(Exception):
    """A case's verdict, or a gate missed: reported as its message, without a traceback."""


@dataclass
class _Outcome:
    """A declaration's run, made once: its result, or why there is none."""

    result: EvaluationResult | None = None
    error: str | None = None
    by_number: dict[int, CaseResult] = field(default_factory=dict)


def _file_name(nodeid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_")[:150] + ".jsonl"


class AssayRun(pytest.Collector):
    """The items of one declaration: a case each, and the gate. The run happens when the first one runs."""

    declaration: AssayDeclaration
    function: Any
    _outcome: _Outcome | None = None

    def collect(self) -> Iterator[pytest.Item]:
        from assay.services.suites.case_keys import case_label

        try:
            numbered = self._numbered()
        except AssayError as exc:
            raise self.CollectError(f"@pytest.mark.assay: {exc.message}") from None
        for number, key in numbered:
            yield CaseItem.from_parent(self, name=case_label(number, key), number=number)
        yield GateItem.from_parent(self, name="gate")

    def _suite(self) -> Path | list[Mapping[str, Any]]:
        suite = self.declaration.suite
        return Path(self.path).parent / suite if isinstance(suite, str | Path) else suite

    def _numbered(self) -> list[tuple[int, str | None]]:
        """Each case's number and key, read at collection (the file is read again when the run starts)."""
        suite = self._suite()
        if not isinstance(suite, Path):
            return [(number, case.get("key")) for number, case in enumerate(suite, 1)]
        from assay.services.local_run.suite_stream import SuiteFile

        suite_file = SuiteFile(suite)
        facts, _ = suite_file.scan(preflight=None)
        if facts.keys is not None:
            facts.keys.close()
        return [(case.target_case.place, case.target_case.key) for case in suite_file.cases()]

    def outcome(self) -> _Outcome:
        """The run, made on first call."""
        if self._outcome is None:
            self._outcome = self._run()
        return self._outcome

    @contextmanager
    def _results_path(self) -> Iterator[Path | None]:
        """Where the run's results file goes: in ``--assay-output``, in a scratch folder for a push alone, or
        nowhere."""
        options = self.config.option
        if options.assay_output:
            path = Path(options.assay_output) / _file_name(self.nodeid)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.unlink(missing_ok=True)  # this test's own file, from a run before
            yield path
        elif options.assay_server:
            with tempfile.TemporaryDirectory(prefix="assay-pytest-") as scratch:
                yield Path(scratch) / "results.jsonl"
        else:
            yield None

    def _run(self) -> _Outcome:
        from assay.python_api import evaluate

        declared = self.declaration
        server = self.config.option.assay_server
        try:
            with self._results_path() as output:
                result = evaluate(
                    self._suite(),
                    declared.target if declared.target is not None else self.function,
                    grader=declared.grader,
                    config=declared.config,
                    concurrency=declared.concurrency,
                    output=output,
                )
                if server and output is not None:
                    from assay.cli.push import push_results

                    push_results(server, output)
        except AssayError as exc:
            return _Outcome(error=exc.message)
        except OSError as exc:  # the --assay-output folder
            return _Outcome(error=f"cannot write the results file: {exc}")
        return _Outcome(result=result, by_number={case.number: case for case in result.results})


def _shown(value: str | None) -> str:
    if value is None:
        return "none"
    return repr(value if len(value) <= _SHOWN_CHARS else value[: _SHOWN_CHARS - 1] + "…")


def _verdict(result: CaseResult) -> str:
    if result.error is not None:
        return f"error {result.error}: {result.error_detail or 'no detail'}"
    return (
        f"expected {_shown(result.expected_output)}, got {_shown(result.agent_response)} "
        f"({result.match_status}: {result.reason})"
    )


class _AssayItem(pytest.Item):
    """An item of an :class:`AssayRun`."""

    def run_of(self) -> _Outcome:
        parent = self.parent
        assert isinstance(parent, AssayRun)
        outcome = parent.outcome()
        if outcome.error is not None:
            raise CaseFailedError(f"the evaluation could not run: {outcome.error}")
        return outcome

    def gate_line(self, result: EvaluationResult) -> str:
        parent = self.parent
        assert isinstance(parent, AssayRun)
        gate = parent.declaration.min_pass_rate
        held = "held" if result.gate(gate) else "missed"
        counts = f"{result.summary.passed}/{result.summary.total_cases}"
        return f"pass rate {result.pass_rate:.1%} ({counts}), gate {gate:.1%} {held}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CaseFailedError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo, style))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


class CaseItem(_AssayItem):
    """One case: passes with its case, fails with it when the gate is missed, ``xfailed`` when it holds."""

    def __init__(self, *, number: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.number = number

    def runtest(self) -> None:
        outcome = self.run_of()
        assert outcome.result is not None
        result = outcome.by_number.get(self.number)
        if result is None:
            raise CaseFailedError("the case got no result")
        if result.passed:
            return
        parent = self.parent
        assert isinstance(parent, AssayRun)
        if outcome.result.gate(parent.declaration.min_pass_rate):
            pytest.xfail(f"{_verdict(result)}; within the gate: {self.gate_line(outcome.result)}")
        raise CaseFailedError(f"{_verdict(result)}\n{self.gate_line(outcome.result)}")


class GateItem(_AssayItem):
    """The gate over every case: fails when the pass rate is below ``min_pass_rate``."""

    def runtest(self) -> None:
        outcome = self.run_of()
        assert outcome.result is not None
        parent = self.parent
        assert isinstance(parent, AssayRun)
        if not outcome.result.gate(parent.declaration.min_pass_rate):
            raise CaseFailedError(self.gate_line(outcome.result))


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--assay-output`` and ``--assay-server``."""
    group = parser.getgroup("assay", "Assay evaluations (@pytest.mark.assay)")
    group.addoption(
        "--assay-output", metavar="DIR", help="Write each evaluation's results file (JSONL) in DIR"
    )
    group.addoption(
        "--assay-server",
        metavar="URL",
        help="Store each evaluation on this Assay server (key from ASSAY_API_KEY)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker (so ``--strict-markers`` takes it)."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}(suite, grader, config=None, target=None, min_pass_rate=1.0, concurrency=8): evaluate the "
        "function (or target) on a suite, a test item per case, gated on the pass rate (docs/ci.md)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> pytest.Collector | None:
    """A function marked ``assay`` becomes an :class:`AssayRun` of its cases."""
    marks = [mark for mark in getattr(obj, "pytestmark", ()) if getattr(mark, "name", None) == MARKER]
    if not marks or not callable(obj) or not collector.funcnamefilter(name):  # type: ignore[attr-defined]
        return None
    run = AssayRun.from_parent(collector, name=name)
    run.function = obj
    try:
        run.declaration = AssayDeclaration.of(marks[0])
    except AssayError as exc:
        raise collector.CollectError(exc.message) from None
    return run
