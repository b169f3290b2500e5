"""Several ``assay`` commands in one new Python process: one start-up (imports, ~2 CPU-s) for them all.

For end-to-end tests whose subject is what commands say (their output, messages and exit codes) rather than
how a process starts: each command runs as :func:`tests.support.cli.invoke` runs it (the script's
``main``, stdout and stderr kept apart, neither a terminal), in a process of its own, away from the test
process's state (its event loop, its imports, its environment). Usage::

    first, second = invoke_in_one_process([Command(("history", "x")), Command(("failures", "1"))])

The process reads the commands as JSON on stdin and writes what each did as JSON on stdout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tests.support.cli import Invoked, invoke

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 120.0


@dataclass(frozen=True)
class Command:
    """One command of the batch: its arguments after ``assay``, the environment it adds (``None`` unsets a
    variable) and the folder it runs in (the batch's own when ``None``)."""

    args: tuple[str, ...]
    env: dict[str, str | None] = field(default_factory=dict)
    cwd: str | None = None


def invoke_in_one_process(
    commands: Sequence[Command],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = TIMEOUT_S,
) -> list[Invoked]:
    """What each of ``commands`` did, run in turn in one new process (``env``: added to this process's)."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.cli_batch"],
        input=json.dumps([asdict(command) for command in commands]),
        env={**os.environ, **(env or {}), "PYTHONPATH": path},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"the batch of assay commands failed:\n{done.stderr}"
    return [Invoked(**ran) for ran in json.loads(done.stdout)]


def by_arguments(cases: Iterable[tuple[Sequence[str], object]], ran: Sequence[Invoked]) -> dict[str, Invoked]:
    """What each case's command did, by the case's arguments joined with spaces (cases: arguments first)."""
    return {" ".join(args): proc for (args, _), proc in zip(cases, ran, strict=True)}


def assert_one_line_usage_error(proc: Invoked, message: str) -> None:
    """A usage error: exit 2, and ``message`` on the one line written to stderr."""
    assert proc.code == 2, proc.stderr
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def main() -> None:
    """Run the commands read on stdin; write what each did on stdout."""
    ran = []
    home = Path.cwd()
    for command in json.load(sys.stdin):
        os.chdir(command["cwd"] or home)
        ran.append(asdict(invoke(*command["args"], env=command["env"] or None)))
    json.dump(ran, sys.stdout)


if __name__ == "__main__":
    main()
