"""Benchmark: Assay's hot routes beside a minimal FastAPI app; an API evaluation beside ``assay run``.

Run: ``.venv/bin/python bench/api_routes.py [--seconds 5] [--rounds 3] [--src TREE ...]``.

Starts ``assay serve`` (one Uvicorn worker, a fresh SQLite file) for each source tree (``--src``: e.g. ``git
archive main src | tar -x -C /tmp/main``, then ``--src /tmp/main/src src``) and the minimal app of
``bench/minimal_app.py`` on the same Uvicorn settings, each in its own process. Then, in turn, ``--rounds``
times: ``POST /api/graders/true-false/grade`` (the minimal app: a POST of the same body into a pydantic
model), ``GET /api/graders`` (the minimal app: a constant listing) and ``GET /api/health``, loaded with ``wrk
-t1`` (else the asyncio client of ``bench/load.py``). Prints each server's median requests/s, the p50/p99 of
its median round and the ratio to the minimal app.

Then, ``--eval-rounds`` times, for each tree in turn: ``assay run`` over N recorded true-false answers (a
whole process, results written to JSONL) and the same N answers as a recorded evaluation through that tree's
server (``POST /api/evaluations``, then ``GET`` every 10 ms until ``completed``: every result stored), after
one untimed evaluation per server (as the routes are warmed up: imports, FastAPI's per-route state). Prints
the medians and API ÷ CLI. Targets: grade ≥ 0.7x the minimal app, listing ≥ 0.8x, health as before, the API
evaluation ≤ 2x ``assay run``. Compare ratios from one run: absolute figures move with the machine's load.

With ``--profile DIR``, ``py-spy record --gil`` samples each server over its evaluations (not its routes) into
``DIR/tree-N.txt`` (collapsed stacks, one per line with its count: ``sort -k2 -t' ' -n``, or a flame graph
tool); py-spy's pauses slow the server, so the figures of such a run are not the ones to quote.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2

from load import (
    Round,
    Server,
    cpu_seconds,
    free_port,
    has_wrk,
    run_python,
    run_wrk,
    serving,
    with_server_cpu,
)
from source_trees import add_source_trees_option

ROOT = Path(__file__).resolve().parents[1]
MINIMAL = "minimal app"
ROUTES = (
    (
        "grade true-false",
        "/api/graders/true-false/grade",
        '{"agent_response": "Yes", "expected_output": "true"}',
    ),
    ("graders listing", "/api/graders", None),
    ("health", "/api/health", None),
)
TARGETS = {"grade true-false": 0.7, "graders listing": 0.8}
POLL_S = 0.01


def write_suite(directory: Path, count: int) -> tuple[Path, Path, list[dict[str, str]], list[str]]:
    """A true-false suite of ``count`` cases and a recorded answer for each (two thirds right)."""
    cases = [{"input": f"Is {n} odd?", "expected_output": "true" if n % 2 else "false"} for n in range(count)]
    answers = ["yes" if n % 3 else "no" for n in range(count)]
    suite = directory / "suite.jsonl"
    suite.write_text("".join(json.dumps(case) + "\n" for case in cases))
    responses = directory / "responses.jsonl"
    responses.write_text("".join(json.dumps({"agent_response": answer}) + "\n" for answer in answers))
    return suite, responses, cases, answers


@dataclass(frozen=True, slots=True)
class Timing:
    """One evaluation's wall time and the CPU time of the process that did it (user + system)."""

    wall_s: float
    cpu_s: float


def time_cli(src: Path, suite: Path, responses: Path, output: Path, env: dict[str, str]) -> Timing:
    """``assay run`` from ``src`` over the recorded answers."""
    command = [sys.executable, "-m", "assay.cli", "run", str(suite), "-g", "true-false"]
    command += ["--responses", str(responses), "-o", str(output), "--min-pass-rate", "0"]
    output.unlink(missing_ok=True)  # assay run refuses to overwrite a file
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        command,
        check=True,
        env={**env, "PYTHONPATH": str(src)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Timing(wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)


def evaluation_body(
    client: httpx2.Client, cases: list[dict[str, str]], answers: list[str]
) -> dict[str, object]:
    """A suite of ``cases`` on the server, and the body of a recorded evaluation of it with ``answers``."""
    suite = client.post("/api/suites", json={"name": "bench", "cases": cases}).json()["data"]
    # Recorded answers name the cases of a suite without keys by number, 1 to N.
    responses = {str(number): answer for number, answer in enumerate(answers, start=1)}
    return {
        "suite_id": suite["id"],
        "grader_id": "true-false",
        "target": {"type": "recorded", "responses": responses},
    }


def time_api(client: httpx2.Client, server_pid: int, body: dict[str, object], count: int) -> Timing:
    """From ``POST /api/evaluations`` to the evaluation read back as completed; the server's CPU meanwhile
    (its answers to the status reads included)."""
    cpu_before = cpu_seconds(server_pid)
    started = time.perf_counter()
    response = client.post("/api/evaluations", json=body)
    if response.status_code != 201:
        raise SystemExit(f"POST /api/evaluations answered {response.status_code}: {response.text[:500]}")
    created = response.json()["data"]
    while True:
        evaluation = client.get(f"/api/evaluations/{created['id']}").json()["data"]
        if evaluation["status"] not in ("pending", "running"):
            break
        time.sleep(POLL_S)
    elapsed = time.perf_counter() - started
    cpu = cpu_seconds(server_pid) - cpu_before
    if evaluation["status"] != "completed" or evaluation["progress"]["done"] != count:
        raise SystemExit(f"the evaluation did not complete: {evaluation}")
    return Timing(elapsed, cpu)


@contextmanager
def profiling(pids: dict[str, int], directory: Path | None) -> Iterator[None]:
    """``py-spy record`` (GIL holder only, so counts follow CPU time) on each server ``pid``, by name, into
    ``directory`` (collapsed stacks), while the block runs; nothing without a directory."""
    if directory is None:
        yield
        return
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    directory.mkdir(parents=True, exist_ok=True)
    record = [spy, "record", "--rate", "250", "--gil", "--format", "raw"]
    spies = [
        subprocess.Popen(
            [*record, "--pid", str(pid), "--output", str(directory / f"{name}.txt")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, pid in pids.items()
    ]
    time.sleep(1.0)  # py-spy attaches before the first evaluation
    try:
        yield
    finally:
        for process in spies:
            process.send_signal(signal.SIGINT)  # py-spy writes its file on an interrupt
        for process in spies:
            process.wait(timeout=60)


def print_routes(rounds: dict[tuple[str, str], list[Round]], servers: list[str]) -> None:
    """One line per route and server: median req/s and its ratio to the minimal app's, p50/p99 of the median
    round, and the server's median CPU µs per request with its ratio (the figure other load moves least)."""
    width = max(map(len, servers))
    print(
        f"{'route':18} {'server':{width}} {'req/s':>7} {'x minimal':>9} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'CPU us/req':>10} {'minimal/it':>10}   rounds req/s"
    )
    for route, _, _ in ROUTES:
        floor = statistics.median(run.rps for run in rounds[route, MINIMAL])
        floor_cpu = statistics.median(run.server_cpu_us for run in rounds[route, MINIMAL])
        for server in servers:
            runs = rounds[route, server]
            median = statistics.median(run.rps for run in runs)
            cpu = statistics.median(run.server_cpu_us for run in runs)
            middle = sorted(runs, key=lambda run: run.rps)[len(runs) // 2]
            target = TARGETS.get(route)
            ratio = median / floor
            flag = "  < target" if server != MINIMAL and target and ratio < target else ""
            listed = ", ".join(f"{run.rps:.0f}" for run in runs)
            print(
                f"{route:18} {server:{width}} {median:7.0f} {ratio:9.2f} {middle.p50_ms:7.2f} "
                f"{middle.p99_ms:7.2f} {cpu:10.0f} {floor_cpu / cpu:10.2f}   {listed}{flag}"
            )


def main() -> None:
    """Start the servers, load each route on each in turn, then time the evaluations; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=5.0, help="length of one load round")
    parser.add_argument("--rounds", type=int, default=3, help="load rounds per route and server (medians)")
    parser.add_argument("--connections", type=int, default=32, help="concurrent keep-alive connections")
    parser.add_argument("--cases", type=int, default=10_000, help="recorded answers of the evaluation")
    parser.add_argument("--eval-rounds", type=int, default=3, help="evaluations per tree, each way (medians)")
    parser.add_argument("--no-routes", action="store_true", help="only the evaluations")
    parser.add_argument("--python-client", action="store_true", help="use the asyncio load generator")
    parser.add_argument("--profile", type=Path, help="py-spy each server's evaluations into this directory")
    add_source_trees_option(parser)
    args = parser.parse_args()
    use_wrk = has_wrk() and not args.python_client
    load = run_wrk if use_wrk else run_python
    env = {key: value for key, value in os.environ.items() if not key.startswith("ASSAY_")}
    names = {src: (str(src) if len(args.src) > 1 else "assay serve") for src in args.src}
    with tempfile.TemporaryDirectory(prefix="assay-bench-routes-") as data, ExitStack() as stack:
        directory = Path(data)
        urls: dict[str, Server] = {}
        for number, src in enumerate(args.src):
            port = free_port()
            database = f"sqlite:///{directory / f'bench-{number}.db'}"
            server_env = {**env, "PYTHONPATH": str(src), "ASSAY_DATABASE_URL": database}
            command = [sys.executable, "-m", "assay.cli", "serve", "--port", str(port)]
            urls[names[src]] = stack.enter_context(serving(command, port, server_env))
        port = free_port()
        minimal = [sys.executable, str(ROOT / "bench" / "minimal_app.py"), str(port)]
        urls[MINIMAL] = stack.enter_context(serving(minimal, port, env))
        servers = list(urls)
        load_before = os.getloadavg()[0]
        if not args.no_routes:
            for server in urls.values():  # warm up: first requests, imports, caches
                for _, path, body in ROUTES:
                    load(server.url + path, 1.0, args.connections, body)
            rounds: dict[tuple[str, str], list[Round]] = {}
            for _ in range(args.rounds):
                for route, path, body in ROUTES:
                    for name, server in urls.items():
                        url = server.url + path
                        measured = with_server_cpu(
                            server.pid,
                            lambda url=url, body=body: load(url, args.seconds, args.connections, body),
                        )
                        rounds.setdefault((route, name), []).append(measured)
            client_name = "wrk -t1" if use_wrk else "asyncio client"
            print(
                f"{client_name}, {args.connections} connections, {args.rounds} x {args.seconds:g} s per "
                f"route and server, in turn; load average {load_before:.2f} -> {os.getloadavg()[0]:.2f}"
            )
            print_routes(rounds, servers)
        if args.eval_rounds <= 0:
            return
        suite, responses, cases, answers = write_suite(directory, args.cases)
        clients = {
            src: stack.enter_context(httpx2.Client(base_url=urls[names[src]].url, timeout=60))
            for src in args.src
        }
        bodies = {src: evaluation_body(client, cases, answers) for src, client in clients.items()}
        for src in args.src:  # warm up: the evaluation routes' first use builds FastAPI's state for them
            time_api(clients[src], urls[names[src]].pid, bodies[src], args.cases)
        cli: dict[Path, list[Timing]] = {src: [] for src in args.src}
        api: dict[Path, list[Timing]] = {src: [] for src in args.src}
        pids = {f"tree-{number}": urls[names[src]].pid for number, src in enumerate(args.src)}
        with profiling(pids, args.profile):
            for _ in range(args.eval_rounds):
                for src in args.src:
                    cli[src].append(time_cli(src, suite, responses, directory / "out.jsonl", env))
                    api[src].append(time_api(clients[src], urls[names[src]].pid, bodies[src], args.cases))
    print(
        f"{args.cases:,} recorded true-false answers, {args.eval_rounds} rounds, each tree in turn (medians)"
    )
    width = max(len(name) for name in names.values())
    print(
        f"{'tree':{width}} {'run wall s':>10} {'API wall s':>10} {'API/run':>7} {'run CPU s':>9} "
        f"{'API CPU s':>9} {'API/run':>7}   runs wall (run; API)"
    )
    for src in args.src:
        run_s, api_s = (statistics.median(t.wall_s for t in timings) for timings in (cli[src], api[src]))
        run_cpu, api_cpu = (statistics.median(t.cpu_s for t in timings) for timings in (cli[src], api[src]))
        listed = (
            ", ".join(f"{t.wall_s:.2f}" for t in cli[src])
            + "; "
            + ", ".join(f"{t.wall_s:.2f}" for t in api[src])
        )
        flag = "  < target" if api_s > 2 * run_s else ""
        print(
            f"{names[src]:{width}} {run_s:10.3f} {api_s:10.3f} {api_s / run_s:7.2f} {run_cpu:9.3f} "
            f"{api_cpu:9.3f} {api_cpu / run_cpu:7.2f}   {listed}{flag}"
        )


if __name__ == "__main__":
    main()
