"""Benchmark: start-up of the ``assay`` command, whole processes beside a standard-library floor.

Run: ``.venv/bin/python bench/startup.py [--repeats 15] [--cases 300]``.

Times, as whole processes (start to exit, wall clock), run in turn so that each round meets the same load:

* ``python -c pass``: the interpreter alone;
* ``floor``: ``bench/run_floor.py``, which reads the same suite and answers, grades them by the true-false
  rules and writes one SQLite transaction, with the standard library only;
* ``import assay.cli.main``: the import the ``assay`` script makes before anything else (also timed inside
  the process, without the interpreter's own start-up);
* ``assay --help``, ``assay grade -g true-false -e true -r yes`` and ``assay run`` over N recorded answers
  (``-o`` a JSONL file);
* ``assay eval`` of the same suite answered by a Python agent (a function saying "yes": the preflight's
  line, the run path of an agent), and ``assay serve`` started on an already migrated SQLite file (the
  first round migrates it), polled until ``/api/health`` answers 200 and stopped (SIGTERM): the server's
  own start-up, which every end-to-end test pays (its wall column is the time to healthy); then the same
  with a first page of suites and of evaluations asked once healthy (``listings``: the routes' first use);
* ``click+rich+asyncio``, ``click+rich`` and ``click`` alone: a click command with ``assay run``'s options,
  parsed from the same arguments, that prints a Rich table and runs an event loop (or only one of them, or
  neither), and does nothing else: what the frameworks cost.

Prints medians of wall-clock and CPU time (user + system, steadier on a loaded machine) and each one's ratio
to the floor's (target: ``assay run`` ≤ 4x). Bytecode is written and used as an installed package has it
(``PYTHONDONTWRITEBYTECODE`` is dropped); a first round warms it up. ``--src`` times other source trees
beside (e.g. ``git archive main src | tar -x -C /tmp/main``, then ``--src src /tmp/main/src``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from load import free_port, serving
from source_trees import ROOT, add_source_trees_option

_SCRIPT = Path(sys.executable).with_name("assay")
ASSAY = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-m", "assay.cli"]
CLICK = """
import sys
from pathlib import Path

import click

path = click.Path(path_type=Path)
texts = "config preset target-url openai-model python command body-template response-path openai-base-url"
numbers = {"temperature": float, "timeout": float, "max-attempts": int, "min-pass-rate": float}


def run(**options):
    if "rich" in sys.argv[1]:
        from rich.console import Console
        from rich.table import Table

        table = Table("cases", "passed")
        table.add_row("300", "200")
        Console(stderr=True, highlight=False, soft_wrap=True).print(table)
    if "asyncio" in sys.argv[1]:
        import asyncio

        asyncio.run(asyncio.sleep(0))


for name in [*texts.split(), "api-key-env", "system-prompt"]:
    run = click.option(f"--{name}")(run)
for name, kind in numbers.items():
    run = click.option(f"--{name}", type=kind)(run)
for name in ("responses", "junit"):
    run = click.option(f"--{name}", type=path)(run)
for name in ("resume", "allow-invalid-expected", "test-target"):
    run = click.option(f"--{name}", is_flag=True)(run)
run = click.option("--output", "-o", type=path)(run)
run = click.option("--header", "-H", multiple=True)(run)
run = click.option("--concurrency", "-j", type=click.IntRange(1, 1024), default=8)(run)
run = click.option("--grader", "-g", "grader_id", required=True)(run)
run = click.argument("suite_file", type=path)(click.command("run")(run))
app = click.Group(commands=[run])
app(sys.argv[2:])
"""
"""A click command with ``assay run``'s 24 options, ``argv[1]`` naming what else it does (a Rich table, an
event loop): what the CLI's frameworks cost, without Assay."""
IMPORT_TIMER = (
    "import time; started = time.perf_counter(); import assay.cli.main; print(time.perf_counter() - started)"
)


def write_suite(directory: Path, count: int) -> tuple[Path, Path]:
    """A true-false suite of ``count`` cases and a recorded answer for each (two thirds right)."""
    suite = directory / "suite.jsonl"
    suite.write_text(
        "".join(
            json.dumps({"input": f"Is {n} odd?", "expected_output": "true" if n % 2 else "false"}) + "\n"
            for n in range(count)
        )
    )
    responses = directory / "responses.jsonl"
    responses.write_text(
        "".join(json.dumps({"agent_response": "yes" if n % 3 else "no"}) + "\n" for n in range(count))
    )
    return suite, responses


def write_eval(directory: Path, suite: Path) -> Path:
    """An ``assay.yaml`` running ``suite`` against a Python agent that always says yes."""
    (directory / "agent.py").write_text('def answer(text):\n    return "yes"\n')
    config = directory / "assay.yaml"
    config.write_text(
        f"suites: [{suite.name}]\ntarget: {{type: python, callable: 'agent:answer'}}\n"
        "grader: {id: true-false}\noutputs: {results: eval-results.jsonl}\ngates: {min_pass_rate: 0}\n"
    )
    return config


def environment(src: Path) -> dict[str, str]:
    """The source tree ``src`` first on the path, bytecode cached as in an installed package."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src), env.get("PYTHONPATH")]))
    env.pop("ASSAY_DATABASE_URL", None)
    return env


@dataclass(frozen=True, slots=True)
class Timing:
    """One process run: wall seconds, CPU seconds (user + system) and what it printed."""

    wall: float
    cpu: float
    stdout: str


def timed(command: list[str], env: dict[str, str]) -> Timing:
    """One process run, which must exit 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{command} exited {done.returncode}: {done.stderr[-2000:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return Timing(elapsed, cpu, done.stdout)


SERVED_PATHS = ("/api/suites", "/api/evaluations")
"""What a server is asked once healthy in the ``listings`` line: a first page of suites and of evaluations, as
an end-to-end test's first requests (its routes' first use, beyond the health check's)."""


def timed_serve(env: dict[str, str], paths: tuple[str, ...] = ()) -> Timing:
    """``assay serve`` started on a free port, polled until healthy, asked for each of ``paths`` (each must
    answer 200), then stopped (SIGTERM): its CPU time (the poller's is this process's, not counted) and the
    wall time to healthy."""
    port = free_port()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with serving([*ASSAY, "serve", "--port", str(port)], port, env) as server:
        healthy = time.perf_counter() - started
        for path in paths:
            with urllib.request.urlopen(server.url + path, timeout=30) as answer:
                if answer.status != 200:
                    raise RuntimeError(f"GET {path} answered {answer.status}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return Timing(healthy, cpu, "")


def main(argv: list[str] | None = None) -> None:
    """Time every command in turn, ``--repeats`` rounds; print medians and ratios to the floor."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--cases", type=int, default=300)
    add_source_trees_option(parser, "time side by side")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="assay-bench-startup-") as name:
        directory = Path(name)
        suite, responses = write_suite(directory, args.cases)
        files = [str(suite), str(responses), str(directory / "floor.sqlite")]
        plain = environment(ROOT / "src")
        written: dict[str, list[Path]] = {}
        config = write_eval(directory, suite)
        commands: dict[str, Callable[[], Timing]] = {
            "python -c pass": partial(timed, [sys.executable, "-c", "pass"], plain),
            "floor": partial(timed, [sys.executable, str(ROOT / "bench" / "run_floor.py"), *files], plain),
        }
        for number, src in enumerate(args.src):
            env = environment(src)
            tag = "" if len(args.src) == 1 else f" [{'ABCDEFGH'[number]}]"
            # Each tree its own database: a tree may not read a newer tree's schema.
            served = env | {"ASSAY_DATABASE_URL": f"sqlite:///{directory / f'serve-{number}.db'}"}
            output = str(directory / f"out-{number}.jsonl")
            run = [*ASSAY, "run", str(suite), "-g", "true-false", "--responses", str(responses)]
            if number == 0:
                stand_in = ["run", str(suite), "-g", "true-false", "--responses", str(responses)]
                for does in ("rich+asyncio", "rich", "-"):
                    label = "click alone" if does == "-" else f"click+{does} alone"
                    commands[label] = partial(timed, [sys.executable, "-c", CLICK, does, *stand_in], env)
            grade = [*ASSAY, "grade", "-g", "true-false", "-e", "true", "-r", "yes"]
            run = [*run, "-o", output, "--min-pass-rate", "0"]
            commands |= {
                f"import assay.cli.main{tag}": partial(timed, [sys.executable, "-c", IMPORT_TIMER], env),
                f"assay --help{tag}": partial(timed, [*ASSAY, "--help"], env),
                f"assay grade{tag}": partial(timed, grade, env),
                f"assay run ({args.cases}){tag}": partial(timed, run, env),
                f"assay eval ({args.cases}){tag}": partial(timed, [*ASSAY, "eval", str(config)], env),
                f"assay serve, healthy, stop{tag}": partial(timed_serve, served),
                f"assay serve, healthy, listings, stop{tag}": partial(timed_serve, served, SERVED_PATHS),
            }
            written[f"assay run ({args.cases}){tag}"] = [Path(output)]
        timings: dict[str, list[Timing]] = {label: [] for label in commands}
        load_before = os.getloadavg()
        for round_ in range(args.repeats + 1):  # round 0 warms the bytecode and the page cache up
            for label, run_once in commands.items():
                for path in written.get(label, ()):
                    path.unlink(missing_ok=True)  # assay run refuses to overwrite results
                timing = run_once()
                if round_:
                    timings[label].append(timing)
        load_after = os.getloadavg()
        for number in range(len(args.src)):
            text = (directory / f"out-{number}.jsonl").read_text()
            lines = sum("assay_run" not in json.loads(line) for line in text.splitlines())  # not its header
            assert lines == args.cases, f"assay run wrote {lines} results, not {args.cases}"

    cpus = len(os.sched_getaffinity(0))
    print(f"{cpus} CPUs; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    if len(args.src) > 1:
        print("; ".join(f"[{'ABCDEFGH'[number]}] {src}" for number, src in enumerate(args.src)))
    floor_wall = statistics.median(timing.wall for timing in timings["floor"])
    floor_cpu = statistics.median(timing.cpu for timing in timings["floor"])
    width = max(map(len, timings)) + 1
    print(f"{'command':{width}} {'wall s':>7} {'min s':>7} {'x floor':>8} {'CPU s':>7} {'x floor':>8}")
    for label, runs in timings.items():
        wall = statistics.median(timing.wall for timing in runs)
        cpu = statistics.median(timing.cpu for timing in runs)
        least = min(timing.wall for timing in runs)
        ratios = f"{wall / floor_wall:8.2f} {cpu:7.3f} {cpu / floor_cpu:8.2f}"
        print(f"{label:{width}} {wall:7.3f} {least:7.3f} {ratios}")
        if label.startswith("import assay.cli.main"):
            inside = statistics.median(float(timing.stdout) for timing in runs)
            print(f"{'  (the import alone, inside)':{width}} {inside:7.3f}")
    print(
        f"medians of {args.repeats} rounds, each command once a round (wall clock, and CPU time of the "
        "process); target: assay run <= 4x floor"
    )


if __name__ == "__main__":
    main()
