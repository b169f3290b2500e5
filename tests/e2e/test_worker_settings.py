"""``assay worker`` refuses to start when its settings disagree with those a real server recorded in the
same PostgreSQL database (a secret the servers' targets may read, the answer cap, the stalled time), in one
line with exit 2; with the server's settings it starts."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.assay_process import AssayProcess, WorkerProcess
from tests.support.postgres import new_database, require_postgres

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.xdist_group("processes")]

SECRET_VALUE = "value-of-the-token-never-shown"
SERVER_ENV = {
    "ASSAY_SECRET_TOKEN": SECRET_VALUE,
    "ASSAY_MAX_ANSWER_BYTES": "2048",
    "ASSAY_WORKER_STALLED_S": "5",
    "ASSAY_WORKER_HEARTBEAT_S": "0.3",
}
REFUSAL_TIMEOUT_S = 60.0


@pytest.fixture
def postgres_url() -> Iterator[str]:
    with new_database(require_postgres(), "assay_worker_settings", migrated=True) as url:
        yield url


def run_worker(database_url: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``assay worker`` with only these ``ASSAY_*`` settings, until it exits."""
    inherited = {name: value for name, value in os.environ.items() if not name.startswith("ASSAY_")}
    return subprocess.run(
        [sys.executable, "-m", "assay.cli", "worker"],
        env={**inherited, "ASSAY_DATABASE_URL": database_url, **env},
        capture_output=True,
        text=True,
        timeout=REFUSAL_TIMEOUT_S,
        check=False,
    )


def test_a_worker_unlike_the_server_refuses_to_start_and_one_like_it_starts(
    tmp_path: Path, postgres_url: str
) -> None:
    with AssayProcess(tmp_path, database_url=postgres_url, env=SERVER_ENV, args=("--no-worker",)):
        unlike = {"ASSAY_MAX_ANSWER_BYTES": "4096", "ASSAY_WORKER_HEARTBEAT_S": "0.3"}
        refused = run_worker(postgres_url, unlike)
        assert refused.returncode == 2, refused.stderr
        errors = [line for line in refused.stderr.splitlines() if "disagree" in line]
        assert len(errors) == 1, refused.stderr
        assert "ASSAY_SECRET_TOKEN set there, not here" in errors[0]
        assert "ASSAY_MAX_ANSWER_BYTES is 2048 there, 4096 here" in errors[0]
        assert "ASSAY_WORKER_STALLED_S is 5.0 there, 15.0 here" in errors[0]
        assert "ASSAY_WORKER_HEARTBEAT_S" not in errors[0]
        assert "Traceback" not in refused.stderr
        assert SECRET_VALUE not in refused.stderr
        assert WorkerProcess.READY not in refused.stderr

        with WorkerProcess(tmp_path, database_url=postgres_url, env=SERVER_ENV) as worker:
            assert worker.is_running
        assert "disagree" not in worker.log()
