"""Benchmark: the evaluation runner as whole processes (medians), through the CLI and through the API.

Run: ``.venv/bin/python bench/runner.py [--cases 10000] [--repeats 5] [--only NAME ...]``.

* ``cli-recorded``: ``assay run`` over N recorded answers, graded and written to a JSONL file.
* ``api-recorded``: a running ``assay serve`` (SQLite): ``POST /api/evaluations`` with N recorded answers,
  then polling until it is completed; every result is stored in the database.
* ``cli-agent-instant``: ``assay run --target-url`` against a loopback agent (another process) that answers
  at once, concurrency 64: cases per second of the whole process.
* ``cli-agent-100ms``: the same against an agent that takes 100 ms per answer, compared with the ideal
  N x 0.1 s / concurrency. Both agent benches also time a bare aiohttp loop against the same agent
  (``bare_client_s``): the floor set by this machine and the agent server, measured in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # reuse the tests' real agent server and `assay serve` process helpers

from tests.support.assay_process import AssayProcess  # noqa: E402

ASSAY = [sys.executable, "-m", "assay.cli"]
AGENT_CONCURRENCY = 64
POLL_S = 0.01


def write_suite(directory: Path, count: int) -> tuple[Path, Path, list[dict[str, Any]]]:
    """A true-false suite of ``count`` cases and a recorded answer for each (two thirds right)."""
    cases = [{"input": f"Is {n} odd?", "expected_output": "true" if n % 2 else "false"} for n in range(count)]
    answers = ["yes" if n % 3 else "no" for n in range(count)]
    suite = directory / "suite.jsonl"
    suite.write_text("".join(json.dumps(case) + "\n" for case in cases))
    responses = directory / "responses.jsonl"
    responses.write_text("".join(json.dumps({"agent_response": answer}) + "\n" for answer in answers))
    return suite, responses, cases


def timed(command: list[str]) -> float:
    """Wall seconds of one process run (which must succeed)."""
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


@contextmanager
def agent(delay: float) -> Iterator[str]:
    """A loopback agent in a process of its own (it must not share the runner's GIL); its URL."""
    behaviour = json.dumps({"default": "yes", "delay": delay})
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.agent_server", "--behaviour", behaviour],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        if not line.startswith("AGENT_URL="):
            raise RuntimeError(f"agent server did not start: {line!r}")
        yield line.removeprefix("AGENT_URL=")
    finally:
        process.terminate()
        process.wait(timeout=10)


def cli_recorded(directory: Path, count: int, repeats: int) -> dict[str, Any]:
    """``assay run`` with recorded answers, results persisted to JSONL."""
    suite, responses, _ = write_suite(directory, count)
    output = directory / "out.jsonl"
    command = [
        *ASSAY,
        "run",
        str(suite),
        "-g",
        "true-false",
        "--responses",
        str(responses),
        "-o",
        str(output),
        "--min-pass-rate",
        "0",  # measured, not gated: a third of the answers are wrong on purpose
    ]
    times = [timed(command) for _ in range(repeats)]
    assert sum(1 for _ in output.open()) == count
    return {"cases": count, "median_s": statistics.median(times), "target_s": 1.0, "runs_s": times}


def api_recorded(directory: Path, count: int, repeats: int) -> dict[str, Any]:
    """Create an evaluation of N recorded answers on a running server, poll until completed."""
    _, _, cases = write_suite(directory, count)
    times = []
    with AssayProcess(directory) as assay:
        suite = assay.client.post("/api/suites", json={"name": "bench", "cases": cases}).json()["data"]
        ids = []
        for skip in range(0, count, 500):
            page = assay.client.get(f"/api/suites/{suite['id']}/cases", params={"limit": 500, "skip": skip})
            ids += [case["id"] for case in page.json()["data"]["cases"]]
        responses = {str(case_id): ("yes" if n % 3 else "no") for n, case_id in enumerate(ids)}
        body = {
            "suite_id": suite["id"],
            "grader_id": "true-false",
            "target": {"type": "recorded", "responses": responses},
        }
        for _ in range(repeats):
            started = time.perf_counter()
            created = assay.client.post("/api/evaluations", json=body).json()["data"]
            while True:
                evaluation = assay.client.get(f"/api/evaluations/{created['id']}").json()["data"]
                if evaluation["status"] != "pending" and evaluation["status"] != "running":
                    break
                time.sleep(POLL_S)
            times.append(time.perf_counter() - started)
            assert evaluation["status"] == "completed", evaluation
            assert evaluation["progress"]["done"] == count
    return {"cases": count, "median_s": statistics.median(times), "target_s": 2.0, "runs_s": times}


async def _bare_client(url: str, count: int) -> float:
    """Seconds for a bare aiohttp loop to send ``count`` requests at concurrency 64: the floor of this
    machine and agent, with no retries, grading or writing."""
    import aiohttp

    connector = aiohttp.TCPConnector(limit=AGENT_CONCURRENCY)
    async with aiohttp.ClientSession(connector=connector) as session:
        numbers = iter(range(count))

        async def work() -> None:
            for number in numbers:
                async with session.post(url, json={"input": f"Is {number} odd?"}) as response:
                    await response.read()

        started = time.perf_counter()
        await asyncio.gather(*(work() for _ in range(AGENT_CONCURRENCY)))
        return time.perf_counter() - started


def cli_agent(directory: Path, count: int, repeats: int, delay: float) -> dict[str, Any]:
    """``assay run --target-url`` against a loopback agent at concurrency 64, beside a bare client."""
    suite, _, _ = write_suite(directory, count)
    output = directory / "out.jsonl"
    with agent(delay) as url:
        command = [*ASSAY, "run", str(suite), "-g", "true-false", "--target-url", url]
        command += ["-j", str(AGENT_CONCURRENCY), "-o", str(output), "--min-pass-rate", "0"]
        times = [timed(command) for _ in range(repeats)]
        floor = statistics.median(asyncio.run(_bare_client(url, count)) for _ in range(repeats))
    median = statistics.median(times)
    result: dict[str, Any] = {"cases": count, "median_s": median, "cases_per_s": count / median}
    result |= {"bare_client_s": floor, "runs_s": times}
    if delay:
        ideal = count * delay / AGENT_CONCURRENCY
        result |= {"ideal_s": ideal, "over_ideal": median / ideal - 1, "bare_over_ideal": floor / ideal - 1}
    return result


def main(argv: list[str] | None = None) -> None:
    """Run the chosen benchmarks and print their medians as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--slow-cases", type=int, default=12_800, help="cases for the 100 ms agent")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args(argv)
    benches: dict[str, Callable[[Path], dict[str, Any]]] = {
        "cli-recorded": lambda d: cli_recorded(d, args.cases, args.repeats),
        "api-recorded": lambda d: api_recorded(d, args.cases, args.repeats),
        "cli-agent-instant": lambda d: cli_agent(d, args.cases, args.repeats, 0.0),
        "cli-agent-100ms": lambda d: cli_agent(d, args.slow_cases, max(1, args.repeats // 2), 0.1),
    }
    for name, bench in benches.items():
        if args.only and name not in args.only:
            continue
        with tempfile.TemporaryDirectory(prefix=f"assay-bench-{name}-") as directory:
            result = bench(Path(directory))
        runs = ", ".join(f"{run:.3f}" for run in result.pop("runs_s"))
        figures = ", ".join(
            f"{key} {value:.3f}" if isinstance(value, float) else f"{key} {value}"
            for key, value in result.items()
        )
        print(f"{name:18} {figures}  (runs: {runs})", flush=True)


if __name__ == "__main__":
    main()
