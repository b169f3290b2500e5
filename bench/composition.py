"""Benchmark: what grader composition adds per grade() call, over calling the children directly.

Run: ``.venv/bin/python bench/composition.py [--cases 20000] [--repeats 15]``. For each tree, the leaves'
``grade()`` called in a plain loop (the floor) and the composite's ``grade()`` are timed alternately on the
same cases, and the median over the repeats is printed: µs per call for both, and the difference divided by
the number of composite nodes in the tree (the overhead per node; target ≤ 0.5 µs).

On a shared machine, where other processes' load moves these times, count instructions instead: ``--side
bare|composite --tree LABEL --calls N`` warms both sides up then makes N calls of one side and prints
nothing, for a run under ``valgrind --tool=cachegrind``; the difference of the two sides' instruction counts,
divided by N and the tree's nodes, is the overhead per node in instructions (bench/README.md).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from assay.graders import CompositeGrader, GraderInterface
from assay.services.grading.registry import GraderService

SM: dict[str, Any] = {"grader_id": "string-match"}
TF: dict[str, Any] = {"grader_id": "true-false"}
SM_OWN: dict[str, Any] = {"grader_id": "string-match", "expected_output": "yes"}


def spec(grader_id: str, children: Sequence[dict[str, Any]], **options: Any) -> dict[str, Any]:
    """A child spec of a composite over ``children``."""
    if grader_id == "not":
        return {"grader_id": "not", "config": {"grader": children[0]}}
    return {"grader_id": grader_id, "config": {"graders": list(children), **options}}


def depth(level: int) -> dict[str, Any]:
    """A full binary tree of ``level`` all/any levels (alternating), string-match and true-false leaves."""
    if level == 0:
        return TF
    kind = "all" if level % 2 else "any"
    left = depth(level - 1) if level > 1 else SM
    return spec(kind, [left, depth(level - 1)])


TREES: dict[str, dict[str, Any]] = {
    "not(sm)": spec("not", [SM]),
    "all(sm, tf)": spec("all", [SM, TF]),
    "any(sm, tf)": spec("any", [SM, TF]),
    "at-least k=1 (sm, tf)": spec("at-least", [SM, TF], k=1),
    "weighted(sm, tf)": spec("weighted", [SM, TF]),
    "all(sm, tf, sm own expected)": spec("all", [SM, TF, SM_OWN]),
    "depth 1: all(sm, tf)": depth(1),
    "depth 2: any(all, all)": depth(2),
    "depth 3: all(any(all, all), any(all, all))": depth(3),
}

ANSWERS = ["Paris", " paris ", "Rome", "yes", "no", "true", "maybe", "", "The answer is Paris."]
EXPECTED = ["paris", "true", "false", "yes"]


def make_cases(count: int, seed: int = 20261122) -> list[tuple[str, str]]:
    """Answer/expected pairs mixing matches, mismatches, unreadable and empty answers."""
    rng = random.Random(seed)
    return [(rng.choice(ANSWERS), rng.choice(EXPECTED)) for _ in range(count)]


def leaves(grader: GraderInterface, expected_from_parent: bool = True) -> list[tuple[Any, str | None]]:
    """(bound grade, own expected or None) of every leaf of the tree, in call order."""
    if not isinstance(grader, CompositeGrader):
        return [(grader.grade, None)]
    found: list[tuple[Any, str | None]] = []
    for child, child_spec in zip(grader.children, _specs(grader), strict=True):
        own = child_spec.get("expected_output")
        for call, deeper in leaves(child):
            found.append((call, deeper if deeper is not None else own))
    return found


def _specs(grader: GraderInterface) -> list[dict[str, Any]]:
    config = grader.config
    return [config["grader"]] if "grader" in config else config["graders"]


def bare(calls: list[tuple[Any, str | None]]) -> Callable[[Any, Any], Any]:
    """The leaves called one after another in a plain loop, with no combination: the floor a composite is
    measured against. (Not a list comprehension: in Python 3.11 that is a function call of its own, which
    made the floor heavier than the leaves' calls by about 0.4 µs a call and flattered every composite.)"""

    def run(response: Any, expected: Any) -> None:
        for call, own in calls:
            call(response, expected if own is None else own)

    return run


def per_call(function: Callable[[Any, Any], Any], cases: list[tuple[str, str]]) -> float:
    gc.disable()
    start = time.thread_time()
    for response, expected in cases:
        function(response, expected)
    elapsed = time.thread_time() - start
    gc.enable()
    return elapsed / len(cases) * 1e6


def composite_nodes(grader: GraderInterface) -> int:
    if not isinstance(grader, CompositeGrader):
        return 0
    return 1 + sum(composite_nodes(child) for child in grader.children)


def one_side(service: GraderService, label: str, side: str, calls: int) -> None:
    """Both sides warmed up on the same cases, then ``calls`` calls of ``side`` only."""
    tree = TREES[label]
    grader = service.build(tree["grader_id"], tree["config"])
    floor = bare(leaves(grader))
    cases = make_cases(2000)
    for response, expected in cases[:300]:
        floor(response, expected)
        grader.grade(response, expected)
    function = grader.grade if side == "composite" else floor
    for index in range(calls):
        response, expected = cases[index % len(cases)]
        function(response, expected)
    print(f"{label}: {composite_nodes(grader)} composite nodes", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--side", choices=["bare", "composite"], help="only call this side (see above)")
    parser.add_argument("--tree", choices=list(TREES), default="all(sm, tf)")
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    service = GraderService(load_plugins=False)
    if args.side is not None:
        one_side(service, args.tree, args.side, args.calls)
        return
    cases = make_cases(args.cases)
    print(f"{args.cases:,} cases, median of {args.repeats} alternating repeats; µs per grade() call")
    print(f"{'tree':44} {'nodes':>5} {'leaves':>6} {'bare':>7} {'composite':>9} {'per node':>8}")
    for label, tree in TREES.items():
        grader = service.build(tree["grader_id"], tree["config"])
        floor = bare(leaves(grader))
        nodes = composite_nodes(grader)
        bare_times, composite_times, overheads = [], [], []
        for _ in range(args.repeats):
            b = per_call(floor, cases)
            c = per_call(grader.grade, cases)
            bare_times.append(b)
            composite_times.append(c)
            overheads.append((c - b) / nodes)
        print(
            f"{label:44} {nodes:>5} {len(leaves(grader)):>6} {statistics.median(bare_times):>7.2f} "
            f"{statistics.median(composite_times):>9.2f} {statistics.median(overheads):>8.2f}"
        )


if __name__ == "__main__":
    main()
