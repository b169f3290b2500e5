"""Running the ``assay`` command in process, as its script runs it: errors become one line and an exit code
(``assay.cli.main.main``), stdout and stderr kept apart."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from click.testing import CliRunner

from assay.cli.main import main


@dataclass(frozen=True)
class Invoked:
    """What a command did: its exit code, and what it wrote to each stream."""

    code: int
    stdout: str
    stderr: str

    @property
    def message(self) -> str:
        """stderr on one line (a long message a terminal would wrap, joined)."""
        return " ".join(self.stderr.split())


def invoke(*args: str, env: dict[str, str | None] | None = None) -> Invoked:
    """Run ``assay ARGS`` in this process."""
    argv = sys.argv
    with CliRunner().isolation(env=env) as (stdout, stderr, _):
        sys.argv = ["assay", *args]
        code = 0
        try:
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            sys.argv = argv
        return Invoked(code, stdout.getvalue().decode(), stderr.getvalue().decode())
