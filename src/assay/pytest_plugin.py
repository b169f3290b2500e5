"""The pytest plugin (entry point ``pytest11``): a suite declared on a test function, each case a test item,
the gate applied to the aggregate (docs/ci.md#the-pytest-plugin).

    @pytest.mark.assay(suite="capitals.jsonl", grader="true-false", min_pass_rate=0.8)
    def test_capitals(question: str) -> str:
        return my_agent(question)

    @pytest.mark.assay(eval_file="assay.yaml")   # suites, assertions, rules and gates from the file
    def test_support(question: str) -> str:
        return my_agent(question)

The function is the target (or the marker's ``target``: an agent's URL or a target spec; an ``assay.yaml``'s
own target is what ``assay eval`` calls, and stands aside here). The run is :func:`assay.evaluate` (no second
runner), once per declaration, when its first item runs. Each case is an item ``test_capitals::case #3 (key
it-rome)`` (``billing case #3`` when an eval file has several suites); one more, ``test_capitals::gate``,
holds the gate: ``min_pass_rate`` (default 1.0, every case), or an eval file's gates. A case that failed fails
its item when the gate is missed, and is reported ``xfailed`` (with its verdict) when the gate holds: a flaky
case fails the build only when the gate says so. ``--assay-output DIR`` keeps each run's results file,
``--assay-server URL`` pushes it as ``assay push`` does.
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
    from assay.services.eval_file.gates import AnyVerdict
    from assay.services.eval_file.plan import EvalPlan
    from assay.services.execution.case_results import CaseResult

__all__ = ["AssayDeclaration"]

MARKER = "assay"
_SHOWN_CHARS = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class AssayDeclaration:
    """What ``@pytest.mark.assay(...)`` declares: the suite (a file, relative to the test's folder, or cases
    as mappings), the grader and its config, the target (default: the test function), the gate; or an
    ``assay.yaml`` (``eval_file``) that says the suites, grading and gates."""

    suite: str | Path | list[Mapping[str, Any]] | None = None
    grader: str | None = None
    config: Mapping[str, Any] | None = None
    target: Any = None
    min_pass_rate: float | None = None
    """The gate (default 1.0: every case passes); an eval file's are its ``gates``."""
    concurrency: int | None = None
    """Cases in flight (default 8, or the eval file's ``concurrency``)."""
    eval_file: str | Path | None = None
    """An ``assay.yaml`` (relative to the test's folder): its suites, grader, assertions, rules and gates."""

    @classmethod
    def of(cls, marker: pytest.Mark) -> AssayDeclaration:
        """The marker's declaration; ``ValidationError`` for one that names no suite or grader (nor an eval
        file), or an eval file beside what the file says."""
        if marker.args:
            raise ValidationError("@pytest.mark.assay takes keywords only: suite=..., grader=...")
        try:
            declared = cls(**marker.kwargs)
        except TypeError as exc:
            raise ValidationError(f"@pytest.mark.assay: {exc}") from None
        if declared.eval_file is not None:
            given = [
                name
                for name in ("suite", "grader", "config", "min_pass_rate")
                if getattr(declared, name) is not None
            ]
            if given:
                raise ValidationError(
                    "@pytest.mark.assay: eval_file says the suites, grading and gates; "
                    f"drop {', '.join(given)}"
                )
        elif declared.suite is None or declared.grader is None:
            missing = " and ".join(n for n in ("suite", "grader") if getattr(declared, n) is None)
            raise ValidationError(f"@pytest.mark.assay: give {missing} (or eval_file)")
        rate = declared.min_pass_rate
        if rate is not None and not 0 <= rate <= 1:
            raise ValidationError(f"min_pass_rate must be within 0-1, got {rate}")
        return declared


class CaseFailedError(Exception):
    """A case's verdict, or a gate missed: reported as its message, without a traceback."""


@dataclass
class _Outcome:
    """A declaration's run, made once: each case's result and the gate's verdict, or why there is none."""

    error: str | None = None
    by_case: dict[tuple[int, int], CaseResult] = field(default_factory=dict)
    """Each result by (suite index, case number)."""
    held: bool = False
    gate_line: str = ""
    """The gate's verdict as one line (every gate's, for an eval file)."""


def _file_name(nodeid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_")[:150] + ".jsonl"


class AssayRun(pytest.Collector):
    """The items of one declaration: a case each, and the gate. The run happens when the first one runs."""

    declaration: AssayDeclaration
    function: Any
    _outcome: _Outcome | None = None
    _plan: EvalPlan | None = None

    def collect(self) -> Iterator[pytest.Item]:
        from assay.services.suites.case_keys import case_label

        try:
            suites = self._suites()
            several = len(suites) > 1
            for index, suite in enumerate(suites):
                for number, key in self._numbered(suite):
                    label = case_label(number, key)
                    name = f"{self._stem(index)} {label}" if several else label
                    yield CaseItem.from_parent(self, name=name, suite=index, number=number)
        except AssayError as exc:
            raise self.CollectError(f"@pytest.mark.assay: {exc.message}") from None
        yield GateItem.from_parent(self, name="gate")

    def eval_plan(self) -> EvalPlan | None:
        """The declaration's ``assay.yaml`` read and checked (once), when it names one."""
        eval_file = self.declaration.eval_file
        if eval_file is None:
            return None
        if self._plan is None:
            from assay.services.eval_file.loading import read_eval_file
            from assay.services.eval_file.plan import plan_eval

            path = Path(self.path).parent / eval_file
            model, root = read_eval_file(path)
            plan = plan_eval(model, path.parent, source=path.name, root=root)
            if plan.server_suites:
                raise ValidationError(f"{path.name}: a server_suite is run by its server, not under pytest")
            self._plan = plan
        return self._plan

    def _suites(self) -> list[Path | list[Mapping[str, Any]]]:
        plan = self.eval_plan()
        if plan is not None:
            return list(plan.suites)
        suite = self.declaration.suite
        assert suite is not None  # AssayDeclaration.of: a suite or an eval file
        return [Path(self.path).parent / suite if isinstance(suite, str | Path) else suite]

    def _stem(self, index: int) -> str:
        suite = self._suites()[index]
        return suite.stem if isinstance(suite, Path) else "cases"

    def _numbered(self, suite: Path | list[Mapping[str, Any]]) -> list[tuple[int, str | None]]:
        """Each case's number and key, read at collection (the file is read again when the run starts)."""
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
    def _results_folder(self) -> Iterator[Path | None]:
        """Where the run's results files go: ``--assay-output``, a scratch folder for a push alone, or
        nowhere."""
        options = self.config.option
        if options.assay_output:
            folder = Path(options.assay_output)
            folder.mkdir(parents=True, exist_ok=True)
            yield folder
        elif options.assay_server:
            with tempfile.TemporaryDirectory(prefix="assay-pytest-") as scratch:
                yield Path(scratch)
        else:
            yield None

    def _results_path(self, folder: Path | None, index: int) -> Path | None:
        """This test's own results file of suite ``index`` (replacing one from a run before)."""
        if folder is None:
            return None
        several = len(self._suites()) > 1
        path = folder / _file_name(f"{self.nodeid}.{self._stem(index)}" if several else self.nodeid)
        path.unlink(missing_ok=True)
        return path

    def _run(self) -> _Outcome:
        server = self.config.option.assay_server
        target = self.declaration.target if self.declaration.target is not None else self.function
        try:
            with self._results_folder() as folder:
                outcome = self._evaluate(target, folder, server)
        except AssayError as exc:
            return _Outcome(error=exc.message)
        except OSError as exc:  # the --assay-output folder
            return _Outcome(error=f"cannot write the results file: {exc}")
        return outcome

    def _evaluate(self, target: Any, folder: Path | None, server: str | None) -> _Outcome:
        """Each suite run and pushed, then the gate judged."""
        from assay.cli.push import push_results

        plan = self.eval_plan()
        results: list[EvaluationResult] = []
        for index, suite in enumerate(self._suites()):
            output = self._results_path(folder, index)
            results.append(self._evaluate_suite(suite, target, output, plan))
            if server and output is not None:
                push_results(server, output)
        by_case = {
            (index, case.number): case for index, result in enumerate(results) for case in result.results
        }
        if plan is None:
            (result,) = results
            gate = self.declaration.min_pass_rate
            gate = 1.0 if gate is None else gate
            held = result.gate(gate)
            counts = f"{result.summary.passed}/{result.summary.total_cases}"
            line = (
                f"pass rate {result.pass_rate:.1%} ({counts}), gate {gate:.1%} {'held' if held else 'missed'}"
            )
            return _Outcome(by_case=by_case, held=held, gate_line=line)
        verdicts = _judge(plan, results)
        missed = [verdict for verdict in verdicts if not verdict.held]
        return _Outcome(
            by_case=by_case,
            held=not missed,
            gate_line="; ".join(verdict.line() for verdict in (missed or verdicts)),
        )

    def _evaluate_suite(
        self, suite: Path | list[Mapping[str, Any]], target: Any, output: Path | None, plan: EvalPlan | None
    ) -> EvaluationResult:
        declared = self.declaration
        if plan is None:
            from assay.python_api import evaluate

            assert declared.grader is not None  # AssayDeclaration.of: a grader or an eval file
            return evaluate(
                suite, target, grader=declared.grader, config=declared.config,
                concurrency=declared.concurrency or 8, output=output,
            )  # fmt: skip
        from assay.python_api import evaluate_planned

        assert isinstance(suite, Path)  # an eval file's suites are files
        return evaluate_planned(
            suite, target, grader=plan.grader, defaults=plan.defaults,
            preflight=not plan.file.allow_invalid_expected,
            concurrency=declared.concurrency or plan.file.concurrency, output=output,
        )  # fmt: skip


def _judge(plan: EvalPlan, results: list[EvaluationResult]) -> list[AnyVerdict]:
    """The eval file's gates over every suite's results, as ``assay eval`` judges them."""
    from assay.services.eval_file.gates import EvalTotals, MetadataTally
    from assay.services.local_run.suite_stream import SuiteFile

    totals = EvalTotals()
    tally = MetadataTally(plan.file.gates.by_metadata)
    for suite, result in zip(plan.suites, results, strict=True):
        totals.add(result.summary)
        if tally.needed:
            passed = {case.number: case.passed for case in result.results}
            for case in SuiteFile(suite).cases():
                tally.add(case.target_case.metadata, passed.get(case.target_case.place, False))
    return totals.judge(plan.file.gates, tally)


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

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, CaseFailedError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo, style))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


class CaseItem(_AssayItem):
    """One case: passes with its case, fails with it when the gate is missed, ``xfailed`` when it holds."""

    def __init__(self, *, suite: int, number: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite
        self.number = number

    def runtest(self) -> None:
        outcome = self.run_of()
        result = outcome.by_case.get((self.suite, self.number))
        if result is None:
            raise CaseFailedError("the case got no result")
        if result.passed:
            return
        if outcome.held:
            pytest.xfail(f"{_verdict(result)}; within the gate: {outcome.gate_line}")
        raise CaseFailedError(f"{_verdict(result)}\n{outcome.gate_line}")


class GateItem(_AssayItem):
    """The gate over every case: fails when it is missed (``min_pass_rate``, or any of an eval file's)."""

    def runtest(self) -> None:
        outcome = self.run_of()
        if not outcome.held:
            raise CaseFailedError(outcome.gate_line)


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
        f"{MARKER}(suite, grader, config=None, target=None, min_pass_rate=1.0, concurrency=8, "
        "eval_file=None): evaluate the function (or target) on a suite, or an assay.yaml's, a test item per "
        "case, gated on the pass rate or the file's gates (docs/ci.md)",
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
