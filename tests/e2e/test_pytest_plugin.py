"""The pytest plugin on examples/pytest, in a pytest of its own (a subprocess): it passes while the gate
holds (the failed cases reported xfailed), fails when the gate is missed (each failed case and the gate
failed), writes each run's results file with --assay-output and stores it on a real `assay serve` with
--assay-server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from collections import Counter
from importlib.metadata import entry_points
from pathlib import Path

from tests.support.assay_process import AssayProcess
from tests.support.results import read_results

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples"
KEY = "plugin-test-key"
PYTEST_TIMEOUT_S = 300


def _examples(tmp_path: Path, *, gate: str = "0.6", eval_gate: str = "0.7") -> Path:
    """A copy of examples/ (the suites, the agent, the eval file and the pytest example), its first test's
    gate and the eval file's overall gate set."""
    copy = tmp_path / "examples"
    (copy / "pytest").mkdir(parents=True)
    for name in ("agent.py", "capitals.jsonl", "arithmetic.csv"):
        shutil.copy(EXAMPLES / name, copy / name)
    eval_file = (EXAMPLES / "assay.yaml").read_text(encoding="utf-8")
    assert "min_pass_rate: 0.7 " in eval_file
    (copy / "assay.yaml").write_text(eval_file.replace("min_pass_rate: 0.7 ", f"min_pass_rate: {eval_gate} "))
    test = (EXAMPLES / "pytest" / "test_agent.py").read_text(encoding="utf-8")
    assert "min_pass_rate=0.6)" in test
    (copy / "pytest" / "test_agent.py").write_text(
        test.replace("min_pass_rate=0.6)", f"min_pass_rate={gate})")
    )
    return copy


def _installed() -> bool:
    """Whether pytest loads the plugin by itself (Assay installed with its entry point)."""
    return any(point.value == "assay.pytest_plugin" for point in entry_points(group="pytest11"))


def _pytest(
    folder: Path, *args: str, env: dict[str, str] | None = None, autoload: bool = False
) -> subprocess.CompletedProcess[str]:
    """pytest on the copy's example. Only the plugin is loaded, named, unless ``autoload``: pytest then loads
    every installed plugin, as a user's does (xdist, hypothesis, schemathesis...: a third of the session's
    CPU); one scenario does, so that the entry point is seen to load the plugin by itself."""
    if autoload and _installed():
        load: tuple[str, ...] = ()  # named too, it would be registered twice
        plugins = {}
    else:
        load = ("-p", "assay.pytest_plugin")
        plugins = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", *load, "-p", "no:cacheprovider", "-rfx",
         "-W", "ignore::DeprecationWarning", str(folder / "pytest"), *args],
        cwd=folder, env={**os.environ, "COLUMNS": "400", **plugins, **(env or {})}, capture_output=True,
        text=True, timeout=PYTEST_TIMEOUT_S, check=False,
    )  # fmt: skip


def test_the_plugin_is_pytests_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {"assay": "assay.pytest_plugin"}


def test_the_example_passes_while_its_gate_holds_and_its_runs_are_stored(tmp_path: Path) -> None:
    # One session both writes each run's results file and stores the runs on a server.
    (tmp_path / "server").mkdir()
    with AssayProcess(tmp_path / "server", env={"ASSAY_API_KEY": KEY}) as server:
        done = _pytest(
            _examples(tmp_path), "--assay-output", str(tmp_path / "out"), "--assay-server", server.url,
            env={"ASSAY_API_KEY": KEY}, autoload=True,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        listed = server.client.get("/api/evaluations", headers={"authorization": f"Bearer {KEY}"}).json()
        evaluations = listed["data"]["evaluations"]
    assert "21 passed, 4 xfailed" in done.stdout
    assert "case #3 (key it-rome) - expected 'true', got 'oui' (invalid_response" in done.stdout
    assert "within the gate: pass rate 66.7% (4/6), gate 60.0% held" in done.stdout
    files = sorted((tmp_path / "out").iterdir())
    names = [path.name for path in files]
    assert names == [
        "pytest_test_agent.py_test_capitals.jsonl",
        "pytest_test_agent.py_test_capitals_in_every_language.jsonl",
        "pytest_test_agent.py_test_the_examples_eval.arithmetic.jsonl",
        "pytest_test_agent.py_test_the_examples_eval.capitals.jsonl",
    ], names
    first, second, numbers, capitals = files
    assert [result["passed"] for result in read_results(first)] == [True, True, False, True, False, True]
    assert all(result["passed"] for result in read_results(second))
    assert all(result["passed"] for result in read_results(numbers))  # "1024" read by the rule's numeric
    assert [result["passed"] for result in read_results(capitals)] == [True, True, False, True, False, True]

    assert sorted(evaluation["summary"]["passed"] for evaluation in evaluations) == [4, 4, 4, 6]
    by_suite = Counter(evaluation["suite_id"] for evaluation in evaluations)
    # The two capitals tests share one suite (matched by content); the eval file's capitals grade by its
    # rules, so theirs is another, and its arithmetic a third.
    assert sorted(by_suite.values()) == [1, 1, 2]


def test_the_example_fails_when_its_gate_is_missed(tmp_path: Path) -> None:
    done = _pytest(_examples(tmp_path, gate="0.9"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "3 failed, 20 passed, 2 xfailed" in done.stdout
    assert (
        "FAILED pytest/test_agent.py::test_capitals::gate - pass rate 66.7% (4/6), gate 90.0% missed"
        in done.stdout
    )
    assert (
        "FAILED pytest/test_agent.py::test_capitals::case #5 (key jp-tokyo) - expected 'true', got 'sí'"
        in done.stdout
    )
    assert "test_capitals_in_every_language::gate" not in done.stdout  # its gate held: nothing of it failed


def test_a_declaration_without_a_grader_is_a_collection_error(tmp_path: Path) -> None:
    folder = _examples(tmp_path)
    test = folder / "pytest" / "test_agent.py"
    test.write_text(
        test.read_text(encoding="utf-8").replace('grader="true-false", min_pass_rate', "min_pass_rate")
    )
    done = _pytest(folder)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "@pytest.mark.assay: " in done.stdout
    assert "grader" in done.stdout


def test_a_missing_suite_file_is_a_collection_error(tmp_path: Path) -> None:
    folder = _examples(tmp_path)
    (folder / "capitals.jsonl").unlink()
    done = _pytest(folder)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "@pytest.mark.assay: cannot read" in done.stdout
    assert "Traceback" not in done.stdout


def _only_the_eval(folder: Path) -> None:
    """Leave the pytest example only its eval-file test."""
    test = folder / "pytest" / "test_agent.py"
    text = test.read_text(encoding="utf-8")
    test.write_text(
        text[: text.index("@pytest.mark.assay(suite=")] + text[text.index("@pytest.mark.assay(eval_file") :]
    )


def test_an_eval_file_passes_while_its_gates_hold(tmp_path: Path) -> None:
    folder = _examples(tmp_path)
    _only_the_eval(folder)
    done = _pytest(folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "9 passed, 2 xfailed" in done.stdout  # 8 cases and the gate; "oui" and "sí" within the gates
    assert (
        "XFAIL pytest/test_agent.py::test_the_examples_eval::capitals case #5 (key jp-tokyo) - expected "
        "'true', got 'sí'" in done.stdout
    )
    assert "within the gate: gate pass rate: 8/10 passed (80.00%), needs 70.00%: held; gate lang=en" in (
        done.stdout
    )


def test_an_eval_file_fails_when_one_of_its_gates_is_missed(tmp_path: Path) -> None:
    folder = _examples(tmp_path, eval_gate="0.9")
    _only_the_eval(folder)
    done = _pytest(folder)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "3 failed, 8 passed" in done.stdout
    assert (
        "FAILED pytest/test_agent.py::test_the_examples_eval::gate - gate pass rate: 8/10 passed (80.00%), "
        "needs 90.00%: MISSED" in done.stdout
    )
    assert "gate lang=en" not in done.stdout.split("::gate - ", 1)[1].splitlines()[0]  # only what was missed
    assert (
        "FAILED pytest/test_agent.py::test_the_examples_eval::capitals case #3 (key it-rome)" in done.stdout
    )


def test_an_eval_file_beside_a_suite_or_a_grader_is_a_collection_error(tmp_path: Path) -> None:
    folder = _examples(tmp_path)
    _only_the_eval(folder)
    test = folder / "pytest" / "test_agent.py"
    test.write_text(
        test.read_text(encoding="utf-8").replace(
            'eval_file="../assay.yaml"', 'eval_file="../assay.yaml", grader="x"'
        )
    )
    done = _pytest(folder)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "eval_file says the suites, grading and gates; drop grader" in done.stdout
    (folder / "assay.yaml").write_text(
        "suites: [capitals.jsonl]\ntarget: {type: python, callable: a:b}\nconcurency: 2\n"
    )
    test.write_text(test.read_text(encoding="utf-8").replace(', grader="x"', ""))
    done = _pytest(folder)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "assay.yaml line 3: unknown key 'concurency' (did you mean 'concurrency'?)" in done.stdout
    assert "Traceback" not in done.stdout
