"""Benchmark: µs per grade() call for every registered grader, rows/s of ``assay grade-file``, and the
semantic grader's embeddings per second.

Run: ``.venv/bin/python bench/graders.py [--cases 200000] [--repeats 5] [--only ID ...]``. Each grader is
timed on its own realistic pairs (``bench/grader_workloads.py``), side by side in one run with a bare
Python loop doing the same work (passes in turns; the ratio is the median of each turn's), so the ratio is
measured, not remembered. A grader that is unavailable here (an optional extra not installed) is listed
with its reason.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson

from assay.graders import why_unavailable
from assay.graders.semantic import embedding
from assay.services.grader_service import GraderService

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grader_workloads import WORKLOADS, Grade, Workload, boolean_pairs, semantic_pairs


def time_pass(grade: Callable[[str, str], object], cases: Sequence[tuple[str, str]]) -> float:
    """µs of CPU per call of one pass through all cases: the process's CPU time, not the wall clock, which
    also counts the time other processes held the CPU (most of it on a loaded machine)."""
    start = time.process_time()
    for response, expected in cases:
        grade(response, expected)
    return (time.process_time() - start) / len(cases) * 1e6


def time_calls(
    grade: Callable[[str, str], object],
    cases: Sequence[tuple[str, str]],
    repeats: int,
    before_pass: Callable[[], None] | None = None,
) -> float:
    """Median µs per call over ``repeats`` passes through all cases (``before_pass`` run before each)."""
    runs = []
    for _ in range(repeats):
        if before_pass is not None:
            before_pass()
        runs.append(time_pass(grade, cases))
    return statistics.median(runs)


def time_side_by_side(
    grade: Callable[[str, str], object], bare: Grade, cases: Sequence[tuple[str, str]], repeats: int
) -> tuple[float, float, float]:
    """Median µs per call of the grader and of the bare loop, and the median of their ratios, from passes
    taken in turns: on a machine other work loads, the two passes of a turn see about the same load."""
    turns = [(time_pass(grade, cases), time_pass(bare, cases)) for _ in range(repeats)]
    return (
        statistics.median(ours for ours, _ in turns),
        statistics.median(theirs for _, theirs in turns),
        statistics.median(ours / theirs for ours, theirs in turns),
    )


def verdicts_differing(grade: Grade, bare: Grade, cases: Sequence[tuple[str, str]]) -> list[str]:
    """The distinct pairs on which the bare loop's verdict (``match_status``) is not the grader's: a bare
    loop doing other work than the grader is no floor for it."""
    differing = []
    for response, expected in dict.fromkeys(cases):
        ours = grade(response, expected)["details"]["match_status"]
        theirs = bare(response, expected)["details"]["match_status"]
        if ours != theirs:
            differing.append(f"{response!r} vs {expected!r}: grader {ours}, bare loop {theirs}")
    return differing


def time_grade_file(cases: Sequence[tuple[str, str]], repeats: int) -> tuple[float, float]:
    """Median wall seconds and rows/s of the ``assay grade-file`` process on a JSONL file of ``cases``."""
    with tempfile.TemporaryDirectory() as folder:
        source, output = Path(folder, "answers.jsonl"), Path(folder, "results.jsonl")
        with source.open("wb") as stream:
            for index, (response, expected) in enumerate(cases):
                row = {"id": index, "agent_response": response, "expected_output": expected}
                stream.write(orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE))
        command = [
            sys.executable,
            "-m",
            "assay.cli",
            "grade-file",
            str(source),
            "-g",
            "true-false",
            "-o",
            str(output),
            "--min-pass-rate",
            "0",  # measured, not gated: most rows fail on purpose
        ]
        walls = []
        for _ in range(repeats):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            walls.append(time.perf_counter() - start)
    wall = statistics.median(walls)
    return wall, len(cases) / wall


def time_embeddings(count: int, repeats: int) -> None:
    """Print the semantic grader's model load time and cold embeddings/s on one thread and on two."""
    reason = embedding.unavailable_reason()
    if reason is not None:
        print(f"  semantic embeddings: unavailable: {reason}")
        return
    start = time.perf_counter()
    embedding._Model().get()  # a fresh load: both files' sha256, the tokenizer, the ONNX session
    load = time.perf_counter() - start
    texts = [text for pair in semantic_pairs(count // 2 + 1, random.Random(20261124)) for text in pair][
        :count
    ]
    embedding.embed(texts[0])  # the shared model, loaded outside the timing
    rates, cpu = [], []
    for threads in (1, 2):
        walls, cpus = [], []
        for _ in range(repeats):
            embedding.clear_cache()
            begin, begin_cpu = time.perf_counter(), time.process_time()
            with ThreadPoolExecutor(max_workers=threads) as pool:
                list(pool.map(embedding.embed, texts))
            walls.append(time.perf_counter() - begin)
            cpus.append(time.process_time() - begin_cpu)
        rates.append(count / statistics.median(walls))
        cpu.append(statistics.median(cpus) / count * 1e3)
    # CPU time per embedding (all threads) hardly moves with the machine's load, unlike the rates.
    print(
        f"  semantic embeddings ({embedding.MODEL_ID}, {count:,} texts of {_mean_tokens(texts):.0f} tokens): "
        f"{rates[0]:,.0f}/s on 1 thread, {rates[1]:,.0f}/s on 2 "
        f"(CPU {cpu[0]:.1f} ms and {cpu[1]:.1f} ms each); model load {load:.2f} s"
    )


def _mean_tokens(texts: Sequence[str]) -> float:
    tokenizer, _ = embedding._Model().get()
    return statistics.mean(len(tokenizer.encode(text).ids) for text in texts)


def main() -> None:
    """Parse arguments, run every measurement, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=None, help="grader ids to time (default: all)")
    parser.add_argument("--no-grade-file", action="store_true", help="skip the whole-process figure")
    args = parser.parse_args()
    service = GraderService()
    print(
        f"{args.cases:,} pairs per grader, median of {args.repeats} passes, Python {sys.version.split()[0]}"
    )
    print(f"  {'grader':<14} {'µs/call':>8} {'bare loop':>10} {'ratio':>6}  {'verdicts differing':>18}")
    disagreements: list[str] = []
    for grader in service.list():
        if args.only and grader.grader_id not in args.only:
            continue
        reason = why_unavailable(grader)
        if reason is not None:
            print(f"  {grader.grader_id:<14} unavailable: {reason}")
            continue
        for workload in WORKLOADS.get(grader.grader_id, (Workload(grader.grader_id, boolean_pairs),)):
            name = f"{grader.grader_id}[{workload.label}]" if workload.label else grader.grader_id
            count = min(args.cases, workload.max_cases or args.cases)
            pairs = workload.make_pairs(count, random.Random(20261123))
            built = service.build(grader.grader_id, workload.config)
            built.grade(*pairs[0])  # a grader that loads something on first use does it outside the timing
            if workload.bare is None:
                micros = time_calls(built.grade, pairs, args.repeats, workload.before_pass)
                note = f"  ({count:,} pairs)" if count < args.cases else ""
                print(f"  {name:<14} {micros:8.3f} {'-':>10} {'-':>6}{note}")
                continue
            bare = workload.bare()
            differing = verdicts_differing(built.grade, bare, pairs)
            disagreements += [f"  {name}: {line}" for line in differing[:5]]
            micros, bare_micros, ratio = time_side_by_side(built.grade, bare, pairs, args.repeats)
            print(f"  {name:<14} {micros:8.3f} {bare_micros:10.3f} {ratio:5.2f}×  {len(differing):>18}")
    if disagreements:
        print("The bare loop is not doing the grader's work on these distinct pairs (first five per grader):")
        print("\n".join(disagreements))
    if not args.only or "semantic" in args.only:
        time_embeddings(min(args.cases, 500), args.repeats)
    if not args.no_grade_file:
        cases = boolean_pairs(args.cases, random.Random(20261122))
        wall, rate = time_grade_file(cases, max(1, args.repeats // 2 + 1))
        print(f"  assay grade-file (whole process, true-false)  {wall:6.2f} s  = {rate:,.0f} rows/s")


if __name__ == "__main__":
    main()
