"""Cost and latency from the CLI, as real processes: ``assay run`` prints the agent's and the judge's cost
apart and gates on them (``--max-cost-usd``...), ``assay eval`` reads ``prices:`` and the cost and latency
``gates``; an unknown cost holds no gate. The agent and the judge are real servers on loopback that say what
they spent (the agent: the input's and the answer's lengths; the judge: 100 and 20 tokens a call).

A test of several commands runs them in one process (tests/support/cli_batch.py): one start-up for them all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from tests.support.agent_server import USAGE_MODEL, AgentBehaviour, AgentServer
from tests.support.cli import Invoked
from tests.support.cli_batch import Command, invoke_in_one_process
from tests.support.judge_server import JudgeServer
from tests.support.results import read_results

ASSAY = [sys.executable, "-m", "assay.cli"]
QUESTIONS = {"Is water wet?": "yes", "Is 2 even?": "yes"}
PRICES = {
    USAGE_MODEL: {"input_per_million": 2, "output_per_million": 8},
    "judge-1-scripted": {"input_per_million": "0.15", "output_per_million": "0.6"},
}
AGENT_USD = sum(len(q) * Decimal(2) + len(a) * Decimal(8) for q, a in QUESTIONS.items()) / 1_000_000
JUDGE_USD = 2 * (100 * Decimal("0.15") + 20 * Decimal("0.6")) / 1_000_000


def assay(*args: str, prices: object = PRICES) -> subprocess.CompletedProcess[str]:
    env = {name: value for name, value in os.environ.items() if name != "ASSAY_PRICES"}
    if prices is not None:
        env["ASSAY_PRICES"] = prices if isinstance(prices, str) else json.dumps(prices)
    return subprocess.run([*ASSAY, *args], capture_output=True, text=True, timeout=60, check=False, env=env)


def priced(*args: str, prices: object = PRICES) -> Command:
    """``assay ARGS`` with ``prices`` as ASSAY_PRICES (unset when ``None``), for :func:`assay_each`."""
    value = prices if prices is None or isinstance(prices, str) else json.dumps(prices)
    return Command(args, {"ASSAY_PRICES": value})


def assay_each(*commands: Command) -> list[Invoked]:
    """What each command did, all in one process."""
    return invoke_in_one_process(commands)


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[AgentServer, JudgeServer]]:
    with AgentServer(AgentBehaviour(answers=QUESTIONS, usage=True)) as agent, JudgeServer() as judge:
        yield agent, judge


def run_args(tmp_path: Path, servers: tuple[AgentServer, JudgeServer], *, output: bool = False) -> list[str]:
    agent, judge = servers
    suite = tmp_path / "suite.jsonl"
    suite.write_text(
        "".join(json.dumps({"input": q, "expected_output": a}) + "\n" for q, a in QUESTIONS.items())
    )
    config = {"base_url": judge.base_url, "model": "judge-1", "api_key_env": None, "max_attempts": 1}
    return [
        "run", str(suite), "-g", "llm-judge", "-c", json.dumps(config),
        "--target-url", f"{agent.url}/answer", "--max-attempts", "1",
        *(["-o", str(tmp_path / "out.jsonl")] if output else []),
    ]  # fmt: skip


def cost_row(stderr: str, part: str) -> list[str]:
    (line,) = [line for line in stderr.splitlines() if line.split()[:1] == [part]]
    return line.split()


def test_run_prints_the_agents_and_the_judges_cost_apart_and_keeps_the_judges_spend(
    tmp_path: Path, servers: tuple[AgentServer, JudgeServer]
) -> None:
    proc = assay(*run_args(tmp_path, servers, output=True))
    assert proc.returncode == 0, proc.stderr
    assert cost_row(proc.stderr, "agent") == ["agent", f"${AGENT_USD:.6f}", "0"]
    assert cost_row(proc.stderr, "judge") == ["judge", f"${JUDGE_USD:.6f}", "0"]
    assert cost_row(proc.stderr, "total") == ["total", f"${AGENT_USD + JUDGE_USD:.6f}", "0"]
    assert "judge-1-scripted" in proc.stderr  # the judge's tokens, by its model
    assert "preflight: 2 cases × 1 repeat: too few to detect any change" in proc.stderr
    first = read_results(tmp_path / "out.jsonl")[0]
    assert first["judge_usage"] == {"calls": [["judge-1-scripted", 100, 20]], "unknown_calls": 0}


def test_run_gates_on_cost_and_latency(tmp_path: Path, servers: tuple[AgentServer, JudgeServer]) -> None:
    args = run_args(tmp_path, servers)
    total = AGENT_USD + JUDGE_USD
    held, missed, per_case, slow = assay_each(
        priced(*args, "--max-cost-usd", str(total), "--max-latency-p95-ms", "60000"),
        priced(*args, "--max-cost-usd", str(total - Decimal("0.000001"))),
        priced(*args, "--max-cost-per-case-usd", "0.000001"),
        priced(*args, "--max-latency-p95-ms", "0.001"),
    )
    assert held.code == 0, held.stderr
    assert f"gate cost: ${total:.6f}, at most ${total:.6f}: held" in held.stderr
    assert missed.code == 1, missed.stderr
    assert "gate cost:" in missed.stderr
    assert "MISSED" in missed.stderr
    assert per_case.code == 1
    assert slow.code == 1
    assert "gate latency p95:" in slow.stderr


def test_an_unknown_cost_holds_no_gate(tmp_path: Path, servers: tuple[AgentServer, JudgeServer]) -> None:
    args = run_args(tmp_path, servers)
    unpriced, judge_unpriced = assay_each(
        priced(*args, "--max-cost-usd", "1000", prices=None),
        priced(*args, "--max-cost-usd", "1000", prices={USAGE_MODEL: PRICES[USAGE_MODEL]}),
    )
    assert unpriced.code == 1, unpriced.stderr
    assert "cost: unknown (no price table" in unpriced.stderr
    assert "an unknown cost holds no gate" in unpriced.stderr
    assert judge_unpriced.code == 1
    assert "2 cases of unknown cost" in judge_unpriced.stderr
    assert cost_row(judge_unpriced.stderr, "judge") == ["judge", "unknown", "2"]


def test_bad_prices_and_amounts_are_usage_errors(
    tmp_path: Path, servers: tuple[AgentServer, JudgeServer]
) -> None:
    args = run_args(tmp_path, servers)
    not_json, negative, lots = assay_each(
        priced(*args, prices="{not json"),
        priced(*args, prices={"m": {"input_per_million": -1, "output_per_million": 0}}),
        priced(*args, "--max-cost-usd", "lots"),
    )
    assert not_json.code == 2
    assert negative.code == 2
    assert "ASSAY_PRICES is not a price table" in negative.stderr
    assert lots.code == 2


def test_eval_reads_prices_and_cost_gates_from_its_file(
    tmp_path: Path, servers: tuple[AgentServer, JudgeServer]
) -> None:
    agent, judge = servers
    (tmp_path / "suite.jsonl").write_text(
        "".join(json.dumps({"input": q, "expected_output": a}) + "\n" for q, a in QUESTIONS.items())
    )
    total = AGENT_USD + JUDGE_USD

    def eval_file(max_cost: Decimal, name: str) -> Path:
        path = tmp_path / name
        path.write_text(
            "suites: [suite.jsonl]\n"
            f"target: {{type: http, url: '{agent.url}/answer', max_attempts: 1}}\n"
            "grader:\n  id: llm-judge\n"
            f"  config: {{base_url: '{judge.base_url}', model: judge-1, api_key_env: null}}\n"
            f"prices:\n  {USAGE_MODEL}: {{input_per_million: 2, output_per_million: 8}}\n"
            "  judge-1-scripted: {input_per_million: 0.15, output_per_million: 0.6}\n"
            f"gates:\n  max_cost_usd: {max_cost}\n  max_latency_p95_ms: 60000\n"
        )
        return path

    held, missed = assay_each(
        priced("eval", str(eval_file(total, "assay.yaml")), prices=None),
        priced("eval", str(eval_file(total / 2, "stricter.yaml")), prices=None),
    )
    assert held.code == 0, held.stderr
    assert f"gate cost: ${total:.6f}, at most ${total:.6f}: held" in held.stderr
    assert "gate latency p95:" in held.stderr
    assert missed.code == 1, missed.stderr
    assert "1 of 2 gates missed" in missed.stderr
