"""``assay serve`` with a mistake in its settings: one line saying what is wrong and how to fix it, exit 2.

Run as a real process; none of these cases gets as far as listening.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.agent_server import free_port
from tests.support.assay_process import AssayProcess

ASSAY = [sys.executable, "-m", "assay.cli"]


def serve(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ASSAY, "serve", "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **env},
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ASSAY_DATABASE_URL": "mysql://x/y"}, "unsupported database 'mysql'; use sqlite:///"),
        ({"ASSAY_DATABASE_URL": "::not a url"}, "ASSAY_DATABASE_URL is not a database URL; use sqlite:///"),
        (
            {"ASSAY_MAX_BODY_BYTES": "abc"},
            "ASSAY_MAX_BODY_BYTES: Input should be a valid integer, unable to parse string as an integer; "
            "fix it or unset it (default 1048576)",
        ),
        ({"ASSAY_MAX_BODY_BYTES": "0"}, "ASSAY_MAX_BODY_BYTES: Input should be greater than or equal to 1"),
        ({"ASSAY_SEED_DEMO": "maybe"}, "ASSAY_SEED_DEMO: Input should be a valid boolean"),
        (
            {"ASSAY_DATABASE_URL": "postgresql://user:s3cret-pw@127.0.0.1:9/db"},
            "cannot connect to the database at postgresql+psycopg://user:***@127.0.0.1:9/db: ",
        ),
        ({"ASSAY_DATABASE_URL": "postgresql://127.0.0.1:9/db"}, "; start PostgreSQL there"),
        ({"ASSAY_WEB_DIST": "/no/such/ui"}, "ASSAY_WEB_DIST: /no/such/ui holds no index.html; point it at"),
        ({"ASSAY_TARGET_ALLOW": "999.1.1.1/77"}, "ASSAY_TARGET_ALLOW entry '999.1.1.1/77'"),
        (
            {"ASSAY_DATABASE_URL": "sqlite:////nonexistent/dir/assay.db"},
            "ASSAY_DATABASE_URL: the folder /nonexistent/dir of the SQLite database does not exist",
        ),
        (
            {"ASSAY_DATABASE_URL": "sqlite:////dev/null"},
            "ASSAY_DATABASE_URL: /dev/null is not a regular file",
        ),
    ],
)
def test_a_bad_setting_is_one_line_and_exit_two(tmp_path: Path, env: dict[str, str], message: str) -> None:
    proc = serve({"ASSAY_DATABASE_URL": f"sqlite:///{tmp_path / 'assay.db'}", **env})
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "s3cret-pw" not in proc.stderr + proc.stdout


def test_a_port_in_use_is_one_line_saying_what_to_do(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [*ASSAY, "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={**os.environ, "ASSAY_DATABASE_URL": f"sqlite:///{tmp_path / 'assay.db'}"},
        )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == (
        f"error: cannot listen on 127.0.0.1 port {port}: Address already in use; another program listens "
        "there: stop it, or choose another --port"
    )


def test_the_log_says_where_the_sqlite_file_is(tmp_path: Path) -> None:
    database = tmp_path / "data" / "assay.db"
    database.parent.mkdir()  # a folder ASSAY_DATABASE_URL names must exist (only the default one is made)
    with AssayProcess(tmp_path, database_url=f"sqlite:///{database}"):
        log = (tmp_path / "assay-serve.log").read_text()
    assert f"database: SQLite file {database}\n" in log
