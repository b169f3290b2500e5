"""Benchmark: start-up of the ``assay`` command, whole processes beside a standard-library floor.

Run: ``.venv/bin/python bench/startup.py [--repeats 15] [--cases 300]``.

Times, as whole processes (start to exit, wall clock), run in turn so that each round meets the same load:

* ``python -c pass``: the interpreter alone;
* ``floor``: ``bench/run_floor.py``, which reads the same suite and answers, grades them by the true-false
  rules and writes one SQLite transaction, with the standard library only;
* ``import assay.cli.main``: the import the ``assay`` script makes before anything else (also timed inside
  the process, without the interpreter's own start-up);
* ``assay --help``, ``assay grade -g true-false -e true -r yes`` and ``assay run`` over N recorded answers
  (``-o`` a JSONL file).

Prints medians and each one's ratio to the floor's (target: ``assay run`` ≤ 4x). Bytecode is written and
used as an installed package has it (``PYTHONDONTWRITEBYTECODE`` is dropped); a first round warms it up.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_SCRIPT = Path(sys.executable).with_name("assay")
ASSAY = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-m", "assay.cli"]
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


def environment() -> dict[str, str]:
    """This tree's ``src`` first on the path, bytecode cached as in an installed package."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    env.pop("ASSAY_DATABASE_URL", None)
    return env


def timed(command: list[str], env: dict[str, str], *, ok: set[int]) -> tuple[float, str]:
    """Wall seconds of one process run and its stdout; its exit code must be in ``ok``."""
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in ok:
        raise RuntimeError(f"{command} exited {done.returncode}: {done.stderr[-2000:]}")
    return elapsed, done.stdout


def main(argv: list[str] | None = None) -> None:
    """Time every command in turn, ``--repeats`` rounds; print medians and ratios to the floor."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--cases", type=int, default=300)
    args = parser.parse_args(argv)
    env = environment()
    with tempfile.TemporaryDirectory(prefix="assay-bench-startup-") as name:
        directory = Path(name)
        suite, responses = write_suite(directory, args.cases)
        files = [str(suite), str(responses), str(directory / "floor.sqlite")]
        run = [*ASSAY, "run", str(suite), "-g", "true-false", "--responses", str(responses)]
        commands: dict[str, tuple[list[str], set[int]]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], {0}),
            "floor": ([sys.executable, str(ROOT / "bench" / "run_floor.py"), *files], {0}),
            "import assay.cli.main": ([sys.executable, "-c", IMPORT_TIMER], {0}),
            "assay --help": ([*ASSAY, "--help"], {0}),
            "assay grade": ([*ASSAY, "grade", "-g", "true-false", "-e", "true", "-r", "yes"], {0}),
            f"assay run ({args.cases})": (
                [*run, "-o", str(directory / "out.jsonl"), "--min-pass-rate", "0"],
                {0},
            ),
        }
        walls: dict[str, list[float]] = {label: [] for label in commands}
        inside: list[float] = []
        load_before = os.getloadavg()
        for round_ in range(args.repeats + 1):  # round 0 warms the bytecode and the page cache up
            for label, (command, ok) in commands.items():
                elapsed, stdout = timed(command, env, ok=ok)
                if round_:
                    walls[label].append(elapsed)
                    if label == "import assay.cli.main":
                        inside.append(float(stdout.strip()))
        load_after = os.getloadavg()
        lines = (directory / "out.jsonl").read_text().count("\n")
        assert lines == args.cases, f"assay run wrote {lines} results, not {args.cases}"

    floor = statistics.median(walls["floor"])
    cpus = len(os.sched_getaffinity(0))
    print(f"{cpus} CPUs; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print(f"{'command':28} {'median s':>9} {'min s':>7} {'x floor':>8}")
    for label, times in walls.items():
        median = statistics.median(times)
        print(f"{label:28} {median:9.3f} {min(times):7.3f} {median / floor:8.2f}")
    print(f"{'  (import, inside process)':28} {statistics.median(inside):9.3f} {min(inside):7.3f}")
    print(f"medians of {args.repeats} rounds, each command once a round; target: assay run <= 4x floor")


if __name__ == "__main__":
    main()
