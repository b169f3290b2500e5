"""Evaluations on worker processes over PostgreSQL: cases/s beside the ideal, and the queue's overhead.

1. Throughput: an agent answering in 100 ms, 20,000 cases, one evaluation of concurrency 64, run by 1, 2
   and 4 ``assay worker`` processes each capped at 32 calls in flight (the server runs none:
   ``--no-worker``). The ideal is min(64, 32 x workers) calls in flight / 0.1 s.
2. Overhead: 10,000 cases with recorded answers (no agent: all the time is Assay's) through the API on
   PostgreSQL, by the server's embedded worker; ``--compare-src`` runs the same on another source tree
   (e.g. the in-process engine before workers: ``git archive a69ece8 | tar -x -C /tmp/before``).
3. Polls: 100,000 cases whose target holds every recorded answer, run unpolled and then polled every
   10 ms: both times, and the p50/p95 time of ``GET /api/evaluations/{id}`` while it runs.

Every scenario runs on a new database on the server of ``--database-url`` (default
``ASSAY_TEST_POSTGRES_URL``). Not a test: figures depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.agent_server import free_port  # noqa: E402
from tests.support.postgres import new_database  # noqa: E402

AGENT_DELAY_S = 0.1
CONCURRENCY = 64
WORKER_CAP = 32


def data(response: httpx2.Response) -> Any:
    """The envelope's data; raises with the body on an error."""
    if response.status_code >= 400:
        raise RuntimeError(f"{response.request.url}: {response.status_code} {response.text[:500]}")
    return response.json()["data"]


def _env(database_url: str, src: Path) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("ASSAY_")}
    env.update(
        ASSAY_DATABASE_URL=database_url,
        ASSAY_SEED_DEMO="false",
        ASSAY_WORKER_MAX_IN_FLIGHT=str(WORKER_CAP),
        PYTHONPATH=f"{src}{os.pathsep}{ROOT}",
    )
    return env


@contextmanager
def processes(database_url: str, src: Path, workers: int, log: Path, *, serve_runs: bool) -> Iterator[str]:
    """``assay serve`` (with or without its embedded worker) and ``workers`` ``assay worker``; its URL."""
    env = _env(database_url, src)
    port = free_port()
    args = ["--no-worker"] if not serve_runs else []
    started: list[subprocess.Popen[bytes]] = []
    with log.open("ab") as out:
        command = [sys.executable, "-m", "assay.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
        started.append(subprocess.Popen([*command, *args], env=env, stdout=out, stderr=subprocess.STDOUT))
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx2.get(f"{url}/api/health", timeout=1).status_code == 200:
                    break
            except httpx2.TransportError:
                pass
            if time.monotonic() > deadline or started[0].poll() is not None:
                raise RuntimeError(f"assay serve did not start; see {log}")
            time.sleep(0.1)
        for _ in range(workers):
            worker = [sys.executable, "-m", "assay.cli", "worker"]
            started.append(subprocess.Popen(worker, env=env, stdout=out, stderr=subprocess.STDOUT))
    try:
        time.sleep(3.0 if workers else 0)  # workers register before the evaluation is queued
        yield url
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


@contextmanager
def agent(delay: float) -> Iterator[str]:
    """The loopback test agent in a process of its own, answering each request after ``delay``."""
    behaviour = json.dumps({"default": "yes", "delay": delay})
    command = [sys.executable, "-m", "tests.support.agent_server", "--behaviour", behaviour]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        yield line.strip().split("=", 1)[1]
    finally:
        process.terminate()
        process.wait(timeout=10)


def import_suite(client: httpx2.Client, cases: int, workdir: Path) -> int:
    """A suite of ``cases`` yes/no questions, each with a recorded answer in its metadata; its id."""
    path = workdir / f"suite-{cases}.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for n in range(cases):
            case = {"input": f"question {n}", "expected_output": "true", "metadata": {"answer": "yes"}}
            out.write(json.dumps(case) + "\n")
    with path.open("rb") as handle:
        suite = data(client.post("/api/suites/import", files={"file": (path.name, handle)}, timeout=600))
    return int(suite["id"])


def run_evaluation(
    client: httpx2.Client,
    suite_id: int,
    target: dict[str, Any],
    concurrency: int,
    *,
    poll_s: float = 0.1,
    latencies: list[float] | None = None,
) -> float:
    """Seconds from creating the evaluation to its completion (polled every ``poll_s``; the time of each
    GET is added to ``latencies``)."""
    body = {"suite_id": suite_id, "grader_id": "true-false", "target": target, "concurrency": concurrency}
    started = time.perf_counter()
    evaluation_id = data(client.post("/api/evaluations", json=body, timeout=300))["id"]
    while True:
        asked = time.perf_counter()
        evaluation = data(client.get(f"/api/evaluations/{evaluation_id}"))
        if latencies is not None:
            latencies.append(time.perf_counter() - asked)
        if evaluation["status"] in {"completed", "failed", "cancelled"}:
            break
        time.sleep(poll_s)
    elapsed = time.perf_counter() - started
    if (
        evaluation["status"] != "completed"
        or evaluation["summary"]["finished"] != evaluation["progress"]["total"]
    ):
        raise RuntimeError(f"the evaluation ended {evaluation['status']}: {evaluation.get('error')}")
    return elapsed


def throughput(server_url: str, cases: int, workdir: Path, compare: Path | None) -> None:
    """Cases/s of one evaluation on 1, 2 and 4 workers, beside the ideal (and, with ``compare``, the other
    tree's server running it in its own process: what this machine carries at all)."""
    print(
        f"\n1. {cases:,} cases, agent {AGENT_DELAY_S * 1000:.0f} ms, concurrency {CONCURRENCY}, "
        f"workers capped at {WORKER_CAP} in flight"
    )
    print(f"{'workers':>8} {'seconds':>8} {'cases/s':>8} {'ideal':>8} {'of ideal':>9}")
    with agent(AGENT_DELAY_S) as agent_url:
        for workers in (1, 2, 4):
            with (
                new_database(server_url, "assay_bench") as database_url,
                processes(
                    database_url, ROOT / "src", workers, workdir / "workers.log", serve_runs=False
                ) as url,
                httpx2.Client(base_url=url, timeout=60) as client,
            ):
                suite_id = import_suite(client, cases, workdir)
                target = {"type": "http", "url": agent_url, "timeout": 10}
                seconds = run_evaluation(client, suite_id, target, CONCURRENCY)
            rate = cases / seconds
            ideal = min(CONCURRENCY, WORKER_CAP * workers) / AGENT_DELAY_S
            print(f"{workers:>8} {seconds:>8.1f} {rate:>8.0f} {ideal:>8.0f} {rate / ideal:>8.0%}")
        if compare is not None:
            with (
                new_database(server_url, "assay_bench") as database_url,
                processes(database_url, compare, 0, workdir / "workers.log", serve_runs=True) as url,
                httpx2.Client(base_url=url, timeout=60) as client,
            ):
                suite_id = import_suite(client, cases, workdir)
                target = {"type": "http", "url": agent_url, "timeout": 10}
                seconds = run_evaluation(client, suite_id, target, CONCURRENCY)
            rate, ideal = cases / seconds, CONCURRENCY / AGENT_DELAY_S
            figures = f"{seconds:>8.1f} {rate:>8.0f} {ideal:>8.0f} {rate / ideal:>8.0%}"
            print(f"{'in-proc.':>8} {figures}  (--compare-src: one process, no queue)")


def overhead(server_url: str, cases: int, workdir: Path, compare: Path | None) -> None:
    """Seconds for ``cases`` recorded cases through the API, here and (optionally) on another tree."""
    print(f"\n2. {cases:,} recorded cases through the API on PostgreSQL (the server's own worker)")
    trees = [("this tree", ROOT / "src")] + ([("--compare-src", compare)] if compare else [])
    figures = {}
    for label, src in trees:
        with (
            new_database(server_url, "assay_bench") as database_url,
            processes(database_url, src, 0, workdir / "overhead.log", serve_runs=True) as url,
            httpx2.Client(base_url=url, timeout=60) as client,
        ):
            suite_id = import_suite(client, cases, workdir)
            target = {"type": "recorded", "metadata_key": "answer"}
            figures[label] = seconds = run_evaluation(client, suite_id, target, CONCURRENCY)
        per_case_us = seconds / cases * 1e6
        print(f"{label:>14}: {seconds:.2f} s, {cases / seconds:,.0f} cases/s, {per_case_us:.0f} µs a case")
    if compare:
        print(f"{'ratio':>14}: {figures['this tree'] / figures['--compare-src']:.2f}x (target <= 1.5x)")


def poll(server_url: str, cases: int, workdir: Path, compare: Path | None) -> None:
    """An evaluation whose target holds every recorded answer, polled every 10 ms or not at all: its
    time, and how long a GET of it takes while it runs (a poll should cost the same at any size)."""
    print(f"\n3. {cases:,} cases answered by a recorded target holding every answer, polled every 10 ms")
    print(f"{'tree':>14} {'no polls':>9} {'polled':>8} {'GET p50':>8} {'GET p95':>8}")
    answers = {str(number): "yes" for number in range(1, cases + 1)}
    trees = [("this tree", ROOT / "src")] + ([("--compare-src", compare)] if compare else [])
    for label, src in trees:
        with (
            new_database(server_url, "assay_bench") as database_url,
            processes(database_url, src, 0, workdir / "poll.log", serve_runs=True) as url,
            httpx2.Client(base_url=url, timeout=60) as client,
        ):
            suite_id = import_suite(client, cases, workdir)
            target = {"type": "recorded", "responses": answers}
            quiet = run_evaluation(client, suite_id, target, CONCURRENCY, poll_s=0.5)
            latencies: list[float] = []
            polled = run_evaluation(client, suite_id, target, CONCURRENCY, poll_s=0.01, latencies=latencies)
        latencies.sort()
        p50, p95 = latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.95)]
        print(f"{label:>14} {quiet:>8.1f}s {polled:>7.1f}s {p50 * 1000:>6.1f}ms {p95 * 1000:>6.1f}ms")


def main() -> None:
    """Run the scenarios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--database-url", default=os.environ.get("ASSAY_TEST_POSTGRES_URL", ""))
    parser.add_argument("--cases", type=int, default=20_000, help="cases of the throughput scenario")
    parser.add_argument("--recorded", type=int, default=10_000, help="cases of the overhead scenario")
    parser.add_argument("--compare-src", type=Path, default=None, help="another tree's src/ for scenario 2")
    parser.add_argument("--polled", type=int, default=100_000, help="cases of the poll scenario")
    parser.add_argument("--quick", action="store_true", help="2,000 cases (20,000 polled) in each scenario")
    parser.add_argument("--only", choices=("throughput", "overhead", "poll"), default=None)
    args = parser.parse_args()
    if not args.database_url:
        parser.error("a PostgreSQL server is needed: --database-url or ASSAY_TEST_POSTGRES_URL")
    if args.quick:
        args.cases = args.recorded = 2000
        args.polled = 20_000
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        if args.only in (None, "throughput"):
            throughput(args.database_url, args.cases, workdir, args.compare_src)
        if args.only in (None, "overhead"):
            overhead(args.database_url, args.recorded, workdir, args.compare_src)
        if args.only in (None, "poll"):
            poll(args.database_url, args.polled, workdir, args.compare_src)


if __name__ == "__main__":
    main()
