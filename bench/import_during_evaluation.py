"""Benchmark: a big suite import while an evaluation runs, on SQLite (issue: busy is not broken).

Run: ``.venv/bin/python bench/import_during_evaluation.py [--import-lines 1000000] [--cases 3000]``.

Starts a real ``assay serve`` on SQLite and a loopback agent (its own process) answering in 20 ms, starts
an HTTP evaluation of ``--cases`` cases at concurrency 32, and while it runs imports a JSONL file of
``--import-lines`` cases; meanwhile another client keeps creating suites (small writes). Prints the import's
time, the evaluation's outcome (every case stored?), its longest stall in progress during the import, and
how the concurrent writes were answered (any 500 is a failure; a 503 ``BUSY`` is a refusal to retry).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.runner import agent  # noqa: E402
from tests.support.assay_process import AssayProcess  # noqa: E402

POLL_S = 0.05


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--import-lines", type=int, default=1_000_000)
    parser.add_argument("--cases", type=int, default=3000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, agent(0.02) as agent_url:
        directory = Path(tmp)
        big = directory / "big.jsonl"
        with big.open("w") as file:
            for n in range(args.import_lines):
                file.write(
                    json.dumps({"input": f"Is {n} odd?", "expected_output": "true" if n % 2 else "false"})
                )
                file.write("\n")
        env = {"ASSAY_MAX_IMPORT_BYTES": str(big.stat().st_size + 1024 * 1024)}
        with AssayProcess(directory, env=env) as assay:
            cases = [{"input": f"q{n}", "expected_output": "true"} for n in range(args.cases)]
            suite = assay.client.post("/api/suites", json={"name": "running", "cases": cases}).json()["data"]
            body = {
                "suite_id": suite["id"],
                "grader_id": "true-false",
                "target": {"type": "http", "url": f"{agent_url}/answer"},
                "concurrency": 32,
            }
            evaluation_id = assay.client.post("/api/evaluations", json=body).json()["data"]["id"]
            statuses: Counter[int] = Counter()
            stop = threading.Event()

            def small_writes() -> None:
                with httpx2.Client(base_url=assay.url, timeout=120) as client:
                    n = 0
                    while not stop.is_set():
                        statuses[client.post("/api/suites", json={"name": f"small {n}"}).status_code] += 1
                        n += 1
                        time.sleep(0.05)

            progress: list[tuple[float, int]] = []

            def watch_progress() -> None:
                with httpx2.Client(base_url=assay.url, timeout=120) as client:
                    while not stop.is_set():
                        data = client.get(f"/api/evaluations/{evaluation_id}").json()["data"]
                        progress.append((time.perf_counter(), data["progress"]["done"]))
                        if data["status"] not in ("pending", "running"):
                            return
                        time.sleep(POLL_S)

            threads = [threading.Thread(target=small_writes), threading.Thread(target=watch_progress)]
            for thread in threads:
                thread.start()
            time.sleep(0.5)  # the evaluation is under way
            started = time.perf_counter()
            with big.open("rb") as file:
                imported = assay.client.post(
                    "/api/suites/import", files={"file": ("big.jsonl", file)}, timeout=600
                )
            import_s = time.perf_counter() - started
            import_end = time.perf_counter()
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                evaluation = assay.client.get(f"/api/evaluations/{evaluation_id}").json()["data"]
                if evaluation["status"] not in ("pending", "running"):
                    break
                time.sleep(0.2)
            stop.set()
            for thread in threads:
                thread.join()
            stored = assay.client.get(f"/api/evaluations/{evaluation_id}/results", params={"limit": 1}).json()
    during = [(at, done) for at, done in progress if started <= at <= import_end]
    changes = [at for (_, before), (at, done) in itertools.pairwise(during) if done != before]
    marks = [started, *changes, import_end]
    stall = max((b - a for a, b in itertools.pairwise(marks)), default=0.0)
    print(f"import of {args.import_lines:,} lines: HTTP {imported.status_code} in {import_s:.1f} s")
    print(
        f"evaluation of {args.cases:,} cases: {evaluation['status']}, "
        f"{stored['data']['total']:,} results stored, longest stall in its progress during the import: "
        f"{stall:.2f} s"
    )
    print(f"concurrent small writes by status: {dict(sorted(statuses.items()))}")
    print(f"500s: {sum(n for status, n in statuses.items() if status >= 500 and status != 503)}")


if __name__ == "__main__":
    main()
