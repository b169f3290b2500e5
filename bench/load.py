"""Load on a loopback HTTP server for the API benchmarks: ``wrk`` when installed, else an asyncio client.

``wrk -t1`` (Debian package ``wrk``) leaves the server the other core; the asyncio fallback, written with the
standard library, keeps many keep-alive connections in one process and measures less (Python is then the
bottleneck), so compare figures taken with the same client.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit


@dataclass(frozen=True, slots=True)
class Round:
    """Figures of one load round."""

    rps: float
    p50_ms: float
    p99_ms: float
    requests: int = 0
    """Requests answered in the round."""
    server_cpu_us: float = 0.0
    """The server process's CPU time (user + system) per request answered, in µs: unlike requests/s, it
    hardly moves with other processes' load."""


def free_port() -> int:
    """A port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until_up(server: subprocess.Popen[bytes], port: int, timeout_s: float = 60.0) -> None:
    """Return once ``GET /api/health`` answers 200."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and server.poll() is None:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", "/api/health")
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit(f"the server on port {port} did not start")


@dataclass(frozen=True, slots=True)
class Server:
    """A server process started by :func:`serving`."""

    url: str
    """Its base URL."""
    pid: int


@contextmanager
def serving(command: list[str], port: int, env: dict[str, str]) -> Iterator[Server]:
    """A server process answering on ``port``."""
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_up(server, port)
        yield Server(f"http://127.0.0.1:{port}", server.pid)
    finally:
        server.terminate()
        server.wait(timeout=10)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def with_server_cpu(pid: int, run: Callable[[], Round]) -> Round:
    """``run``'s round with the CPU time the server ``pid`` spent on it, per request."""
    before = cpu_seconds(pid)
    result = run()
    spent = cpu_seconds(pid) - before
    return replace(result, server_cpu_us=spent / max(result.requests, 1) * 1e6)


def has_wrk() -> bool:
    """Whether ``wrk`` is on the PATH."""
    return shutil.which("wrk") is not None


_WRK_LATENCY = re.compile(r"^\s*(50|99)%\s+([\d.]+)(us|ms|s)\s*$", re.MULTILINE)
_UNIT_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def run_wrk(url: str, seconds: float, connections: int, body: str | None = None) -> Round:
    """One ``wrk`` round (one thread: the server keeps the other core); a POST of ``body`` when given."""
    command = ["wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency", url]
    script = None
    if body is not None:
        script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)  # noqa: SIM115
        script.write(
            f'wrk.method = "POST"\nwrk.body = {json.dumps(body)}\n'
            'wrk.headers["Content-Type"] = "application/json"\n'
        )
        script.close()
        command[1:1] = ["-s", script.name]
    try:
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    finally:
        if script is not None:
            os.unlink(script.name)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+)", output)
    if "Non-2xx" in output or (errors and any(int(count) for count in errors.groups())):
        raise SystemExit(f"{url} answered errors:\n{output}")  # timeouts (a loaded machine) are only slow
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    requests = int(re.search(r"(\d+) requests in", output).group(1))  # type: ignore[union-attr]
    latency = {p: float(v) * _UNIT_MS[u] for p, v, u in _WRK_LATENCY.findall(output)}
    return Round(rps, latency["50"], latency["99"], requests)


async def _python_round(url: str, seconds: float, connections: int, body: str | None) -> Round:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    if body is None:
        request = f"GET {parts.path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
    else:
        payload = body.encode()
        head = (
            f"POST {parts.path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n"
        )
        request = head.encode() + payload
    latencies: list[float] = []
    stop_at = time.perf_counter() + seconds

    async def connection() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while (started := time.perf_counter()) < stop_at:
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                if not head.startswith(b"HTTP/1.1 200"):
                    raise SystemExit(f"{url} answered {head.splitlines()[0]!r}")
                length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))  # type: ignore[union-attr]
                await reader.readexactly(length)
                latencies.append(time.perf_counter() - started)
        finally:
            writer.close()

    began = time.perf_counter()
    await asyncio.gather(*(connection() for _ in range(connections)))
    elapsed = time.perf_counter() - began
    latencies.sort()
    return Round(
        len(latencies) / elapsed,
        latencies[len(latencies) // 2] * 1000,
        latencies[int(len(latencies) * 0.99)] * 1000,
        len(latencies),
    )


def run_python(url: str, seconds: float, connections: int, body: str | None = None) -> Round:
    """One round of the asyncio client: ``connections`` keep-alive connections in this process."""
    return asyncio.run(_python_round(url, seconds, connections, body))
