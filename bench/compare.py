"""Benchmark: comparing two large evaluations of one suite through the API (issue: compare in milliseconds).

Run: ``.venv/bin/python bench/compare.py [--cases 100000] [--flips 10000] [--repeats 5]``.

Starts a real ``assay serve`` on SQLite (or ``--database-url``), imports one suite of N true-false cases
whose metadata holds two recorded answers per case, runs evaluation A and evaluation B on them (recorded
targets, nothing called) so that exactly ``--flips`` cases flip (half each way), then times:

* ``first compare in a new server``: B against A, the server's first comparison (it imports SciPy);
* ``first request``: then the first ``GET /api/evaluations/{a}/compare/{b}?limit=100`` of the pair (counts,
  McNemar's tests and the first page: what the UI waits for), once;
* ``first page again``: the same request once the pair's counts and tests are known;
* ``next page``: the same with ``skip`` deep in the flips (what the UI fetches while scrolling);
* ``every page``: all flips fetched 500 at a time (what the UI did before it paged on demand).

Prints the first request's time and the median of the others (target: the first request under 1 s).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # reuse the tests' `assay serve` process helper

from tests.support.assay_process import AssayProcess  # noqa: E402

POLL_S = 0.05


def suite_file(directory: Path, count: int, flips: int) -> Path:
    """N cases; answers ``a`` and ``b`` agree except on ``flips`` cases spread over the suite."""
    step = max(1, count // max(1, flips))
    lines = []
    for n in range(count):
        expected = "true" if n % 2 else "false"
        wrong = "false" if n % 2 else "true"
        answer_a = expected if n % 7 else wrong  # about one case in seven fails in both
        answer_b = answer_a
        flip_index = n // step
        if n % step == 0 and flip_index < flips:
            answer_b = wrong if flip_index % 2 else expected
            answer_a = expected if flip_index % 2 else wrong
        lines.append(
            json.dumps(
                {
                    "input": f"Is {n} odd?",
                    "expected_output": expected,
                    "metadata": {"a": answer_a, "b": answer_b},
                }
            )
        )
    path = directory / "suite.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def run_evaluation(assay: AssayProcess, suite_id: int, key: str) -> int:
    """Start a recorded evaluation reading answers from metadata ``key``; wait for it; its id."""
    body = {
        "suite_id": suite_id,
        "grader_id": "true-false",
        "name": f"bench {key}",
        "target": {"type": "recorded", "metadata_key": key},
    }
    response = assay.client.post("/api/evaluations", json=body, timeout=120)
    response.raise_for_status()
    evaluation_id: int = response.json()["data"]["id"]
    while True:
        evaluation = assay.client.get(f"/api/evaluations/{evaluation_id}").json()["data"]
        if evaluation["status"] not in {"pending", "running"}:
            break
        time.sleep(POLL_S)
    if evaluation["status"] != "completed":
        raise RuntimeError(f"evaluation {evaluation_id} ended {evaluation['status']}")
    return evaluation_id


def timed_get(assay: AssayProcess, path: str, params: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Seconds of one GET and its ``data``."""
    started = time.perf_counter()
    response = assay.client.get(path, params=params, timeout=120)
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    data: dict[str, Any] = response.json()["data"]
    return elapsed, data


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--flips", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        path = suite_file(directory, args.cases, args.flips)
        with AssayProcess(directory, database_url=args.database_url) as assay:
            with path.open("rb") as file:
                imported = assay.client.post(
                    "/api/suites/import", files={"file": ("suite.jsonl", file)}, timeout=300
                )
            imported.raise_for_status()
            suite_id = imported.json()["data"]["id"]
            a_id = run_evaluation(assay, suite_id, "a")
            b_id = run_evaluation(assay, suite_id, "b")
            path_ab = f"/api/evaluations/{a_id}/compare/{b_id}"
            fresh, _ = timed_get(assay, f"/api/evaluations/{b_id}/compare/{a_id}", {"limit": 100})
            cold, data = timed_get(assay, path_ab, {"limit": 100})
            first, deep, every = [], [], []
            for _ in range(args.repeats):
                seconds, data = timed_get(assay, path_ab, {"limit": 100})
                first.append(seconds)
                seconds, _ = timed_get(assay, path_ab, {"limit": 100, "skip": args.flips // 2})
                deep.append(seconds)
                started = time.perf_counter()
                fetched = 0
                while fetched < data["flips_total"]:
                    _, page = timed_get(assay, path_ab, {"limit": 500, "skip": fetched})
                    if not page["flips"]:
                        break
                    fetched += len(page["flips"])
                every.append(time.perf_counter() - started)
    print(
        f"two evaluations of {args.cases:,} cases, {data['flips_total']:,} flips "
        f"({data['pass_to_fail']:,} pass->fail, {data['fail_to_pass']:,} fail->pass), "
        f"two-sided p = {data['p_value']:.3g}; medians of {args.repeats}:"
    )
    rows = [
        ("first compare in a new server (B vs A, imports SciPy)", fresh),
        ("first request of the pair: counts, tests, first page", cold),
        ("first page again", statistics.median(first)),
        ("a page deep in the flips", statistics.median(deep)),
        ("every page, 500 at a time", statistics.median(every)),
    ]
    for label, seconds in rows:
        print(f"  {label:<56}{seconds * 1000:9.1f} ms")
    print(f"  target: the first request of the pair under 1000 ms ({'met' if cold < 1 else 'NOT met'})")


if __name__ == "__main__":
    main()
