"""``assay history``, ``assay breakdown`` and ``assay failures`` on a database that the app filled (three
recorded runs of one suite), and what they say when the database is not there.

Each command's table is printed by a real process of its own; its other options and its refusals run in one
more process per test (tests/support/cli_batch.py), where each costs no start-up of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient

from assay.api.app import create_app
from assay.config import Settings
from assay.storage.database import MIGRATIONS, create_db_engine
from tests.factories import wait_until_finished
from tests.support.cli import Invoked
from tests.support.cli_batch import Command, assert_one_line_usage_error, by_arguments, invoke_in_one_process

ASSAY = [sys.executable, "-m", "assay.cli"]
LANGS = ["en"] * 6 + ["fr"] * 4 + ["de"] * 2
ALL_RIGHT = ["yes"] * 12
# fr fails 3 of 4 (two mismatches, one unreadable answer), en 1 of 6, de 1 of 2 (no recorded answer).
WORSE = ["yes"] * 5 + ["no"] + ["no", "no", "maybe", "yes"] + ["yes", None]


@dataclass(frozen=True)
class Stored:
    """A database holding one suite and its three completed runs."""

    url: str
    suite_id: int
    case_ids: list[int]
    first: int
    worse: int
    last: int


def _finished(client: TestClient, evaluation_id: int) -> None:
    assert wait_until_finished(client, evaluation_id, timeout=30)["status"] == "completed"


def key(n: int) -> str:
    """The key of case ``n`` (from 0): Rich markup, which the tables must print as it is."""
    return f"[/q{n}]"


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    url = f"sqlite:///{tmp_path_factory.mktemp('views') / 'assay.db'}"
    with TestClient(create_app(Settings(database_url=url, api_key=None))) as client:
        cases = [
            {
                "input": f"Is statement {n} true?",
                "expected_output": "true",
                "metadata": {"lang": lang},
                "key": key(n),
            }
            for n, lang in enumerate(LANGS)
        ]
        suite_id = client.post("/api/suites", json={"name": "cli views", "cases": cases}).json()["data"]["id"]
        listed = client.get(f"/api/suites/{suite_id}/cases").json()["data"]["cases"]
        case_ids = [case["id"] for case in listed]
        ids = []
        for name, answers in (("first", ALL_RIGHT), ("worse [red]run[/red]", WORSE), ("fixed", ALL_RIGHT)):
            responses = {key(n): a for n, a in enumerate(answers) if a is not None}
            body = {
                "suite_id": suite_id,
                "grader_id": "true-false",
                "target": {"type": "recorded", "responses": responses},
                "name": name,
            }
            ids.append(client.post("/api/evaluations", json=body).json()["data"]["id"])
            _finished(client, ids[-1])
    return Stored(url, suite_id, case_ids, *ids)


# A wide terminal, so that no table cell wraps under the assertions.
WIDE = {"COLUMNS": "200"}


def assay(*args: str, url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ASSAY_DATABASE_URL": url, **WIDE}
    return subprocess.run([*ASSAY, *args], capture_output=True, text=True, timeout=60, check=False, env=env)


def assay_each(*commands: list[str], url: str) -> list[Invoked]:
    """What each command did, all run in one process on the database at ``url``."""
    batch = [Command(tuple(args)) for args in commands]
    return invoke_in_one_process(batch, env={"ASSAY_DATABASE_URL": url, **WIDE})


def rows(stdout: str) -> list[list[str]]:
    """The cells of a printed table's body rows."""
    lines = [line for line in stdout.splitlines() if line.startswith("│")]
    return [[cell.strip() for cell in line.strip("│").split("│")] for line in lines]


def test_history_lists_the_runs_with_the_regression_marked(stored: Stored) -> None:
    by_name = assay("history", "cli views", url=stored.url)
    assert by_name.returncode == 0, by_name.stderr
    table = rows(by_name.stdout)
    assert [row[0] for row in table] == [str(stored.first), str(stored.worse), str(stored.last)]
    assert table[1][1] == "worse [red]run[/red]"  # a name is text, never markup
    assert table[1][5:8] == ["58.3%", "32.0% – 80.7%", "12"]
    assert table[1][8] == f"regression vs #{stored.first}"
    assert table[2][8] == f"improvement vs #{stored.worse}"
    assert table[0][8] == ""
    assert "3 of 3 completed evaluations" in by_name.stdout

    by_id, newest, other_grader = assay_each(
        ["history", str(stored.suite_id), "--json"],
        ["history", "cli views", "--limit", "1", "--json"],
        ["history", "cli views", "--grader", "string-match"],
        url=stored.url,
    )
    data = json.loads(by_id.stdout)
    assert data["suite"] == "cli views"
    assert data["total"] == 3
    assert [point["shift"] for point in data["points"]] == [None, "regression", "improvement"]
    assert data["points"][1]["pass_rate"]["passed"] == 7

    assert [point["evaluation_id"] for point in json.loads(newest.stdout)["points"]] == [stored.last]

    assert other_grader.code == 0
    assert "has no completed evaluation yet" in other_grader.stderr


def test_breakdown_is_worst_first_with_intervals(stored: Stored) -> None:
    proc = assay("breakdown", str(stored.worse), url=stored.url)
    assert proc.returncode == 0, proc.stderr
    assert "by 'lang', of the keys: lang (12)" in proc.stderr
    table = rows(proc.stdout)
    assert [row[0] for row in table] == ["fr", "de", "en"]
    assert [row[2:] for row in table] == [
        ["25.0%", "4.6% – 69.9%", "1", "4"],
        ["50.0%", "9.5% – 90.5%", "1", "2"],
        ["83.3%", "43.6% – 97.0%", "5", "6"],
    ]
    assert table[0][1] == "█▒▒▒▒▒▒▒▒▒▒▒▒▒······"  # solid below the interval, shaded across it
    assert "overall 58.3% (7 of 12)" in proc.stdout

    json_run, missing = assay_each(
        ["breakdown", str(stored.worse), "-k", "lang", "--json"],
        ["breakdown", str(stored.worse), "--key", "topic"],
        url=stored.url,
    )
    as_json = json.loads(json_run.stdout)
    assert [group["label"] for group in as_json["groups"]] == ["fr", "de", "en"]
    assert as_json["overall"]["total"] == 12

    assert missing.code == 2  # a key no case has is a mistake in the command, not a table of "(missing)"
    assert f"no case of evaluation {stored.worse} has the metadata key 'topic' (its keys: lang" in (
        " ".join(missing.stderr.split())
    )
    assert missing.stdout == ""


def test_failures_by_group_and_one_group_s_cases(stored: Stored) -> None:
    proc = assay("failures", str(stored.worse), url=stored.url)
    assert proc.returncode == 0, proc.stderr
    assert rows(proc.stdout) == [
        ["mismatch (match_status)", "3", "60.0%"],
        ["invalid_response (match_status)", "1", "20.0%"],
        ["no_recorded_response (error)", "1", "20.0%"],
    ]
    assert f"assay failures {stored.worse} --group NAME" in proc.stderr

    group = ["--group", "no_recorded_response", "--json"]
    mismatches, errors_run, nothing_failed = assay_each(
        ["failures", str(stored.worse), "--group", "mismatch"],
        ["failures", str(stored.worse), *group],
        ["failures", str(stored.first)],
        url=stored.url,
    )
    assert mismatches.code == 0, mismatches.stderr
    table = rows(mismatches.stdout)
    assert [row[0] for row in table] == ["6", "7", "8"]  # numbered from 1
    assert [row[1] for row in table] == [key(n) for n in (5, 6, 7)]
    assert [row[2] for row in table] == [str(stored.case_ids[n]) for n in (5, 6, 7)]
    assert table[0][3:] == ["Is statement 5 true?", "true", "no", "Expected true but got false"]

    errors = json.loads(errors_run.stdout)
    assert errors["total"] == 1
    assert errors["results"][0]["case_id"] == stored.case_ids[11]
    assert errors["results"][0]["agent_response"] is None

    assert nothing_failed.code == 0
    assert "no case failed" in nothing_failed.stderr


NOT_THERE = [
    (["history", "no such suite"], "Suite not found: no suite has the id or the name 'no such suite'"),
    (["history", "99999999999"], "no suite has the id or the name '99999999999'"),
    (["breakdown", "999"], "Evaluation not found: there is no evaluation 999"),
    (["failures", "999"], "there is no evaluation 999"),
    (["failures", "{worse}", "--group", "typo"], "has no failure group 'typo' (groups: mismatch, "),
]


@pytest.fixture(scope="module")
def not_there(stored: Stored) -> dict[str, Invoked]:
    """What each command of NOT_THERE did (all in one process), by its arguments as written there."""
    commands = [[arg.format(worse=stored.worse) for arg in args] for args, _ in NOT_THERE]
    ran = assay_each(*commands, url=stored.url)
    return by_arguments(NOT_THERE, ran)


@pytest.mark.parametrize(("args", "message"), NOT_THERE)
def test_what_is_not_there_is_one_line_and_exit_two(
    not_there: dict[str, Invoked], args: list[str], message: str
) -> None:
    assert_one_line_usage_error(not_there[" ".join(args)], message)


def test_no_database_an_empty_one_and_an_older_schema_each_say_what_to_do(tmp_path: Path) -> None:
    absent = tmp_path / "absent.db"
    empty = tmp_path / "empty.db"
    empty.touch()  # a SQLite database with no tables
    older = tmp_path / "older.db"
    engine = create_db_engine(f"sqlite:///{older}")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001_suites")
    engine.dispose()
    on_absent, on_empty, on_older = invoke_in_one_process(
        [
            Command(("history", "x"), {"ASSAY_DATABASE_URL": f"sqlite:///{absent}"}),
            Command(("failures", "1"), {"ASSAY_DATABASE_URL": f"sqlite:///{empty}"}),
            Command(("breakdown", "1"), {"ASSAY_DATABASE_URL": f"sqlite:///{older}"}),
        ],
        env=WIDE,
    )

    assert on_absent.code == 2
    assert f"no Assay database at {absent}: set ASSAY_DATABASE_URL" in on_absent.stderr
    assert not absent.exists()  # looking did not create it

    assert on_empty.code == 2
    assert "holds no Assay data" in on_empty.stderr

    assert on_older.code == 2
    assert "has an older schema: start `assay serve` once to upgrade it" in on_older.stderr
    assert len(on_older.stderr.strip().splitlines()) == 1, on_older.stderr
