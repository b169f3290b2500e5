"""The documented Python API: ``assay.evaluate(...)``, what ``assay run`` does, from a script or a test.

A suite (a file, or cases as mappings), a target (a Python function, an agent's URL, or any target spec
as a mapping) and a grader (by id, with its config) give an :class:`EvaluationResult`: every case's result
and the summary ``assay run`` prints. The same per-case step as the CLI and the server
(:mod:`assay.services.local_run.run`). Documented with a runnable example in ``docs/python-api.md``.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from assay.domain import SuiteAssertions
from assay.errors import ValidationError
from assay.graders import GraderInterface
from assay.services.execution.case_results import CaseResult, RunCase
from assay.services.figures.summary import ReportShape, SummaryTally
from assay.services.figures.summary_records import Summary
from assay.services.grading.registry import GraderService
from assay.services.local_run.result_file import ResultAppender, RunHeader, file_digest
from assay.services.local_run.run import LocalSink, run_local
from assay.services.local_run.suite_stream import SuiteFile
from assay.targets import Target, TargetCase, TargetSpec, parse_target_spec

Agent = Callable[[str], Any] | Callable[[str], Awaitable[Any]]
"""A Python function taking a case's input and returning the answer (text, or anything ``str()`` of)."""

_FUNCTION = "python_api:function"
"""The name a function given as an object is known by in its results (it has no ``module:function``)."""


@dataclass(frozen=True, slots=True)
class EvaluationResult:
    """What an evaluation gave: each case's result (in case order) and the summary of them all."""

    results: list[CaseResult]
    summary: Summary

    @property
    def pass_rate(self) -> float:
        """Passed over every case; an errored case counts as failed (0.0 for no case)."""
        return self.summary.passed / self.summary.total_cases if self.summary.total_cases else 0.0

    def gate(self, min_pass_rate: float = 1.0) -> bool:
        """Whether the pass rate reaches ``min_pass_rate`` (``assay run --min-pass-rate``'s rule)."""
        return self.summary.total_cases > 0 and self.pass_rate >= min_pass_rate

    @property
    def failures(self) -> list[CaseResult]:
        """The results that did not pass."""
        return [result for result in self.results if not result.passed]


@dataclass
class _Collected(LocalSink):
    """Keeps every result as well as counting it (the Python API returns them)."""

    results: list[CaseResult] = field(default_factory=list)

    def write(self, results: Sequence[CaseResult]) -> None:
        self.results.extend(results)
        super().write(results)


@dataclass(frozen=True, slots=True)
class _Suite:
    """The cases to run, and what a results file's header says of where they came from."""

    cases: list[RunCase]
    name: str
    digest: str
    path: str
    assertions: SuiteAssertions | None = None
    """Default assertions and rules given beside a suite file (an ``assay.yaml``'s)."""


def _cases(
    suite: str | Path | Iterable[Mapping[str, Any]],
    *,
    defaults: SuiteAssertions | None = None,
    preflight: GraderInterface | None = None,
) -> _Suite:
    if isinstance(suite, str | Path):
        suite_file = SuiteFile(Path(suite), defaults=defaults)
        # Every bad row refused, as `assay run` refuses them; with a preflight grader, every case it can
        # never pass too.
        facts, report = suite_file.scan(preflight=preflight)
        if facts.keys is not None:
            facts.keys.close()
        if report is not None and not report.ok and preflight is not None:
            raise report.error(preflight.grader_id, "allow_invalid_expected")
        cases = list(suite_file.cases())
        return _Suite(
            cases, suite_file.name, file_digest(suite_file.path), str(suite_file.path.resolve()), defaults
        )
    listed = _listed(suite)
    texts = [(case.target_case.key, case.target_case.input, case.expected_output) for case in listed]
    return _Suite(listed, "cases", f"sha256:{hashlib.sha256(orjson.dumps(texts)).hexdigest()}", "")


def _listed(suite: Iterable[Mapping[str, Any]]) -> list[RunCase]:
    cases = []
    for number, case in enumerate(suite, 1):
        if not isinstance(case, Mapping) or not isinstance(case.get("input"), str):
            raise ValidationError(f"case #{number} must be a mapping with 'input' and 'expected_output' text")
        expected = case.get("expected_output")
        if not isinstance(expected, str):
            raise ValidationError(f"case #{number}: 'expected_output' must be text")
        metadata = case.get("metadata") or {}
        key = case.get("key")
        cases.append(RunCase(TargetCase(number, case["input"], dict(metadata), number, key), expected))
    return cases


def _target(target: Agent | str | Mapping[str, Any]) -> tuple[TargetSpec, Target | None]:
    if isinstance(target, str):
        if not target.startswith(("http://", "https://")):
            raise ValidationError(f"a target given as text is an agent's URL, got {target!r}")
        return parse_target_spec({"type": "http", "url": target}), None
    if isinstance(target, Mapping):
        return parse_target_spec(dict(target)), None
    if callable(target):
        from assay.targets.python_callable import PythonTarget

        spec = parse_target_spec({"type": "python", "callable": _FUNCTION})
        return spec, PythonTarget(spec, function=target)  # type: ignore[arg-type]
    raise ValidationError("target must be a function, an agent's URL or a target spec mapping")


def _results_file(
    output: str | Path, suite: _Suite, graders: GraderService, built: GraderInterface
) -> ResultAppender:
    """The results file ``assay run --output`` writes, header first; a file holding results is refused."""
    path = Path(output)
    if path.is_file() and path.stat().st_size > 0:
        raise ValidationError(f"{path} already holds results: give another output")
    spec = graders.spec(built)
    header = RunHeader(
        spec.grader_id, spec.config, spec.version, suite.digest, suite.name, len(suite.cases), suite.path,
        suite.assertions.as_json() if suite.assertions is not None else None,
    )  # fmt: skip
    return ResultAppender(path, header)


async def evaluate_async(
    suite: str | Path | Iterable[Mapping[str, Any]],
    target: Agent | str | Mapping[str, Any],
    *,
    grader: str,
    config: Mapping[str, Any] | None = None,
    concurrency: int = 8,
    output: str | Path | None = None,
) -> EvaluationResult:
    """:func:`evaluate` in a running event loop (a notebook, an async test)."""
    graders = GraderService()
    built = graders.build(grader, dict(config) if config is not None else None)
    return await _evaluate(_cases(suite), target, built, concurrency=concurrency, output=output)


async def _evaluate(
    read: _Suite,
    target: Agent | str | Mapping[str, Any],
    built: GraderInterface,
    *,
    concurrency: int,
    output: str | Path | None,
) -> EvaluationResult:
    graders = GraderService()
    spec, ready = _target(target)
    appender = _results_file(output, read, graders, built) if output is not None else None
    sink = _Collected(SummaryTally(ReportShape.of(built)), output=appender)
    calling = any(
        case.checks is not None and case.checks.makes_calls for case in read.cases
    )  # a case's judge
    try:
        await run_local(
            read.cases, spec, built, sink, concurrency=concurrency, target=ready, cases_call=calling
        )
    finally:
        if appender is not None:
            appender.close()
    sink.results.sort(key=lambda result: result.number)
    return EvaluationResult(sink.results, sink.tally.summary(len(read.cases)))


def evaluate(
    suite: str | Path | Iterable[Mapping[str, Any]],
    target: Agent | str | Mapping[str, Any],
    *,
    grader: str,
    config: Mapping[str, Any] | None = None,
    concurrency: int = 8,
    output: str | Path | None = None,
) -> EvaluationResult:
    """Run every case of ``suite`` through ``target``, grade each answer with ``grader`` (its ``config``),
    and return the results and their summary; with ``output``, each result is also written there as
    ``assay run --output`` writes it (a results file ``assay push`` and ``assay compare`` read).

    ``suite`` is a suite file (JSONL, CSV or JSON, as ``assay run`` reads) or cases as mappings with
    ``input``, ``expected_output`` and optionally ``metadata`` and ``key``. ``target`` is a function taking
    the input (plain or async), an agent's URL (``POST {"input": ...}``, the answer read from ``output``)
    or a target spec as a mapping (``{"type": "openai", "model": ...}``, ``{"type": "command", ...}``).
    A bad argument raises :class:`assay.errors.ValidationError`; a failing agent is data (the case's
    ``error``), as in ``assay run``.
    """
    return asyncio.run(
        evaluate_async(suite, target, grader=grader, config=config, concurrency=concurrency, output=output)
    )


def evaluate_planned(
    suite: Path,
    target: Agent | str | Mapping[str, Any],
    *,
    grader: GraderInterface,
    defaults: SuiteAssertions | None,
    preflight: bool,
    concurrency: int,
    output: Path | None = None,
) -> EvaluationResult:
    """One suite of an ``assay.yaml``'s plan (:mod:`assay.services.eval_file.plan`): its built ``grader``,
    the file's default assertions and rules, its preflight unless the file allows invalid expected outputs.
    What the pytest plugin runs for ``eval_file=``; :func:`evaluate` is the documented entry."""
    read = _cases(suite, defaults=defaults, preflight=grader if preflight else None)
    return asyncio.run(_evaluate(read, target, grader, concurrency=concurrency, output=output))
