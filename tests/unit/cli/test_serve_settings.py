"""``assay serve`` with a mistake in its settings: one line saying what is wrong and how to fix it, exit 2.

Run as a real process; none of these cases gets as far as listening.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.agent_server import free_port

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
        ({"ASSAY_MAX_BODY_BYTES": "abc"}, "ASSAY_MAX_BODY_BYTES: Input should be a valid integer"),
        ({"ASSAY_MAX_BODY_BYTES": "0"}, "ASSAY_MAX_BODY_BYTES: Input should be greater than or equal to 1"),
        (
            {"ASSAY_DATABASE_URL": "postgresql://user:s3cret-pw@127.0.0.1:9/db"},
            "cannot connect to the database at postgresql+psycopg://user:***@127.0.0.1:9/db: ",
        ),
        (
            {"ASSAY_DATABASE_URL": "sqlite:////proc/no-such/assay.db"},
            "cannot create the folder /proc/no-such",
        ),
    ],
)
def test_a_bad_setting_is_one_line_and_exit_two(tmp_path: Path, env: dict[str, str], message: str) -> None:
    proc = serve({"ASSAY_DATABASE_URL": f"sqlite:///{tmp_path / 'assay.db'}", **env})
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "s3cret-pw" not in proc.stderr + proc.stdout
