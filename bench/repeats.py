"""What repeats cost per case: one ``assay run`` of 10,000 cases x 5 repeats beside five runs of 10,000.

Every reply comes from the reply cache (``--replay``, filled beforehand for each case and repeat), so no agent
is waited for and the figure is Assay's own cost per case: reading the suite, handing out the cases, the
cache lookups, grading, writing the results file, the summary (pass@k and pass^k with repeats). CPU time
(user + system) of the ``assay run`` processes, not wall time: the machine is shared, and a process waiting
for a core is not Assay's cost. Five separate runs pay five starts; both sides are shown with and without
them. Median of ``--rounds``. Target (issue 27): the repeated run within 1.1 times the five separate runs.

    .venv/bin/python bench/repeats.py [--cases 10000] [--repeats 5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from assay.targets import parse_target_spec
from assay.targets.reply_cache import CachedReply, ReplyCache, reply_key

URL = "http://127.0.0.1:9/answer"
"""Nothing listens there: ``--replay`` never calls the agent."""


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _run(folder: Path, output: str, *extra: str) -> float:
    """CPU seconds one ``assay run`` takes; fails loudly unless every case passed from the cache."""
    command = [sys.executable, "-m", "assay.cli", "run", str(folder / "suite.jsonl"), "-g", "string-match"]
    command += ["--target-url", URL, "--replay", "--cache-dir", str(folder / "cache")]
    command += ["-o", str(folder / output), *extra]
    (folder / output).unlink(missing_ok=True)
    started = _cpu()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = _cpu() - started
    if done.returncode != 0:
        raise SystemExit(f"assay run failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed


def _start(folder: Path, suite: Path) -> float:
    """CPU seconds of an ``assay run`` of one case: what every run pays to start."""
    command = [
        sys.executable,
        "-m",
        "assay.cli",
        "run",
        str(suite),
        "-g",
        "string-match",
        "--target-url",
        URL,
    ]
    command += ["--replay", "--cache-dir", str(folder / "cache")]
    started = _cpu()
    subprocess.run(command, capture_output=True, check=True)
    return _cpu() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        inputs = [f"Question {n}: is the store open on day {n % 7}?" for n in range(1, args.cases + 1)]
        lines = (json.dumps({"input": text, "expected_output": "yes"}) + "\n" for text in inputs)
        (folder / "suite.jsonl").write_text("".join(lines))
        fingerprint = parse_target_spec({"type": "http", "url": URL}).fingerprint()
        cache = ReplyCache(folder / "cache")
        for text in inputs:
            for repeat in range(args.repeats):
                cache.put(reply_key(fingerprint, text, repeat), CachedReply("yes", 12.0))
        cache.close()
        empty = folder / "empty.jsonl"
        empty.write_text(json.dumps({"input": inputs[0], "expected_output": "yes"}) + "\n")
        start = statistics.median(_start(folder, empty) for _ in range(args.rounds))
        repeated: list[float] = []
        separate: list[float] = []
        for _ in range(args.rounds):  # alternating, so both see the same machine
            repeated.append(_run(folder, "repeated.jsonl", "--repeats", str(args.repeats)))
            separate.append(sum(_run(folder, f"run{n}.jsonl") for n in range(args.repeats)))
    one, many = statistics.median(repeated), statistics.median(separate)
    total = args.cases * args.repeats
    print(
        f"{args.cases:,} cases x {args.repeats} repeats, replies from the reply cache, "
        f"CPU seconds, median of {args.rounds}"
    )
    print(f"  one run with --repeats {args.repeats}   {one:7.2f} s   {one / total * 1e6:6.1f} µs per case")
    print(f"  {args.repeats} separate runs           {many:7.2f} s   {many / total * 1e6:6.1f} µs per case")
    print(f"  ratio                       {one / many:7.2f}x  (target ≤ 1.10x)")
    net_one, net_many = one - start, many - args.repeats * start
    print(
        f"  without the starts ({start:.2f} s each): {net_one:.2f} s against {net_many:.2f} s, "
        f"ratio {net_one / net_many:.2f}x"
    )


if __name__ == "__main__":
    main()
