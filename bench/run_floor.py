"""The floor of ``assay run`` with recorded answers: the same work in the standard library only.

Run: ``python bench/run_floor.py SUITE.jsonl RESPONSES.jsonl OUT.sqlite``. Reads the suite and the recorded
answers (JSONL, answers matched to cases by their place), grades each with the true-false rules (the default
aliases, case folded, surrounding space stripped; an empty answer or one naming no boolean is invalid), and
writes every result in one SQLite transaction. ``bench/startup.py`` times this process beside ``assay run``.
"""

from __future__ import annotations

import json
import sqlite3
import sys

TRUE_ALIASES = ("true", "True", "TRUE", "yes", "Yes", "YES", "1")
FALSE_ALIASES = ("false", "False", "FALSE", "no", "No", "NO", "0")
TABLE = {alias.strip().casefold(): "true" for alias in TRUE_ALIASES} | {
    alias.strip().casefold(): "false" for alias in FALSE_ALIASES
}


def grade(answer: object, expected: object) -> tuple[bool, str]:
    """(passed, match status) of one answer, by the true-false grader's rules."""
    expected_bool = TABLE.get(str(expected).strip().casefold())
    normalized = "" if answer is None else str(answer).strip().casefold()
    if expected_bool is None:
        return False, "invalid_expected"
    if not normalized:
        return False, "invalid_response"
    actual_bool = TABLE.get(normalized)
    if actual_bool is None:
        return False, "invalid_response"
    return actual_bool == expected_bool, "match" if actual_bool == expected_bool else "mismatch"


def main(suite_path: str, responses_path: str, database: str) -> None:
    """Grade every recorded answer and store the results."""
    with open(suite_path, encoding="utf-8") as suite, open(responses_path, encoding="utf-8") as responses:
        cases = [json.loads(line) for line in suite if line.strip()]
        answers = [json.loads(line)["agent_response"] for line in responses if line.strip()]
    rows = []
    for number, (case, answer) in enumerate(zip(cases, answers, strict=True), 1):
        passed, status = grade(answer, case["expected_output"])
        rows.append((number, case["input"], case["expected_output"], answer, passed, status))
    connection = sqlite3.connect(database)
    with connection:
        connection.execute(
            "CREATE TABLE IF NOT EXISTS result (number INTEGER PRIMARY KEY, input TEXT, expected TEXT,"
            " answer TEXT, passed INTEGER, match_status TEXT)"
        )
        connection.executemany("INSERT OR REPLACE INTO result VALUES (?, ?, ?, ?, ?, ?)", rows)
    connection.close()
    passed = sum(row[4] for row in rows)
    print(f"{passed}/{len(rows)} passed")


if __name__ == "__main__":
    main(*sys.argv[1:4])
