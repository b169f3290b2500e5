"""Benchmark: big trajectories through the server (issue 26): memory, health, a long one's first page.

Run: ``.venv/bin/python bench/trajectories.py [--cases 200] [--mb 5] [--concurrency 8] [--big-mb 100]``.

Starts a real ``assay serve`` (SQLite) and, in a process of its own, an agent whose every reply carries an
OpenAI chat trajectory of ``--mb`` MB (tool calls and results of four tools in turn), read from the reply
(``trajectory: {from: reply, path: messages}``) and checked by ``tool-called`` and ``trajectory-budget``.
Runs ``--cases`` cases (the issue asks 10,000: a flag, since each is 5 MB through the server) while a
third process asks ``/api/health`` every 20 ms. Prints the run's time, the server's peak RSS (``VmHWM``;
its RSS before the run, its children's peak, and its peak so far when 10 %, 50 % and 100 % of the cases
are done, which shows whether memory grows with the cases) and health's p50/p99/max (targets: RSS ≤ 300 MB,
p99 ≤ 100 ms), the bytes stored per trajectory; then
one case of ``--big-mb`` MB and the time of its trajectory's first page (``limit=100``; target ≤ 1 s).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.factories import TERMINAL  # noqa: E402
from tests.support.assay_process import AssayProcess  # noqa: E402

TOOLS = ("search_orders", "lookup_order", "refund", "notify")
RESULT_CHARS = 2_400


def trajectory_body(megabytes: float) -> bytes:
    """A reply whose ``messages`` hold about ``megabytes`` MB of tool calls and results."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Refund every order of customer 7"}]
    size, index = 0, 0
    while size < megabytes * 1_000_000:
        call_id = f"call_{index}"
        arguments = json.dumps({"order_id": index, "note": "x" * 40})
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": TOOLS[index % 4], "arguments": arguments},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": "r" * RESULT_CHARS})
        size += RESULT_CHARS + 200
        index += 1
    messages.append({"role": "assistant", "content": "Done: every order refunded."})
    return json.dumps({"answer": "Done: every order refunded.", "messages": messages}).encode()


def _serve_agent(port_queue: multiprocessing.Queue[int], megabytes: float, big_megabytes: float) -> None:
    """The agent: ``POST /agent`` answers the prepared body (``{"big": true}`` in the body: the big one)."""
    import asyncio

    from aiohttp import web

    small, big = trajectory_body(megabytes), trajectory_body(big_megabytes)

    async def answer(request: web.Request) -> web.Response:
        body = await request.json()
        return web.Response(body=big if body.get("big") else small, content_type="application/json")

    async def main() -> None:
        app = web.Application()
        app.router.add_post("/agent", answer)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port_queue.put(runner.addresses[0][1])
        await asyncio.Event().wait()

    asyncio.run(main())


def _probe(url: str, stop: Any, queue: multiprocessing.Queue[list[float]]) -> None:
    latencies = []
    with httpx2.Client(base_url=url, timeout=60) as client:
        while not stop.is_set():
            started = time.perf_counter()
            client.get("/api/health").raise_for_status()
            latencies.append(time.perf_counter() - started)
            time.sleep(0.02)
    queue.put(latencies)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def _status_mb(pid: int, field: str) -> float:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:  # a child that ended meanwhile
        return 0.0
    for line in lines:
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set (``VmHWM``), in MB."""
    return _status_mb(pid, "VmHWM")


def children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (a reading subprocess would count in the server's memory)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            direct = [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in direct:
            found += [child, *children(child)]
    return found


class Memory:
    """The server's resident set (``VmRSS``) and its children's, sampled every 0.1 s by a thread."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_children_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(0.1):
            kids = sum(_status_mb(child, "VmRSS") for child in children(self.pid))
            self.peak_children_mb = max(self.peak_children_mb, kids)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def run_evaluation(
    client: httpx2.Client,
    agent_url: str,
    cases: int,
    concurrency: int,
    big: bool,
    on_progress: Any = lambda done: None,
) -> int:
    suite = {
        "name": f"trajectories {time.time()}",
        "assert": [
            {"grader_id": "tool-called", "config": {"tool": "refund"}},
            {"grader_id": "trajectory-budget", "config": {"max_steps": 200_000}},
        ],
        "cases": [{"input": f"case {n}", "expected_output": "Done"} for n in range(cases)],
    }
    suite_id = client.post("/api/suites", json=suite, timeout=120).json()["data"]["id"]
    target = {
        "type": "http",
        "url": agent_url,
        "body_template": {"input": "{{input}}", "big": big},
        "response_path": "answer",
        "timeout": 600,
        "trajectory": {"from": "reply", "path": "messages", "dialect": "openai-chat"},
    }
    body = {"suite_id": suite_id, "grader_id": "contains", "target": target, "concurrency": concurrency}
    created = client.post("/api/evaluations", json=body)
    assert created.status_code == 201, created.text
    evaluation_id: int = created.json()["data"]["id"]
    shown_url = f"/api/evaluations/{evaluation_id}"
    while (polled := client.get(shown_url).json()["data"])["status"] not in TERMINAL:
        on_progress(polled["progress"]["done"])
        time.sleep(0.2)
    shown = client.get(f"/api/evaluations/{evaluation_id}").json()["data"]
    assert shown["status"] == "completed", shown
    assert shown["summary"]["passed"] == cases, shown["summary"]
    return evaluation_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200, help="cases of --mb MB each (the issue: 10,000)")
    parser.add_argument("--mb", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--big-mb", type=float, default=100.0)
    args = parser.parse_args()

    ports: multiprocessing.Queue[int] = multiprocessing.Queue()
    agent = multiprocessing.Process(target=_serve_agent, args=(ports, args.mb, args.big_mb), daemon=True)
    agent.start()
    agent_url = f"http://127.0.0.1:{ports.get(timeout=300)}/agent"
    with tempfile.TemporaryDirectory() as tmp, AssayProcess(Path(tmp)) as assay:
        assert assay.process is not None
        pid = assay.process.pid
        client = assay.client
        client.timeout = httpx2.Timeout(120)
        idle = _status_mb(pid, "VmRSS")
        memory = Memory(pid)
        marks = {10: 0.0, 50: 0.0, 100: 0.0}

        def on_progress(done: int) -> None:  # the peak so far when the run passes 10 %, 50 %, 100 %
            for share in marks:
                if not marks[share] and done * 100 >= share * args.cases:
                    marks[share] = peak_rss_mb(pid)

        stop = multiprocessing.Event()
        latencies: multiprocessing.Queue[list[float]] = multiprocessing.Queue()
        probe = multiprocessing.Process(target=_probe, args=(assay.url, stop, latencies))
        probe.start()
        started = time.perf_counter()
        evaluation_id = run_evaluation(
            client, agent_url, args.cases, args.concurrency, big=False, on_progress=on_progress
        )
        elapsed = time.perf_counter() - started
        marks = {share: mark or peak_rss_mb(pid) for share, mark in marks.items()}
        stop.set()
        health = latencies.get()
        probe.join()
        rss = peak_rss_mb(pid)
        memory.stop()
        first = client.get(f"/api/evaluations/{evaluation_id}/results", params={"limit": 1}).json()["data"]
        summary = first["results"][0]["trajectory"]
        print(
            f"{args.cases} cases of {args.mb:g} MB trajectories ({summary['steps']:,} steps each), "
            f"concurrency {args.concurrency}: {elapsed:.1f} s ({args.cases / elapsed:.1f} cases/s)"
        )
        print(
            f"server peak RSS {rss:.0f} MB (target <= 300; {idle:.0f} MB before the run), its children's "
            f"peak {memory.peak_children_mb:.0f} MB; peak so far at "
            + ", ".join(f"{share} % of the cases {mark:.0f} MB" for share, mark in marks.items())
        )
        print(
            f"health while running: p50 {percentile(health, 50) * 1000:.1f} ms, "
            f"p99 {percentile(health, 99) * 1000:.1f} ms, max {max(health) * 1000:.1f} ms "
            f"over {len(health)} probes (target p99 <= 100 ms)"
        )
        stored = sum(path.stat().st_size for path in Path(tmp).glob("assay.db*"))  # the WAL included
        print(f"database after the run: {stored / 1e6:.1f} MB, {stored / args.cases / 1e3:.0f} kB a case")

        big_id = run_evaluation(client, agent_url, 1, 1, big=True)
        case_id = client.get(f"/api/evaluations/{big_id}/results").json()["data"]["results"][0]["case_id"]
        url = f"/api/evaluations/{big_id}/results/{case_id}/trajectory"
        times = []
        for _ in range(5):
            began = time.perf_counter()
            page = client.get(url, params={"limit": 100})
            times.append(time.perf_counter() - began)
            assert page.status_code == 200, page.text
        steps = page.json()["data"]["summary"]["steps"]
        middle = time.perf_counter()
        client.get(url, params={"offset": steps // 2, "limit": 100}).raise_for_status()
        print(
            f"{args.big_mb:g} MB trajectory ({steps:,} steps): first page of 100 steps "
            f"median {statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms "
            "(target <= 1 s); "
            f"a page in its middle {(time.perf_counter() - middle) * 1000:.1f} ms"
        )
        print(f"server peak RSS after the {args.big_mb:g} MB case: {peak_rss_mb(pid):.0f} MB")
    agent.terminate()


if __name__ == "__main__":
    main()
