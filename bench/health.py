"""Benchmark: requests/s of ``GET /api/health`` on ``assay serve`` beside a minimal FastAPI app.

Run: ``.venv/bin/python bench/health.py [--seconds 10] [--rounds 3] [--connections 64]``.

Starts ``assay serve`` (one Uvicorn worker, a fresh SQLite file) and a minimal FastAPI app with one route
returning a constant, served by the same ``uvicorn.run`` call (no access log: ``assay serve`` writes none for
a successful health check), each in its own process on a loopback port. Then loads one and the other in
turn, ``--rounds`` times, with many keep-alive connections: ``wrk`` (one thread) when installed, else an
asyncio client written with the standard library (``--python-client`` forces it; it measures less, as
Python is then the bottleneck). Prints each
one's median requests/s and the p50/p99 latency of its median round, and the ratio to the minimal app
(target: Assay ≥ 5,000 req/s). ``--src`` serves other source trees beside (e.g. ``git archive main src | tar
-x -C /tmp/main``, then ``--src src /tmp/main/src``). The load average is printed: compare one run's figures.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from source_trees import add_source_trees_option

ROOT = Path(__file__).resolve().parents[1]
TARGET_RPS = 5000
MINIMAL_APP = """
import sys

import uvicorn
from fastapi import FastAPI

app = FastAPI()


@app.get("/api/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}


uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), workers=1, log_level="info", access_log=False)
"""
"""The floor: FastAPI under Uvicorn as ``assay serve`` runs it (one worker), one route, nothing logged per
request (``assay serve`` leaves successful health checks out of its access log)."""


@dataclass(frozen=True, slots=True)
class Round:
    """Figures of one load round."""

    rps: float
    p50_ms: float
    p99_ms: float


def free_port() -> int:
    """A port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until_up(server: subprocess.Popen[bytes], port: int) -> None:
    """Return once ``GET /api/health`` answers 200."""
    deadline = time.monotonic() + 60
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


@contextmanager
def serving(command: list[str], port: int, env: dict[str, str]) -> Iterator[str]:
    """A server process answering on ``port``; its health URL."""
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_up(server, port)
        yield f"http://127.0.0.1:{port}/api/health"
    finally:
        server.terminate()
        server.wait(timeout=10)


_WRK_LATENCY = re.compile(r"^\s*(50|99)%\s+([\d.]+)(us|ms|s)\s*$", re.MULTILINE)
_UNIT_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def run_wrk(url: str, seconds: float, connections: int) -> Round:
    """One ``wrk`` round (one thread: the server keeps the other core)."""
    command = ["wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency", url]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+)", output)
    if "Non-2xx" in output or (errors and any(int(count) for count in errors.groups())):
        raise SystemExit(f"{url} answered errors:\n{output}")  # timeouts (a loaded machine) are only slow
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    latency = {p: float(v) * _UNIT_MS[u] for p, v, u in _WRK_LATENCY.findall(output)}
    return Round(rps, latency["50"], latency["99"])


async def _python_round(port: int, seconds: float, connections: int) -> Round:
    request = f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    latencies: list[float] = []
    stop_at = time.perf_counter() + seconds

    async def connection() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while (started := time.perf_counter()) < stop_at:
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                if not head.startswith(b"HTTP/1.1 200"):
                    raise SystemExit(f"health answered {head.splitlines()[0]!r}")
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
    )


def run_python(url: str, seconds: float, connections: int) -> Round:
    """One round of the asyncio client: ``connections`` keep-alive connections in this process."""
    port = int(url.split(":")[2].split("/")[0])
    return asyncio.run(_python_round(port, seconds, connections))


def main() -> None:
    """Start both servers, load each in turn, print medians and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=10.0, help="length of one round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per server; medians are shown")
    parser.add_argument("--connections", type=int, default=64, help="concurrent keep-alive connections")
    parser.add_argument("--python-client", action="store_true", help="use the asyncio load generator")
    add_source_trees_option(parser)
    args = parser.parse_args()
    use_wrk = shutil.which("wrk") is not None and not args.python_client
    load = run_wrk if use_wrk else run_python
    env = {key: value for key, value in os.environ.items() if not key.startswith("ASSAY_")}
    assay = Path(sys.executable).with_name("assay")
    assay_command = [str(assay)] if assay.is_file() else [sys.executable, "-m", "assay.cli"]
    with tempfile.TemporaryDirectory(prefix="assay-bench-health-") as data, ExitStack() as stack:
        urls: dict[str, str] = {}
        for number, src in enumerate(args.src):
            port = free_port()
            database = f"sqlite:///{Path(data) / f'bench-{number}.db'}"
            server_env = {**env, "PYTHONPATH": str(src), "ASSAY_DATABASE_URL": database}
            command = [*assay_command, "serve", "--port", str(port)]
            name = "assay serve" if len(args.src) == 1 else f"assay serve {src}"
            urls[name] = stack.enter_context(serving(command, port, server_env))
        port = free_port()
        minimal = [sys.executable, "-c", MINIMAL_APP, str(port)]
        urls["minimal FastAPI app"] = stack.enter_context(serving(minimal, port, env))
        for url in urls.values():  # warm up: first requests, imports, caches
            load(url, 1.0, args.connections)
        load_before = os.getloadavg()[0]
        rounds: dict[str, list[Round]] = {name: [] for name in urls}
        for _ in range(args.rounds):
            for name, url in urls.items():
                rounds[name].append(load(url, args.seconds, args.connections))
        load_after = os.getloadavg()[0]
    client = "wrk -t1" if use_wrk else "asyncio client"
    cpus = len(os.sched_getaffinity(0))
    print(
        f"GET /api/health, {client}, {args.connections} connections, {args.rounds} x {args.seconds:g} s "
        f"each, in turn; {cpus} CPUs, load average {load_before:.2f} -> {load_after:.2f}"
    )
    width = max(map(len, rounds))
    print(f"{'server':{width}} {'req/s':>9} {'x minimal':>9} {'p50 ms':>8} {'p99 ms':>8}   rounds req/s")
    floor = statistics.median(run.rps for run in rounds["minimal FastAPI app"])
    for name, runs in rounds.items():
        median = statistics.median(run.rps for run in runs)
        middle = sorted(runs, key=lambda run: run.rps)[len(runs) // 2]
        listed = ", ".join(f"{run.rps:.0f}" for run in runs)
        print(
            f"{name:{width}} {median:9.0f} {median / floor:9.2f} {middle.p50_ms:8.2f} {middle.p99_ms:8.2f}   "
            f"{listed}"
        )
    print(f"target: assay serve >= {TARGET_RPS} req/s (the minimal app measures what this machine allows)")


if __name__ == "__main__":
    main()
