"""Benchmark: does ``/api/health`` stay fast while an evaluation grades with the semantic grader?

Run: ``.venv/bin/python bench/semantic_evaluation.py [--cases 2000] [--runs 1] [--src TREE ...]``.

Starts a real ``assay serve`` on SQLite, imports a suite of ``--cases`` free-text cases (every answer and
expected text different, as in ``bench/graders.py``), and runs an evaluation of them with a recorded target
(instant answers: grading is the whole cost) and the ``semantic`` grader, after one warm-up evaluation that
loads the model. Meanwhile one client, in a process of its own, asks ``/api/health`` every 20 ms. Prints the
evaluation's wall time and cases/s, and health's p50/p99/max latency (target: p99 under 100 ms). ``--src``
serves other source trees in turn in the same run (``git archive main src | tar -x -C /tmp/main``, then
``--src src /tmp/main/src``), to compare them side by side. Needs the semantic extra.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tests.support.assay_process import AssayProcess  # noqa: E402

from grader_workloads import semantic_pairs  # noqa: E402
from source_trees import add_source_trees_option  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def _probe(
    url: str, stop: multiprocessing.synchronize.Event, queue: multiprocessing.Queue[list[float]]
) -> None:
    """Ask ``/api/health`` every 20 ms until ``stop``; the latencies (in a process of its own, so that the
    bench's own polling does not delay the measure)."""
    latencies = []
    with httpx2.Client(base_url=url, timeout=600) as client:  # a held loop answers late, but answers
        while not stop.is_set():
            started = time.perf_counter()
            client.get("/api/health").raise_for_status()
            latencies.append(time.perf_counter() - started)
            time.sleep(0.02)
    queue.put(latencies)


def _evaluate(client: httpx2.Client, suite_id: int) -> float:
    """Run one evaluation to its end; its wall time in seconds, from the request to the final status."""
    body = {
        "suite_id": suite_id,
        "grader_id": "semantic",
        "target": {"type": "recorded", "metadata_key": "a"},
    }
    started = time.perf_counter()
    response = client.post("/api/evaluations", json=body)
    response.raise_for_status()
    evaluation_id = response.json()["data"]["id"]
    while True:
        data = client.get(f"/api/evaluations/{evaluation_id}").json()["data"]
        if data["status"] not in ("pending", "queued", "running"):
            break
        time.sleep(0.5)  # a status read costs the server too: seldom, so as not to weigh on the run
    elapsed = time.perf_counter() - started
    if data["status"] != "completed":
        raise RuntimeError(f"the evaluation ended {data['status']}: {data.get('error')}")
    return elapsed


def measure(src: Path, count: int, runs: int) -> tuple[list[float], list[float], list[float]]:
    """(evaluation wall times, health latencies alone, health latencies during the evaluations)."""
    pairs = semantic_pairs(count, random.Random(20261123))
    cases = [
        {"input": f"question {n}", "expected_output": expected, "metadata": {"a": answer}}
        for n, (answer, expected) in enumerate(pairs)
    ]
    with (
        tempfile.TemporaryDirectory() as tmp,
        AssayProcess(Path(tmp), env={"PYTHONPATH": str(src)}) as assay,
        httpx2.Client(base_url=assay.url, timeout=600) as client,  # a held loop can take minutes to answer
    ):
        suite = client.post("/api/suites", json={"name": "semantic", "cases": cases}, timeout=120).json()
        suite_id = suite["data"]["id"]
        warm = client.post("/api/suites", json={"name": "warm", "cases": cases[:20]}).json()["data"]["id"]
        _evaluate(client, warm)  # loads the model and the grading code outside the measure
        quiet = []
        for _ in range(100):
            started = time.perf_counter()
            client.get("/api/health").raise_for_status()
            quiet.append(time.perf_counter() - started)
        walls: list[float] = []
        loaded: list[float] = []
        for _ in range(runs):
            stop = multiprocessing.Event()
            queue: multiprocessing.Queue[list[float]] = multiprocessing.Queue()
            probe = multiprocessing.Process(target=_probe, args=(assay.url, stop, queue))
            probe.start()
            time.sleep(0.5)  # the probe's process started and asking before the evaluation begins
            walls.append(_evaluate(client, suite_id))
            stop.set()
            loaded += queue.get()
            probe.join()
    return walls, quiet, loaded


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=1, help="evaluations measured per source tree")
    add_source_trees_option(parser)
    args = parser.parse_args()
    print(f"{len(os.sched_getaffinity(0))} CPUs, load average {os.getloadavg()[0]:.2f} at the start")
    for src in args.src:
        walls, quiet, loaded = measure(src, args.cases, args.runs)
        ms = [value * 1000 for value in loaded]
        quiet_ms = [value * 1000 for value in quiet]
        print(f"== assay serve from {src} (load average {os.getloadavg()[0]:.2f} at the end)")
        rates = ", ".join(f"{wall:.1f} s ({args.cases / wall:,.0f} cases/s)" for wall in walls)
        print(f"semantic evaluation of {args.cases:,} cases, recorded target: {rates}")
        print(
            f"/api/health alone: p50 {percentile(quiet_ms, 50):.1f} ms, p99 {percentile(quiet_ms, 99):.1f} ms"
        )
        print(
            f"/api/health during the evaluation ({len(ms)} probes): p50 {percentile(ms, 50):.1f} ms, "
            f"p99 {percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms "
            f"(target p99 < 100 ms: {'met' if percentile(ms, 99) < 100 else 'NOT met'})",
            flush=True,
        )


if __name__ == "__main__":
    main()
