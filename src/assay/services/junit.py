"""A JUnit XML report of a run, for CI systems: one test case per suite case."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from assay.services.case_keys import case_label
from assay.services.runner import CaseResult

# Characters XML 1.0 cannot hold at all (control characters, lone surrogates, U+FFFE/U+FFFF).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_NAME_CHARS = 80


def _xml_text(value: object) -> str:
    return _NOT_XML.sub("\ufffd", "" if value is None else str(value))


def write_junit(path: Path, suite_name: str, results: Sequence[CaseResult], duration_s: float) -> None:
    """Write ``results`` as a JUnit ``<testsuite>``: a failure per failed case, an error per target error."""
    failures = sum(1 for result in results if not result.passed and result.error is None)
    errors = sum(1 for result in results if result.error is not None)
    suite = ET.Element(
        "testsuite",
        name=_xml_text(suite_name),
        tests=str(len(results)),
        failures=str(failures),
        errors=str(errors),
        time=f"{duration_s:.3f}",
    )
    for result in results:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=_xml_text(suite_name),
            name=_xml_text(f"{case_label(result.number, result.key)}: {result.input[:_NAME_CHARS]}"),
            time=f"{(result.latency_ms or 0) / 1000:.3f}",
        )
        if result.error is not None:
            error = ET.SubElement(
                case, "error", message=_xml_text(result.error), type=_xml_text(result.error)
            )
            error.text = _xml_text(result.error_detail)
        elif not result.passed:
            reason = (result.details or {}).get("reason", "did not pass")
            failure = ET.SubElement(
                case, "failure", message=_xml_text(reason), type=_xml_text(result.match_status)
            )
            failure.text = _xml_text(
                f"expected: {result.expected_output!r}\nagent_response: {result.agent_response!r}"
            )
    document = ET.ElementTree(suite)
    ET.indent(document)
    document.write(path, encoding="utf-8", xml_declaration=True)
