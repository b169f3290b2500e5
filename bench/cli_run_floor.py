"""The floor of ``assay run`` over recorded answers: the same work in a bare standard-library script.

Run: ``python bench/cli_run_floor.py SUITE.jsonl ANSWERS.jsonl OUT.jsonl``. It reads the suite and the
answers (row N answers case N, or answers naming their case by ``key``, held in a dict) line by line, grades
each answer with the true-false rules (the default aliases, case folded), writes one JSON line per case with
the fields ``assay run -o`` writes, and prints ``passed/total``. No validation, no concurrency, no summary
beyond the count: what a machine needs at least to do the job, for ``bench/cli_run.py`` to set ``assay run``
beside.
"""

from __future__ import annotations

import json
import sys
from typing import BinaryIO

TRUE = {"true", "yes", "1"}
FALSE = {"false", "no", "0"}


def boolean(text: str) -> str | None:
    """``"true"``, ``"false"`` or ``None``: what the text means under the default aliases."""
    folded = text.strip().casefold()
    return "true" if folded in TRUE else "false" if folded in FALSE else None


def grade(answer: str, expected: str) -> dict[str, object]:
    """The true-false verdict's details for one answer (the fields the grader writes)."""
    expected_bool, actual_bool = boolean(expected), boolean(answer)
    if expected_bool is None:
        status, reason = "invalid_expected", f"Expected value '{expected}' is not a valid boolean"
    elif not answer.strip():
        status, reason = "invalid_response", "Response is empty"
    elif actual_bool is None:
        status, reason = "invalid_response", f"Response '{answer}' does not represent a boolean value"
    elif actual_bool != expected_bool:
        status, reason = "mismatch", f"Expected {expected_bool} but got {actual_bool}"
    else:
        status, reason = "match", "Expected and actual values match"
    return {
        "expected_bool": expected_bool,
        "actual_bool": actual_bool,
        "match_status": status,
        "reason": reason,
        "expected_original": expected,
        "actual_original": answer,
        "normalized_expected": expected.strip().casefold(),
        "normalized_actual": answer.strip().casefold(),
    }


def _keyed(answers: BinaryIO) -> dict[str, str] | None:
    """Answers by key, when they name their cases by key (read whole: the floor of matching by key);
    ``None`` (and the file back at its start) when they answer by row."""
    first = answers.readline()
    answers.seek(0)
    if not first or "key" not in json.loads(first):
        return None
    return {row["key"]: row["agent_response"] for row in map(json.loads, answers)}


def main(suite_path: str, answers_path: str, output_path: str) -> None:
    """Grade every case of the suite with its recorded answer and write the results."""
    passed = total = 0
    with (
        open(suite_path, "rb") as suite,
        open(answers_path, "rb") as answers,
        open(output_path, "w", encoding="utf-8") as output,
    ):
        keyed = _keyed(answers)
        rows = zip(suite, answers, strict=True) if keyed is None else ((line, None) for line in suite)
        for number, (case_line, answer_line) in enumerate(rows, 1):
            case = json.loads(case_line)
            if keyed is None:
                answer = json.loads(answer_line)["agent_response"]
            else:
                answer = keyed.pop(case["id"])
            details = grade(answer, case["expected_output"])
            ok = details["match_status"] == "match"
            record = {
                "number": number,
                "key": case.get("key", case.get("id")),
                "input": case["input"],
                "expected_output": case["expected_output"],
                "agent_response": answer,
                "passed": ok,
                "score": 1.0 if ok else 0.0,
                "match_status": details["match_status"],
                "details": details,
                "error": None,
                "error_detail": None,
                "latency_ms": None,
                "attempts": 1,
            }
            output.write(json.dumps(record, ensure_ascii=False) + "\n")
            passed += ok
            total += 1
    print(f"{passed}/{total} passed")


if __name__ == "__main__":
    main(*sys.argv[1:4])
