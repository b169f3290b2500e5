"""Requests/s and latency of the API over loopback: one `assay serve` worker, load from another process.

Uses `wrk` (Debian package `wrk`) when installed, else a keep-alive load generator written with the
standard library in separate processes. Prints the median requests/s and the p50/p99 latency of the
median run for each endpoint. Not a test: figures depend on the machine.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

GRADE_BODY = json.dumps({"agent_response": "Yes", "expected_output": "true"})
ENDPOINTS = (
    ("GET", "/api/graders", None),
    ("GET", "/api/graders/true-false", None),
    ("POST", "/api/graders/true-false/grade", GRADE_BODY),
)
TARGET_RPS = 5000
TARGET_P99_MS = 25.0


@dataclass(frozen=True, slots=True)
class Run:
    """Figures of one load run."""

    rps: float
    p50_ms: float
    p99_ms: float


def free_port() -> int:
    """A port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_server(port: int, data_dir: Path) -> subprocess.Popen[bytes]:
    """`assay serve` on loopback, on a fresh SQLite file; returns once it answers."""
    assay = Path(sys.executable).with_name("assay")
    env = {**os.environ, "ASSAY_DATABASE_URL": f"sqlite:///{data_dir / 'bench.db'}"}
    env.pop("ASSAY_API_KEY", None)
    server = subprocess.Popen(
        [str(assay), "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", "/api/health")
            if connection.getresponse().status == 200:
                return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("assay serve did not start within 30 s")


_WRK_LATENCY = re.compile(r"^\s*(50|99)%\s+([\d.]+)(us|ms|s)\s*$", re.MULTILINE)
_UNIT_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def run_wrk(url: str, method: str, body: str | None, seconds: int, connections: int) -> Run:
    """One `wrk` run (one thread: the server has the other core)."""
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", url]
    script = None
    if method == "POST":
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
    if "Non-2xx" in output:
        raise SystemExit(f"{method} {url} answered errors:\n{output}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    latency = {p: float(v) * _UNIT_MS[u] for p, v, u in _WRK_LATENCY.findall(output)}
    return Run(rps, latency["50"], latency["99"])


def _client_worker(
    port: int,
    method: str,
    path: str,
    body: str | None,
    stop_at: float,
    queue: multiprocessing.Queue[list[float]],
) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port)
    headers = {"Content-Type": "application/json"} if body else {}
    latencies = []
    while (start := time.perf_counter()) < stop_at:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise SystemExit(f"{method} {path} answered {response.status}")
        latencies.append(time.perf_counter() - start)
    queue.put(latencies)


def run_python(port: int, method: str, path: str, body: str | None, seconds: int, connections: int) -> Run:
    """One run of the standard-library load generator: ``connections`` processes, keep-alive."""
    queue: multiprocessing.Queue[list[float]] = multiprocessing.Queue()
    stop_at = time.perf_counter() + seconds
    workers = [
        multiprocessing.Process(target=_client_worker, args=(port, method, path, body, stop_at, queue))
        for _ in range(connections)
    ]
    for worker in workers:
        worker.start()
    latencies = sorted(latency for _ in workers for latency in queue.get())
    for worker in workers:
        worker.join()
    return Run(
        len(latencies) / seconds,
        latencies[len(latencies) // 2] * 1000,
        latencies[int(len(latencies) * 0.99)] * 1000,
    )


def main() -> None:
    """Start a server, load each endpoint ``--repeats`` times, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10, help="length of one run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per endpoint; the median is shown")
    parser.add_argument("--connections", type=int, default=32, help="concurrent keep-alive connections")
    parser.add_argument("--python-client", action="store_true", help="use the Python load generator")
    args = parser.parse_args()
    use_wrk = shutil.which("wrk") is not None and not args.python_client
    connections = args.connections if use_wrk else min(args.connections, 8)
    port = free_port()
    with tempfile.TemporaryDirectory() as data_dir:
        server = start_server(port, Path(data_dir))
        try:
            print(
                f"assay serve on 127.0.0.1:{port}, 1 worker; load: {'wrk' if use_wrk else 'python'}, "
                f"{connections} connections, {args.repeats} x {args.seconds} s per endpoint"
            )
            print(f"{'endpoint':<38} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}")
            for method, path, body in ENDPOINTS:
                runs = [
                    run_wrk(f"http://127.0.0.1:{port}{path}", method, body, args.seconds, connections)
                    if use_wrk
                    else run_python(port, method, path, body, args.seconds, connections)
                    for _ in range(args.repeats)
                ]
                median = sorted(runs, key=lambda run: run.rps)[len(runs) // 2]
                rps = statistics.median(run.rps for run in runs)
                flag = (
                    ""
                    if method == "POST" or (rps >= TARGET_RPS and median.p99_ms < TARGET_P99_MS)
                    else "  < target"
                )
                print(
                    f"{method + ' ' + path:<38} {rps:>9.0f} {median.p50_ms:>8.2f} {median.p99_ms:>8.2f}{flag}"
                )
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(f"target for the two GETs: >= {TARGET_RPS} req/s with p99 < {TARGET_P99_MS} ms")


if __name__ == "__main__":
    main()
