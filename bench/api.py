"""Requests/s and latency of the API over loopback: one `assay serve` worker, load from another process.

Uses `wrk` (Debian package `wrk`) when installed, else the asyncio load generator of `bench/load.py`
(shared with `bench/health.py` and `bench/api_routes.py`). Prints the median requests/s and the p50/p99
latency of the median run for each endpoint. Not a test: figures depend on the machine.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from load import free_port, has_wrk, run_python, run_wrk

GRADE_BODY = json.dumps({"agent_response": "Yes", "expected_output": "true"})
ENDPOINTS = (
    ("GET", "/api/graders", None),
    ("GET", "/api/graders/true-false", None),
    ("POST", "/api/graders/true-false/grade", GRADE_BODY),
)
TARGET_RPS = 5000
TARGET_P99_MS = 25.0


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


def main() -> None:
    """Start a server, load each endpoint ``--repeats`` times, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10, help="length of one run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per endpoint; the median is shown")
    parser.add_argument("--connections", type=int, default=32, help="concurrent keep-alive connections")
    parser.add_argument("--python-client", action="store_true", help="use the Python load generator")
    args = parser.parse_args()
    use_wrk = has_wrk() and not args.python_client
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
                url = f"http://127.0.0.1:{port}{path}"
                load = run_wrk if use_wrk else run_python
                runs = [load(url, args.seconds, connections, body) for _ in range(args.repeats)]
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
