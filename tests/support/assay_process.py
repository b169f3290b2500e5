"""A real ``assay serve`` on 127.0.0.1 for end-to-end tests: start, wait until healthy, SIGKILL, restart.

Usage::

    with AssayProcess(tmp_path) as assay:          # a fresh SQLite database in tmp_path
        assay.client.post("/api/suites", json=...)  # httpx2.Client on assay.url
        assay.kill()                                # SIGKILL: no shutdown code runs
        assay.start()                               # same port, same database

The server's output goes to ``tmp_path/assay-serve.log``; a start that fails shows its tail.
Extra environment (``ASSAY_*`` settings) can be passed as ``env``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx2

from tests.support.agent_server import free_port
from tests.support.waiting import wait_for

# Returns as soon as the process is ready: long only for a busy machine running two tests at once.
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 10.0
FINISH_POLL_S = 0.1
"""How often a test asks a real server whether an evaluation finished: each answer costs the server about
4 ms of CPU and the test 1.5 ms (measured), so asking 50 times a second took a fifth of a core."""
_LOG_TAIL_CHARS = 3000


class _AssayCommand:
    """One ``assay`` subprocess writing to a log: start until ready, SIGKILL, stop, start again."""

    command: str
    """The ``assay`` subcommand run."""
    stop_timeout_s = STOP_TIMEOUT_S

    def __init__(self, log_path: Path, database_url: str, env: dict[str, str] | None) -> None:
        self.log_path = log_path
        self.database_url = database_url
        # Only the settings given here: the tester's own ASSAY_* must not leak into the process.
        inherited = {name: value for name, value in os.environ.items() if not name.startswith("ASSAY_")}
        self._env = {**inherited, "ASSAY_DATABASE_URL": database_url, "PYTHONUNBUFFERED": "1", **(env or {})}
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def is_running(self) -> bool:
        """Whether the process is alive."""
        return self.process is not None and self.process.poll() is None

    def _arguments(self) -> tuple[str, ...]:
        """The options after the subcommand."""
        return ()

    def _is_ready(self, log_before: int) -> bool:
        """Whether the started process serves (``log_before``: the log's length before it started)."""
        raise NotImplementedError

    def start(self) -> Self:
        """Start the process and return once it is ready."""
        if self.is_running:
            raise RuntimeError(f"assay {self.command} is already running")
        log_before = self.log_path.stat().st_size if self.log_path.exists() else 0
        with self.log_path.open("ab") as log:
            log.write(f"\n---- start {self.starts + 1} ----\n".encode())
            self.process = subprocess.Popen(
                [sys.executable, "-m", "assay.cli", self.command, *self._arguments()],
                env=self._env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.starts += 1

        def ready() -> bool:
            if not self.is_running:
                raise RuntimeError(f"assay {self.command} exited while starting:\n{self.log_tail()}")
            return self._is_ready(log_before)

        try:
            wait_for(ready, START_TIMEOUT_S, what=f"assay {self.command} to be ready", every=0.05)
        except AssertionError:
            self.kill()
            raise RuntimeError(
                f"assay {self.command} was not ready within {START_TIMEOUT_S} s:\n{self.log_tail()}"
            ) from None
        return self

    def kill(self) -> None:
        """SIGKILL the process (a crash: no shutdown code runs) and reap it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=STOP_TIMEOUT_S)

    def restart(self) -> Self:
        """SIGKILL if running, then start again."""
        self.kill()
        return self.start()

    def stop(self) -> None:
        """Stop gracefully (SIGTERM), killing it if it does not exit in time."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=self.stop_timeout_s)
            except subprocess.TimeoutExpired:
                self.kill()

    def ports_to(self, port: int) -> set[int]:
        """The local ports of this process's TCP connections to ``port`` on 127.0.0.1 (which calls an agent
        received came from it), read from ``/proc``."""
        if not self.is_running:
            return set()
        assert self.process is not None
        inodes = set()
        for fd in Path(f"/proc/{self.process.pid}/fd").iterdir():
            try:
                link = os.readlink(fd)
            except OSError:  # closed meanwhile
                continue
            if link.startswith("socket:["):
                inodes.add(link[len("socket:[") : -1])
        ports = set()
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            local, remote, inode = fields[1], fields[2], fields[9]
            if inode in inodes and remote == f"0100007F:{port:04X}":
                ports.add(int(local.rsplit(":", 1)[1], 16))
        return ports

    def log(self) -> str:
        """The process's whole output so far (every start)."""
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self) -> str:
        """The end of the process's output (for a failure's message)."""
        return self.log()[-_LOG_TAIL_CHARS:]

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class AssayProcess(_AssayCommand):
    """One ``assay serve`` subprocess, restartable on the same port and database; ready when
    ``/api/health`` answers 200."""

    command = "serve"

    def __init__(
        self,
        directory: Path,
        *,
        database_url: str | None = None,
        env: dict[str, str] | None = None,
        seed_demo: bool | None = False,
        args: tuple[str, ...] = (),
        name: str = "assay-serve",
    ) -> None:
        """Args:
        directory: where the SQLite database (by default) and the log go.
        database_url: another database (e.g. PostgreSQL) instead of ``directory/assay.db``.
        env: extra environment, such as ``{"ASSAY_API_KEY": "..."}``.
        seed_demo: ``ASSAY_SEED_DEMO``; ``None`` leaves it unset, as a user's first ``assay serve``.
        args: more options of ``assay serve`` (``--no-worker``).
        name: the log's name (``<name>.log`` in ``directory``), for several servers in one test.
        """
        super().__init__(
            directory / f"{name}.log", database_url or f"sqlite:///{directory / 'assay.db'}", env
        )
        self.directory = directory
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.args = args
        self.client = httpx2.Client(base_url=self.url, timeout=30.0)
        if seed_demo is not None:
            self._env["ASSAY_SEED_DEMO"] = "true" if seed_demo else "false"

    def _arguments(self) -> tuple[str, ...]:
        return ("--host", "127.0.0.1", "--port", str(self.port), *self.args)

    def _is_ready(self, log_before: int) -> bool:
        try:
            return self.client.get("/api/health", timeout=1.0).status_code == 200
        except httpx2.TransportError:
            return False

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        super().__exit__(exc_type, exc, tb)
        self.client.close()


class WorkerProcess(_AssayCommand):
    """One ``assay worker`` subprocess on a PostgreSQL database: start, SIGKILL, start again; ready once it
    logs that it takes jobs."""

    command = "worker"
    stop_timeout_s = STOP_TIMEOUT_S + 10  # a worker drains its jobs first
    READY = "runs evaluations"
    """What the worker logs once it takes jobs."""

    def __init__(self, directory: Path, *, database_url: str, env: dict[str, str] | None = None) -> None:
        super().__init__(directory / "assay-worker.log", database_url, env)

    def _is_ready(self, log_before: int) -> bool:
        with self.log_path.open("rb") as log:
            log.seek(log_before)
            return self.READY.encode() in log.read()
