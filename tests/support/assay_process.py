"""A real ``assay serve`` on 127.0.0.1 for end-to-end tests: start, wait until healthy, SIGKILL, restart.

Usage::

    with AssayProcess(tmp_path) as assay:          # a fresh SQLite database in tmp_path
        assay.client.post("/api/suites", json=...)  # httpx.Client on assay.url
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
import time
from pathlib import Path
from types import TracebackType

import httpx

from tests.support.agent_server import free_port

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
_LOG_TAIL_CHARS = 3000


class AssayProcess:
    """One ``assay serve`` subprocess, restartable on the same port and database."""

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
        self.directory = directory
        self.database_url = database_url or f"sqlite:///{directory / 'assay.db'}"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = directory / f"{name}.log"
        self.args = args
        self.client = httpx.Client(base_url=self.url, timeout=30.0)
        inherited = {name: value for name, value in os.environ.items() if not name.startswith("ASSAY_")}
        self._env = {
            **inherited,
            "ASSAY_DATABASE_URL": self.database_url,
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        if seed_demo is not None:
            self._env["ASSAY_SEED_DEMO"] = "true" if seed_demo else "false"
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def is_running(self) -> bool:
        """Whether the process is alive."""
        return self.process is not None and self.process.poll() is None

    def start(self) -> AssayProcess:
        """Start the server and return once ``/api/health`` answers 200."""
        if self.is_running:
            raise RuntimeError("assay serve is already running")
        with self.log_path.open("ab") as log:
            log.write(f"\n---- start {self.starts + 1} ----\n".encode())
            self.process = subprocess.Popen(
                [
                    *(sys.executable, "-m", "assay.cli", "serve"),
                    *("--host", "127.0.0.1", "--port", str(self.port), *self.args),
                ],
                env=self._env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.starts += 1
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if not self.is_running:
                raise RuntimeError(f"assay serve exited while starting:\n{self.log_tail()}")
            try:
                if self.client.get("/api/health", timeout=1.0).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"assay serve was not healthy within {START_TIMEOUT_S} s:\n{self.log_tail()}")

    def kill(self) -> None:
        """SIGKILL the server (a crash: no shutdown code runs) and reap it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=STOP_TIMEOUT_S)

    def restart(self) -> AssayProcess:
        """SIGKILL if running, then start again on the same port and database."""
        self.kill()
        return self.start()

    def stop(self) -> None:
        """Stop gracefully (SIGTERM), killing it if it does not exit in time."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.kill()

    def log_tail(self) -> str:
        """The end of the server's output."""
        try:
            return self.log_path.read_text(errors="replace")[-_LOG_TAIL_CHARS:]
        except OSError:
            return ""

    def __enter__(self) -> AssayProcess:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
        self.client.close()


class WorkerProcess:
    """One ``assay worker`` subprocess on a PostgreSQL database: start, SIGKILL, start again."""

    READY = "runs evaluations"
    """What the worker logs once it takes jobs."""

    def __init__(self, directory: Path, *, database_url: str, env: dict[str, str] | None = None) -> None:
        self.log_path = directory / "assay-worker.log"
        inherited = {name: value for name, value in os.environ.items() if not name.startswith("ASSAY_")}
        self._env = {**inherited, "ASSAY_DATABASE_URL": database_url, "PYTHONUNBUFFERED": "1", **(env or {})}
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def is_running(self) -> bool:
        """Whether the process is alive."""
        return self.process is not None and self.process.poll() is None

    def start(self) -> WorkerProcess:
        """Start the worker and return once it logs that it takes jobs."""
        if self.is_running:
            raise RuntimeError("assay worker is already running")
        before = self.log_path.read_text(errors="replace").count(self.READY) if self.log_path.exists() else 0
        with self.log_path.open("ab") as log:
            log.write(f"\n---- start {self.starts + 1} ----\n".encode())
            self.process = subprocess.Popen(
                [sys.executable, "-m", "assay.cli", "worker"],
                env=self._env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.starts += 1
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if not self.is_running:
                raise RuntimeError(f"assay worker exited while starting:\n{self.log_tail()}")
            if self.log_path.read_text(errors="replace").count(self.READY) > before:
                return self
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"assay worker was not ready within {START_TIMEOUT_S} s:\n{self.log_tail()}")

    def kill(self) -> None:
        """SIGKILL the worker (no shutdown code runs) and reap it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=STOP_TIMEOUT_S)

    def stop(self) -> None:
        """Stop gracefully (SIGTERM), killing it if it does not exit in time."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_TIMEOUT_S + 10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> WorkerProcess:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def log_tail(self) -> str:
        """The end of the worker's output."""
        try:
            return self.log_path.read_text(errors="replace")[-_LOG_TAIL_CHARS:]
        except OSError:
            return ""
