"""Benchmark: does ``/api/health`` stay fast while the heaviest valid requests run? (issue: a free loop)

Run: ``.venv/bin/python bench/health_under_load.py [--seconds 20] [--workers 6]``.

Starts a real ``assay serve`` on SQLite, prepares a 10,000-case evaluation, then for ``--seconds`` keeps
``--workers`` clients sending the heaviest requests a caller may send, in turn: a grade with a near-1 MiB
body and two 1,000-alias lists, a 10,000-item grade-batch, a 1,000-alias config validation, a 20,000-line
suite import, a CSV export of the 10,000 results, a comparison of two 10,000-case evaluations. Meanwhile one
client, in a process of its own, asks ``/api/health`` every 20 ms. Prints health's p50/p99/max latency
(target: p99 under 100 ms) and the heavy requests' count and median by kind. ``--src`` serves other source
trees in turn in the same run (e.g. ``git archive main src | tar -x -C /tmp/main``, then ``--src src
/tmp/main/src``), to compare them under the same load.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support import assay_process  # noqa: E402
from tests.support.assay_process import AssayProcess  # noqa: E402

from source_trees import add_source_trees_option  # noqa: E402

ALIASES = {
    "true": [f"yes-{n:04d}-" + "x" * 180 for n in range(1000)],
    "false": [f"no-{n:04d}" for n in range(1000)],
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def heavy_requests(
    suite_id: int, a_id: int, b_id: int, import_body: bytes
) -> list[tuple[str, dict[str, Any]]]:
    big_answer = "yes " * 150_000  # with the config, a body just under the 1 MiB cap
    batch = [{"agent_response": "yes", "expected_output": "true"}] * 10_000
    return [
        (
            "grade 1 MiB",
            {
                "method": "POST",
                "url": "/api/graders/true-false/grade",
                "json": {
                    "agent_response": big_answer,
                    "expected_output": "true",
                    "config": {"aliases": ALIASES},
                },
            },
        ),
        (
            "grade-batch 10k",
            {"method": "POST", "url": "/api/graders/true-false/grade-batch", "json": {"items": batch}},
        ),
        (
            "validate 2k aliases",
            {
                "method": "POST",
                "url": "/api/graders/true-false/validate",
                "json": {"config": {"aliases": ALIASES}},
            },
        ),
        (
            "import 20k lines",
            {"method": "POST", "url": "/api/suites/import", "files": {"file": ("s.jsonl", import_body)}},
        ),
        (
            "export 10k CSV",
            {"method": "GET", "url": f"/api/evaluations/{a_id}/export", "params": {"format": "csv"}},
        ),
        (
            "compare 10k",
            {"method": "GET", "url": f"/api/evaluations/{a_id}/compare/{b_id}", "params": {"limit": 500}},
        ),
    ]


def _probe(url: str, stop_at: float, queue: multiprocessing.Queue[list[float]]) -> None:
    """Ask ``/api/health`` every 20 ms until ``stop_at``; the latencies (in a process of its own, so that
    the load clients' threads do not delay the measure)."""
    latencies = []
    with httpx2.Client(base_url=url, timeout=60) as client:
        while time.time() < stop_at:
            started = time.perf_counter()
            client.get("/api/health").raise_for_status()
            latencies.append(time.perf_counter() - started)
            time.sleep(0.02)
    queue.put(latencies)


@dataclass(frozen=True, slots=True)
class Outcome:
    """Health latencies alone and under load (seconds), the heavy requests' times by kind and statuses."""

    quiet: list[float]
    loaded: list[float]
    timings: dict[str, list[float]]
    statuses: dict[int, int]


def measure(src: Path, seconds: float, workers: int, only: list[str] | None) -> Outcome:
    """The whole scenario against ``assay serve`` run from the source tree ``src``."""
    with tempfile.TemporaryDirectory() as tmp, AssayProcess(Path(tmp), env={"PYTHONPATH": str(src)}) as assay:
        cases = [
            {
                "input": f"Is {n} odd?",
                "expected_output": "true",
                "metadata": {"a": "yes", "b": "no" if n % 3 else "yes"},
            }
            for n in range(10_000)
        ]
        suite = assay.client.post("/api/suites", json={"name": "load", "cases": cases}, timeout=120).json()[
            "data"
        ]
        ids = []
        for key in ("a", "b"):
            body = {
                "suite_id": suite["id"],
                "grader_id": "true-false",
                "target": {"type": "recorded", "metadata_key": key},
            }
            evaluation_id = assay.client.post("/api/evaluations", json=body).json()["data"]["id"]
            while assay.client.get(f"/api/evaluations/{evaluation_id}").json()["data"]["status"] == "running":
                time.sleep(0.1)
            ids.append(evaluation_id)
        import_body = "".join(
            json.dumps({"input": f"q{n}", "expected_output": "true"}) + "\n" for n in range(20_000)
        ).encode()
        requests = heavy_requests(suite["id"], ids[0], ids[1], import_body)
        if only:
            requests = [(kind, request) for kind, request in requests if kind.split()[0] in only]
        stop = threading.Event()
        timings: dict[str, list[float]] = defaultdict(list)
        statuses: dict[int, int] = defaultdict(int)

        def load(worker: int) -> None:
            with httpx2.Client(base_url=assay.url, timeout=120) as client:
                turn = worker
                while not stop.is_set():
                    kind, request = requests[turn % len(requests)]
                    turn += 1
                    started = time.perf_counter()
                    response = client.request(**request)
                    timings[kind].append(time.perf_counter() - started)
                    statuses[response.status_code] += 1

        quiet: list[float] = []
        with httpx2.Client(base_url=assay.url, timeout=60) as client:
            for _ in range(10):  # warm up: the first requests load code
                client.get("/api/health").raise_for_status()
            for _ in range(100):
                started = time.perf_counter()
                client.get("/api/health").raise_for_status()
                quiet.append(time.perf_counter() - started)
        threads = [threading.Thread(target=load, args=(n,)) for n in range(workers)]
        for thread in threads:
            thread.start()
        time.sleep(1.0)  # the heavy requests under way before the probe starts
        queue: multiprocessing.Queue[list[float]] = multiprocessing.Queue()
        probe = multiprocessing.Process(target=_probe, args=(assay.url, time.time() + seconds, queue))
        probe.start()
        loaded = queue.get()
        probe.join()
        stop.set()
        for thread in threads:
            thread.join()
    return Outcome(quiet=quiet, loaded=loaded, timings=dict(timings), statuses=dict(statuses))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--only", nargs="*", default=None, help="heavy request kinds to send (default: all)")
    add_source_trees_option(parser)
    args = parser.parse_args()
    assay_process.START_TIMEOUT_S = 120.0  # a busy machine can take longer than a test allows to start
    print(f"{len(os.sched_getaffinity(0))} CPUs, load average {os.getloadavg()[0]:.2f} at the start")
    for src in args.src:
        outcome = measure(src, args.seconds, args.workers, args.only)
        ms = [value * 1000 for value in outcome.loaded]
        quiet_ms = [value * 1000 for value in outcome.quiet]
        print(f"== assay serve from {src} (load average {os.getloadavg()[0]:.2f} at the end)")
        alone = f"p50 {percentile(quiet_ms, 50):.1f} ms, p99 {percentile(quiet_ms, 99):.1f} ms"
        print(f"/api/health alone: {alone}")
        print(
            f"/api/health under load ({len(ms)} probes, {args.workers} heavy clients, {args.seconds:g} s): "
            f"p50 {percentile(ms, 50):.1f} ms, p99 {percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms "
            f"(target p99 < 100 ms: {'met' if percentile(ms, 99) < 100 else 'NOT met'})"
        )
        for kind, values in outcome.timings.items():
            median = statistics.median(values) * 1000
            print(f"  {kind:<22} {len(values):4d} requests, median {median:8.1f} ms")
        print(f"  heavy request statuses: {dict(sorted(outcome.statuses.items()))}", flush=True)


if __name__ == "__main__":
    main()
