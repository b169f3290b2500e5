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
import os
import statistics
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from load import Round, free_port, has_wrk, run_python, run_wrk, serving
from source_trees import add_source_trees_option

ROOT = Path(__file__).resolve().parents[1]
TARGET_RPS = 5000
MINIMAL_APP = ROOT / "bench" / "minimal_app.py"
"""The floor: FastAPI under Uvicorn as ``assay serve`` runs it (one worker), nothing logged per request."""


def main() -> None:
    """Start both servers, load each in turn, print medians and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=10.0, help="length of one round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per server; medians are shown")
    parser.add_argument("--connections", type=int, default=64, help="concurrent keep-alive connections")
    parser.add_argument("--python-client", action="store_true", help="use the asyncio load generator")
    add_source_trees_option(parser)
    args = parser.parse_args()
    use_wrk = has_wrk() and not args.python_client
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
            urls[name] = stack.enter_context(serving(command, port, server_env)).url + "/api/health"
        port = free_port()
        minimal = [sys.executable, str(MINIMAL_APP), str(port)]
        urls["minimal FastAPI app"] = stack.enter_context(serving(minimal, port, env)).url + "/api/health"
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
