"""Start-up of the ``assay`` command, held to a measured import budget.

Each case runs in a fresh interpreter and measures what the command imports beyond the interpreter's own
start-up (the floor: whatever ``sys.modules`` holds before the command is imported): the number of modules
and the bytes of Python source they were loaded from. Both are what import time is made of (a module found,
read and executed; a larger one takes longer) and, unlike a clock, they are the same on a loaded machine as
on a quiet one, so the budget cannot flake. The budgets are the figures measured when they were set
(2026-11-26, Python 3.11, the dev extra's versions) plus about a third of headroom: a new dependency
of a few modules fits; a framework on the path (a web or database stack, pydantic, an event loop, every
grader instead of one) does not. Times themselves are measured by ``bench/startup.py``.

When a budget is exceeded, the message lists the packages loaded; ``python -X importtime -m assay.cli ...``
says what each costs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.factories import make_suite
from tests.support.results import read_results

_PROBE = """
import json, os, sys
floor = set(sys.modules)
what, argv = sys.argv[1], json.loads(sys.argv[2])
sys.argv = ["assay", *argv]
try:
    if what == "import":
        import assay.cli.main
    elif what == "grader":
        from assay.services.grader_service import GraderService
        GraderService().get("true-false")
    elif what == "serve":  # what `assay serve` builds and starts (uvicorn aside), on the database argv[0]
        import asyncio
        from assay.api.app import create_app
        from assay.config import Settings
        app = create_app(Settings(database_url=argv[0], api_key=None))
        async def start_and_stop():
            async with app.router.lifespan_context(app):
                pass
        asyncio.run(start_and_stop())
    else:
        from assay.cli.main import main
        main()
except SystemExit:
    pass
finally:
    loaded = sorted(set(sys.modules) - floor)
    source = 0
    for name in loaded:
        origin = getattr(getattr(sys.modules[name], "__spec__", None), "origin", None)
        if origin and origin.endswith(".py") and os.path.isfile(origin):
            source += os.path.getsize(origin)
    print(json.dumps({"modules": loaded, "source_bytes": source}), file=sys.stderr)
"""


@dataclass(frozen=True)
class Budget:
    """At most ``modules`` modules imported, from at most ``source_kb`` KB of Python source."""

    modules: int
    source_kb: int


@dataclass(frozen=True)
class Cost:
    modules: list[str]
    source_bytes: int

    def packages(self) -> list[str]:
        return sorted({name.split(".")[0] for name in self.modules})


def measure(what: str, *argv: str, cwd: Path | None = None) -> Cost:
    """What a fresh process imports to do ``what`` (``import``, ``grader``, ``serve`` the app on the
    database ``argv[0]``, or ``run`` the CLI with ``argv``), beyond the interpreter's own start-up."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, what, json.dumps(argv)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
    )
    figures = json.loads(done.stderr.strip().splitlines()[-1])
    return Cost(figures["modules"], figures["source_bytes"])


def without(cost: Cost, *packages: str) -> None:
    """None of ``packages`` was imported."""
    loaded = set(cost.packages()) & set(packages)
    assert not loaded, f"loaded {sorted(loaded)}, which this path does not need"


def within(cost: Cost, budget: Budget) -> None:
    kb = cost.source_bytes // 1024
    said = f"{len(cost.modules)} modules from {kb} KB of source, over {budget}; packages: {cost.packages()}"
    assert len(cost.modules) <= budget.modules, said
    assert kb <= budget.source_kb, said


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Path, Path]:
    """A one-case suite and its recorded answer."""
    suite = tmp_path / "suite.jsonl"
    suite.write_text('{"input": "Is 1 odd?", "expected_output": "true"}\n')
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"agent_response": "yes"}\n')
    return suite, answers


# measured 2026-11-26: 51 modules / 1,104 KB
def test_importing_the_cli_fits_its_budget() -> None:
    within(measure("import"), Budget(modules=70, source_kb=1_450))


# measured 2026-11-26: 39 modules / 637 KB (every grader: 250 modules / 3,000 KB)
def test_one_grader_asked_for_fits_the_budget_of_one() -> None:
    cost = measure("grader")
    within(cost, Budget(modules=55, source_kb=850))
    assert "assay.graders.builtin.true_false" in cost.modules  # it was loaded: the budget holds what it costs


# measured 2026-11-26: 90 modules / 1,639 KB
def test_help_fits_its_budget() -> None:
    within(measure("run", "--help"), Budget(modules=120, source_kb=2_150))


# measured 2026-11-26: 142 modules / 2,343 KB
def test_grading_one_answer_fits_its_budget() -> None:
    cost = measure("run", "grade", "-g", "true-false", "-e", "true", "-r", "yes")
    within(cost, Budget(modules=185, source_kb=3_050))
    assert "assay.graders.builtin.true_false" in cost.modules


# measured 2026-11-26: 118 modules / 1,812 KB (pydantic alone would add 51 modules / 1,130 KB)
def test_a_recorded_run_fits_its_budget(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    suite, answers = recorded
    output = tmp_path / "results.jsonl"
    cost = measure(
        "run", "run", str(suite), "-g", "true-false", "--responses", str(answers), "-o", str(output)
    )
    within(cost, Budget(modules=155, source_kb=2_400))
    assert read_results(output)[0]["passed"] is True  # it ran, and graded the one case


# measured 2026-11-27: 721 modules / 13,971 KB (before issue 22's start-up work: 1,088 / 18,659, with Alembic,
# aiohttp, PyYAML and every built-in grader)
def test_starting_the_server_fits_its_budget(tmp_path: Path) -> None:
    from assay.storage.database import create_db_engine, migrate

    url = f"sqlite:///{tmp_path / 'assay.db'}"
    engine = create_db_engine(url)
    migrate(engine)  # a start on a current schema, as every start but the first
    engine.dispose()
    cost = measure("serve", url)
    within(cost, Budget(modules=950, source_kb=18_000))
    assert "assay.api.evaluations" in cost.modules  # the app was built
    # Migration tooling, the judges' HTTP client, the eval-file parser and the graders wait for their use.
    without(cost, "alembic", "aiohttp", "yaml", "rapidfuzz", "jsonschema", "scipy")


# measured 2026-11-27: 384 modules / 5,769 KB (the preflight with numpy and scipy.special: 626 / 10,322;
# with scipy.stats: 1,053 / 18,689)
def test_an_agents_eval_fits_its_budget(tmp_path: Path) -> None:
    (tmp_path / "assay.yaml").write_text(
        'suites: [suite.jsonl]\ntarget: {type: python, callable: "agent:answer"}\ngrader: {id: true-false}\n'
    )
    (tmp_path / "suite.jsonl").write_text('{"input": "Is 1 odd?", "expected_output": "true"}\n')
    (tmp_path / "agent.py").write_text('def answer(text):\n    return "yes"\n')
    cost = measure("run", "eval", cwd=tmp_path)
    within(cost, Budget(modules=510, source_kb=7_700))
    assert "assay.services.figures.power" in cost.modules  # the preflight's line was computed
    # A suite too small to detect any change says so without numpy or scipy (the power at the largest change).
    without(cost, "sqlalchemy", "fastapi", "aiohttp", "numpy", "scipy")


def test_a_second_app_builds_no_route_and_keeps_a_state_of_its_own(tmp_path: Path) -> None:
    """Every app serves the routes built when their modules were imported, so a second app in a process (the
    API tests make thousands) builds none; its state, database and lifespan are still its own."""
    from fastapi.routing import APIRoute
    from fastapi.testclient import TestClient

    from assay.api.app import create_app
    from assay.config import Settings
    from assay.storage.database import create_db_engine, migrate

    engine = create_db_engine(f"sqlite:///{tmp_path / 'a.db'}")
    migrate(engine)
    engine.dispose()
    shutil.copyfile(tmp_path / "a.db", tmp_path / "b.db")
    first, second = (
        create_app(Settings(database_url=f"sqlite:///{tmp_path / name}", api_key=None))
        for name in ("a.db", "b.db")
    )
    routes = [route for route in first.routes if isinstance(route, APIRoute)]
    assert len(routes) > 30
    assert [id(route) for route in routes] == [
        id(route) for route in second.routes if isinstance(route, APIRoute)
    ]
    with TestClient(first) as one, TestClient(second) as other:
        assert make_suite(one)["name"] == "bools"
        assert one.get("/api/suites").json()["data"]["total"] == 1
        assert other.get("/api/suites").json()["data"]["total"] == 0  # the first app's database is not its
        assert first.state.engine is not second.state.engine
