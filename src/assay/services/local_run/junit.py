"""A JUnit XML report of a run, for CI systems: one test case per result, written as the results are read.

A case graded by its own assertions says each one's verdict as a ``<property name="assertion NAME">``
(``passed``, else its status: ``mismatch``, ``invalid_response``...), and its failure's message names the
assertions that did not pass; one ``<testcase>`` per case, so the counts stay the run's.

Results come as a results file holds them (:meth:`CaseResult.as_record`), in its order; the test cases go to
a temporary file first, as the counts of the ``<testsuite>`` element that encloses them come last, so a
million results cost the memory of one.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from assay.graders.composite.assertions import AssertionVerdict, assertion_verdicts
from assay.graders.contract.verdict import reason_of
from assay.services.execution.case_results import RunCase
from assay.services.suites.case_keys import case_label

# Characters XML 1.0 cannot hold at all (control characters, lone surrogates, U+FFFE/U+FFFF).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_NAME_CHARS = 80


def _run_label(result: Mapping[str, Any]) -> str:
    """The case's label, with its repeat past the first (``case #3 (repeat 2)``): a test per run."""
    label = case_label(result["number"], result["key"])
    repeat = result.get("repeat", 0)
    return f"{label} (repeat {repeat})" if repeat else label


def _xml_text(value: object) -> str:
    return _NOT_XML.sub("\ufffd", "" if value is None else str(value))


def _test_case(suite_name: str, result: Mapping[str, Any]) -> ET.Element:
    """The ``<testcase>`` of one result: with a ``<failure>`` when it failed, an ``<error>`` for a target
    error."""
    case = ET.Element(
        "testcase",
        classname=_xml_text(suite_name),
        name=_xml_text(f"{_run_label(result)}: {result['input'][:_NAME_CHARS]}"),
        time=f"{(result['latency_ms'] or 0) / 1000:.3f}",
    )
    verdicts = assertion_verdicts(result["details"])
    if verdicts:
        properties = ET.SubElement(case, "properties")
        for verdict in verdicts:
            ET.SubElement(
                properties, "property", name=_xml_text(f"assertion {verdict.name}"), value=_status(verdict)
            )
    if result["error"] is not None:
        error = ET.SubElement(
            case, "error", message=_xml_text(result["error"]), type=_xml_text(result["error"])
        )
        error.text = _xml_text(result["error_detail"])
    elif not result["passed"]:
        reason = reason_of(
            result["details"] or {}
        )  # read from the details: a line of an older run lacks "reason"
        reason = "did not pass" if reason is None else reason
        failed = [verdict for verdict in verdicts or () if not verdict.passed]
        if failed:
            named = ", ".join(f"{verdict.name} ({_status(verdict)})" for verdict in failed)
            reason = f"assertions not passed: {named}; {reason}"
        failure = ET.SubElement(
            case, "failure", message=_xml_text(reason), type=_xml_text(result["match_status"])
        )
        lines = [f"{verdict.name}: {verdict.reason or _status(verdict)}" for verdict in failed]
        failure.text = _xml_text(
            "\n".join(
                [
                    f"expected: {result['expected_output']!r}",
                    f"agent_response: {result['agent_response']!r}",
                    *lines,
                ]
            )
        )
    return case


def _status(verdict: AssertionVerdict) -> str:
    return "passed" if verdict.passed else verdict.match_status


def _not_run(suite_name: str, case: RunCase) -> ET.Element:
    """The ``<testcase>`` of a case the run never ran (it was interrupted): skipped."""
    target_case = case.target_case
    element = ET.Element(
        "testcase",
        classname=_xml_text(suite_name),
        name=_xml_text(
            f"{case_label(target_case.place, target_case.key)}: {target_case.input[:_NAME_CHARS]}"
        ),
        time="0.000",
    )
    ET.SubElement(element, "skipped", message="not run: the run was stopped before this case")
    return element


def write_junit(
    path: Path,
    suite_name: str,
    results: Iterable[Mapping[str, Any]],
    duration_s: float,
    *,
    cases: Iterable[RunCase] = (),
    count: int = 0,
) -> None:
    """Write ``results`` as a JUnit ``<testsuite>``: a failure per failed case, an error per target error,
    and each of ``cases`` (the run's, numbered up to ``count``) without a result as skipped."""
    tests = failures = errors = skipped = 0
    seen = bytearray(count + 1)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as body:

        def add(case: ET.Element) -> None:
            ET.indent(case, level=1)
            body.write(f"  {ET.tostring(case, encoding='unicode')}\n")

        for result in results:
            if 0 < result["number"] <= count:
                seen[result["number"]] = 1
            tests += 1
            errors += result["error"] is not None
            failures += result["error"] is None and not result["passed"]
            add(_test_case(suite_name, result))
        for run_case in cases:
            if not seen[run_case.target_case.place]:
                tests += 1
                skipped += 1
                add(_not_run(suite_name, run_case))
        body.seek(0)
        with path.open("w", encoding="utf-8") as report:
            report.write("<?xml version='1.0' encoding='utf-8'?>\n")
            report.write(
                f'<testsuite name={quoteattr(_xml_text(suite_name))} tests="{tests}" failures="{failures}" '
                f'errors="{errors}" skipped="{skipped}" time="{duration_s:.3f}">\n'
            )
            shutil.copyfileobj(body, report)
            report.write("</testsuite>\n")
