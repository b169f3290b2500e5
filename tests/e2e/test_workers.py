"""Several processes, one database: real ``assay serve`` and ``assay worker`` processes share evaluations.

On PostgreSQL, two servers and a worker run one evaluation while the worker is SIGKILLed five times: no
case is lost or stored twice, the summary is a recount of the stored rows, and a case is asked twice only
when its first call was in flight (or graded, unwritten) in the killed worker at the kill. A cancel
through one server stops the calls of a worker within two seconds. On SQLite, two servers on one file
run an evaluation once between them.
"""

from __future__ import annotations

import signal
import subprocess
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text

from assay.storage.database import normalize_url
from tests.support import waiting
from tests.support.agent_server import AgentBehaviour, AgentServer, RecordedRequest, most_at_once
from tests.support.assay_process import AssayProcess, WorkerProcess
from tests.support.postgres import new_database, require_postgres

# Kills and stops processes on purpose: one at a time, on one test process (make test runs e2e on two).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("processes")]

RUN_TIMEOUT_S = 120.0
MAX_IN_FLIGHT = 16
KILLS = 5
FAST_WORKERS = {
    # Heartbeats every 0.3 s, a silent worker dead after 5 s: kills are noticed within the test's time, and a
    # live worker whose heartbeats a busy machine delays is not taken for dead (its shard would run twice).
    "ASSAY_WORKER_HEARTBEAT_S": "0.3",
    "ASSAY_WORKER_STALLED_S": "5",
    "ASSAY_WORKER_MAX_IN_FLIGHT": str(MAX_IN_FLIGHT),
}
POLL_S = 0.1
"""Between two looks at the servers or the database while waiting: each look costs them a query."""


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A new, migrated database of this test's own on the PostgreSQL server."""
    with new_database(require_postgres(), "assay_workers", migrated=True) as url:
        yield url
        engine_of(url).dispose()  # before the database is dropped


@cache
def engine_of(url: str) -> Engine:
    """One engine (and its pooled connections) for every look of a test at its database."""
    return create_engine(normalize_url(url))


def data(response: Any) -> Any:
    assert response.status_code < 400, response.text
    return response.json()["data"]


def start_evaluation(
    server: AssayProcess, agent: AgentServer, cases: int, concurrency: int, *, timeout_s: float = 10
) -> int:
    inputs = [{"input": f"question {n}", "expected_output": "true"} for n in range(cases)]
    suite = data(
        server.client.post("/api/suites", json={"name": f"workers {uuid.uuid4().hex[:6]}", "cases": inputs})
    )
    # a test that makes the agent wait sets a timeout no call reaches: a call that timed out is asked again
    target = {"type": "http", "url": agent.url, "timeout": timeout_s}
    body = {"suite_id": suite["id"], "grader_id": "true-false", "target": target, "concurrency": concurrency}
    return int(data(server.client.post("/api/evaluations", json=body))["id"])


def wait_for(
    server: AssayProcess,
    evaluation_id: int,
    *,
    done: int = 0,
    ended: bool = False,
    timeout_s: float = RUN_TIMEOUT_S,
) -> dict[str, Any]:
    def there() -> dict[str, Any] | None:
        evaluation: dict[str, Any] = data(server.client.get(f"/api/evaluations/{evaluation_id}"))
        if evaluation["status"] in {"completed", "failed", "cancelled"}:
            return evaluation
        if not ended and evaluation["progress"]["done"] >= done:
            return evaluation
        return None

    try:
        return waiting.wait_for(there, timeout_s, what=f"evaluation {evaluation_id}", every=POLL_S)
    except AssertionError as error:
        raise AssertionError(f"{error}\n{server.log_tail()}") from None


def stored(url: str, evaluation_id: int) -> tuple[list[str], dict[str, Any]]:
    """The inputs of the stored results, and the evaluation's stored columns."""
    with engine_of(url).connect() as db:
        inputs = db.execute(
            text("SELECT input FROM results WHERE evaluation_id = :id"), {"id": evaluation_id}
        ).scalars()
        row = db.execute(
            text("SELECT status, done, total FROM evaluations WHERE id = :id"), {"id": evaluation_id}
        ).one()
        return [value.strip('"') for value in inputs], dict(row._mapping)


def newest_worker_id(url: str) -> int | None:
    """The id procrastinate gave the worker registered last."""
    with engine_of(url).connect() as db:
        return db.execute(text("SELECT max(id) FROM procrastinate_workers")).scalar()


def newer_worker_id(url: str, previous: int) -> int:
    """The newest worker's id if one registered after worker ``previous``, else 0."""
    newest = newest_worker_id(url) or 0
    return newest if newest > previous else 0


def jobs_running_on(url: str, worker_id: int) -> int:
    with engine_of(url).connect() as db:
        query = text("SELECT count(*) FROM procrastinate_jobs WHERE status = 'doing' AND worker_id = :w")
        return int(db.execute(query, {"w": worker_id}).scalar() or 0)


def settled(url: str, evaluation_id: int, requests: list[RecordedRequest], lost: set[int]) -> bool:
    """Whether every case answered to a live process is stored (``lost``: indexes of the requests a killed
    worker had in flight, whose answers nobody read)."""
    answered = {
        request.input
        for index, request in enumerate(requests)
        if request.ended is not None and index not in lost
    }
    return answered <= set(stored(url, evaluation_id)[0])


def waiting_calls(requests: list[RecordedRequest], lost: set[int]) -> int:
    """How many calls of live processes the agent has not answered yet."""
    return sum(r.ended is None and index not in lost for index, r in enumerate(requests))


@pytest.mark.postgres
def test_a_worker_killed_five_times_loses_and_doubles_nothing(tmp_path: Path, postgres_url: str) -> None:
    # Three lanes of 16 (one shard of 500 cases each), one on each of the three processes. The agent answers
    # only what the test allows, so nothing depends on the machine's speed: before each kill the restarted
    # worker runs a lane with its calls in flight, every answer given to a live process is stored, and the
    # run cannot end before the last kill. Which calls the kill cut off is read from the worker's sockets.
    cases, concurrency = 1500, 48
    # answers allowed between two kills: more than the calls waiting (three lanes' and the killed worker's)
    step = 2 * concurrency
    with AgentServer(AgentBehaviour(default="yes")) as agent:
        agent.allow(0)
        with (
            AssayProcess(tmp_path, database_url=postgres_url, env=FAST_WORKERS, name="serve-a") as server_a,
            AssayProcess(tmp_path, database_url=postgres_url, env=FAST_WORKERS, name="serve-b") as server_b,
            WorkerProcess(tmp_path, database_url=postgres_url, env=FAST_WORKERS) as worker,
        ):
            evaluation_id = start_evaluation(server_a, agent, cases, concurrency, timeout_s=600)
            kill_times: list[float] = []
            lost: dict[int, float] = {}  # the requests each kill cut off, by index: when
            worker_id = 0
            for kill in range(1, KILLS + 1):
                # the worker started is the one registered last; it runs a lane once the killed one's lane is
                # queued again (the servers run one lane each, their calls waiting on the agent)
                worker_id = waiting.wait_for(
                    lambda previous=worker_id: newer_worker_id(postgres_url, previous),
                    RUN_TIMEOUT_S,
                    what="the started worker to register",
                    every=POLL_S,
                )
                waiting.wait_for(
                    lambda current=worker_id: jobs_running_on(postgres_url, current),
                    RUN_TIMEOUT_S,
                    what=f"worker {worker_id} to run a shard",
                    every=POLL_S,
                )
                waiting.wait_for(
                    lambda: waiting_calls(agent.requests, set(lost)) >= concurrency,
                    RUN_TIMEOUT_S,
                    what="every lane's calls to wait on the agent",
                )
                agent.allow(step)
                waiting.wait_for(
                    lambda: (
                        agent.is_still and settled(postgres_url, evaluation_id, agent.requests, set(lost))
                    ),
                    RUN_TIMEOUT_S,
                    what="the allowed answers to be stored",
                    every=POLL_S,
                )
                evaluation = data(server_b.client.get(f"/api/evaluations/{evaluation_id}"))
                assert evaluation["status"] == "running"
                print(f"kill {kill} at {evaluation['progress']['done']} done")
                ports = worker.ports_to(agent.port)
                in_flight = [
                    index
                    for index, request in enumerate(agent.requests)
                    if request.ended is None and request.client_port in ports
                ]
                assert in_flight, "the worker had no call in flight"
                worker.kill()
                kill_times.append(time.monotonic())  # dead and reaped: it sent nothing after this
                lost.update(dict.fromkeys(in_flight, kill_times[-1]))
                worker.start()
            agent.allow(None)
            final = wait_for(server_b, evaluation_id, ended=True)
            worker.stop()
            logs = server_a.log() + server_b.log() + worker.log()
        requests = list(agent.requests)

    assert final["status"] == "completed", logs
    inputs, row = stored(postgres_url, evaluation_id)
    expected = {f"question {n}" for n in range(cases)}
    assert len(inputs) == cases  # none stored twice ...
    assert set(inputs) == expected  # ... and none lost
    assert row["done"] == cases == final["progress"]["done"]
    assert final["summary"]["finished"] == cases == final["summary"]["passed"]  # a recount of the rows
    assert "stopped answering; queued again" in logs

    # Each case was asked once by a process that lived to store its answer; any other call of it was in
    # flight in the worker when it was killed (the worker that ran its lane next asked it again, once: every
    # call waiting is answered before the next kill).
    kept = Counter(request.input for index, request in enumerate(requests) if index not in lost)
    assert set(kept) == expected
    assert set(kept.values()) == {1}, [text_ for text_, count in kept.items() if count > 1][:10]
    calls = Counter(request.input for request in requests)
    print(f"cases asked twice: {sum(count > 1 for count in calls.values())} over {KILLS} kills")
    assert max(calls.values()) == 2
    assert len(lost) <= KILLS * MAX_IN_FLIGHT
    # The evaluation's limit, over three processes: a call cut off by a kill ends with its caller.
    spans = [(r.at, lost.get(index, r.ended or r.at)) for index, r in enumerate(requests)]
    assert most_at_once(spans) <= concurrency


@pytest.mark.postgres
def test_a_cancel_through_one_server_stops_a_worker_within_two_seconds(
    tmp_path: Path, postgres_url: str
) -> None:
    with AgentServer(AgentBehaviour(default="yes", delay=0.05)) as agent:
        server = AssayProcess(tmp_path, database_url=postgres_url, env=FAST_WORKERS, args=("--no-worker",))
        with server, WorkerProcess(tmp_path, database_url=postgres_url, env=FAST_WORKERS) as worker:
            evaluation_id = start_evaluation(server, agent, 5000, 32)
            wait_for(server, evaluation_id, done=300)
            cancelled = data(server.client.post(f"/api/evaluations/{evaluation_id}/cancel"))
            cancelled_at = time.monotonic()
            time.sleep(3.0)
            later = data(server.client.get(f"/api/evaluations/{evaluation_id}"))
            worker.stop()
        requests = list(agent.requests)
    assert cancelled["status"] == "cancelled"
    late = [request for request in requests if request.at > cancelled_at + 2.0]
    assert late == [], f"{len(late)} calls more than 2 s after the cancel"
    assert len(requests) < 5000
    inputs, row = stored(postgres_url, evaluation_id)
    assert row["status"] == "cancelled"
    assert len(inputs) == len(set(inputs)) == row["done"] == later["progress"]["done"]
    assert later["summary"]["finished"] == len(inputs)  # recounted when cancelled; nothing stored since


def test_two_servers_on_one_sqlite_file_run_an_evaluation_once(tmp_path: Path) -> None:
    env = {"ASSAY_WORKER_HEARTBEAT_S": "0.3", "ASSAY_WORKER_STALLED_S": "3"}
    cases = 600
    with AgentServer(AgentBehaviour(default="yes", delay=0.02)) as agent:
        with (
            AssayProcess(tmp_path, env=env, name="serve-a"),
            AssayProcess(tmp_path, env=env, name="serve-b") as second,
        ):
            evaluation_id = start_evaluation(second, agent, cases, 16)  # created on the one without the lease
            final = wait_for(second, evaluation_id, ended=True)
            second_log = second.log()
        calls = Counter(request.input for request in agent.requests)
    assert final["status"] == "completed"
    assert final["summary"]["finished"] == cases
    assert len(calls) == cases
    assert set(calls.values()) == {1}
    assert "runs the evaluations of this SQLite database" in second_log


LOST_LEASE = "lost the evaluation runner lease"
"""What a server logs when it wakes to find that another took the evaluations of its SQLite file over."""


def holds_write_lock(pid: int) -> bool:
    """Whether process ``pid`` holds an exclusive file lock (SQLite's write lock is one, on the -shm file)."""
    return any(
        fields[3] == "WRITE" and fields[4] == str(pid)
        for fields in (line.split() for line in Path("/proc/locks").read_text().splitlines())
        if len(fields) > 4
    )


def taken_over(frozen: subprocess.Popen[bytes], server: AssayProcess, evaluation_id: int) -> dict[str, Any]:
    """The evaluation once ``server`` has run 300 more cases while ``frozen`` is stopped.

    A process stopped inside SQLite's write lock keeps every other process from writing to the file, lease
    or none; a signal can land there. Only then is the frozen one thawed for a moment and stopped again.
    """
    for _ in range(5):
        start = wait_for(server, evaluation_id)["progress"]["done"]
        try:
            return wait_for(server, evaluation_id, done=start + 300, timeout_s=30.0)
        except AssertionError:
            if not holds_write_lock(frozen.pid):
                raise  # no lock in the way: the lease was not taken over
        frozen.send_signal(signal.SIGCONT)
        time.sleep(0.2)
        frozen.send_signal(signal.SIGSTOP)
    raise AssertionError("the frozen server was stopped inside the write lock five times")


def test_a_sqlite_server_frozen_past_its_lease_stops_running_when_it_wakes(tmp_path: Path) -> None:
    # The agent answers only what the test allows: the run is still going when the frozen server wakes.
    env = {"ASSAY_WORKER_HEARTBEAT_S": "0.3", "ASSAY_WORKER_STALLED_S": "2"}
    cases, concurrency = 1500, 16
    with AgentServer(AgentBehaviour(default="yes")) as agent:
        agent.allow(300)
        with (
            AssayProcess(tmp_path, env=env, name="serve-a") as first,  # takes the lease: runs it
            AssayProcess(tmp_path, env=env, name="serve-b") as second,
        ):
            evaluation_id = start_evaluation(second, agent, cases, concurrency, timeout_s=600)
            wait_for(second, evaluation_id, done=300)
            assert first.process is not None
            first.process.send_signal(signal.SIGSTOP)  # frozen: its lease expires, the other takes it over
            try:
                agent.allow(600)  # the frozen one's waiting calls, then the other's
                frozen = taken_over(first.process, second, evaluation_id)
            finally:
                first.process.send_signal(signal.SIGCONT)
            assert frozen["status"] == "running"  # at most 900 of 1,500 answered
            waiting.wait_for(
                lambda: LOST_LEASE in first.log(), RUN_TIMEOUT_S, what="the thawed server to let the lease go"
            )
            agent.allow(None)
            final = wait_for(second, evaluation_id, ended=True)
        calls = Counter(request.input for request in agent.requests)
    assert final["status"] == "completed"
    assert final["summary"]["finished"] == cases
    assert len(calls) == cases
    # Asked twice: only what the frozen server had in flight, and what it sent before its first heartbeat
    # after waking told it that the lease had gone.
    twice = [text_ for text_, count in calls.items() if count > 1]
    print(f"cases asked twice: {len(twice)}")
    assert len(twice) <= 10 * concurrency  # a few lanes' worth (48 measured); it went on running: ~2,500


@pytest.mark.postgres
def test_a_worker_runs_an_evaluation_under_the_egress_policy_of_the_server_that_accepted_it(
    tmp_path: Path, postgres_url: str
) -> None:
    # A keyed server refuses loopback; a worker started without the key would allow it on its own.
    key = "k" * 32
    with AgentServer(AgentBehaviour(default="yes")) as agent:
        server = AssayProcess(
            tmp_path,
            database_url=postgres_url,
            env={**FAST_WORKERS, "ASSAY_API_KEY": key},
            args=("--no-worker",),
        )
        with server, WorkerProcess(tmp_path, database_url=postgres_url, env=FAST_WORKERS):
            server.client.headers["Authorization"] = f"Bearer {key}"
            suite = data(
                server.client.post(
                    "/api/suites",
                    json={"name": "egress", "cases": [{"input": "q", "expected_output": "true"}]},
                )
            )
            # A name, not a literal address: accepted at creation, checked on connecting (by the worker).
            target = {"type": "http", "url": f"http://localhost:{agent.port}/", "max_attempts": 1}
            body = {"suite_id": suite["id"], "grader_id": "true-false", "target": target}
            evaluation_id = int(data(server.client.post("/api/evaluations", json=body))["id"])
            final = wait_for(server, evaluation_id, ended=True)
        assert agent.requests == []
    assert final["status"] == "failed"
    assert "loopback or private" in (final["error"] or "")


FENCED = "this process was frozen past its lease"
"""What a worker logs when it wakes to find that its shard was taken over."""


def taken_over_by_another(
    frozen: subprocess.Popen[bytes], server: AssayProcess, evaluation_id: int
) -> dict[str, Any]:
    """The evaluation once 200 more cases ran while ``frozen`` is stopped. A worker stopped inside a
    transaction holds its row locks, and the others wait for them: then it is thawed for a moment."""
    for _ in range(5):
        start = wait_for(server, evaluation_id)["progress"]["done"]
        try:
            return wait_for(server, evaluation_id, done=start + 200, timeout_s=20.0)
        except AssertionError:
            frozen.send_signal(signal.SIGCONT)
            time.sleep(0.2)
            frozen.send_signal(signal.SIGSTOP)
    raise AssertionError("no other worker took the frozen one's shard over")


@pytest.mark.postgres
def test_a_worker_frozen_past_its_lease_stops_calling_when_it_wakes(
    tmp_path: Path, postgres_url: str
) -> None:
    # The agent answers only what the test allows, so the run is still going when the frozen worker wakes,
    # however slow or fast the machine: it must see that its lane was taken over before calling again.
    env = {**FAST_WORKERS, "ASSAY_WORKER_STALLED_S": "3"}
    cases, concurrency = 1000, 16  # one lane: one worker runs it at a time
    with AgentServer(AgentBehaviour(default="yes")) as agent:
        agent.allow(100)
        server = AssayProcess(tmp_path, database_url=postgres_url, env=env, args=("--no-worker",))
        first = WorkerProcess(tmp_path, database_url=postgres_url, env=env)
        with server, first:
            evaluation_id = start_evaluation(server, agent, cases, concurrency, timeout_s=600)
            wait_for(server, evaluation_id, done=100)  # the first worker runs the lane; its next calls wait
            (tmp_path / "second").mkdir()
            with WorkerProcess(tmp_path / "second", database_url=postgres_url, env=env):
                assert first.process is not None
                first.process.send_signal(signal.SIGSTOP)
                frozen_at = time.monotonic()
                try:
                    agent.allow(400)  # the frozen one's waiting calls, then the lane on the second worker
                    taken_over = taken_over_by_another(first.process, server, evaluation_id)
                finally:
                    first.process.send_signal(signal.SIGCONT)
                assert taken_over["status"] == "running"  # at most 500 of 1,000 answered
                waiting.wait_for(
                    lambda: FENCED in first.log(), RUN_TIMEOUT_S, what="the thawed worker to stop its shard"
                )
                agent.allow(None)
                final = wait_for(server, evaluation_id, ended=True)
        after_freeze = [(r.at, r.ended or r.at) for r in agent.requests if r.at > frozen_at]
    assert final["status"] == "completed"
    assert final["summary"]["finished"] == cases
    assert most_at_once(after_freeze) <= concurrency  # the thawed worker called nothing beside the second
