"""Benchmark: ms per grade() call of fuzzy and overlap on long texts, the costs their size caps bound.

Run: ``.venv/bin/python bench/long_texts.py [--mib 1] [--repeats 3]``. Each text is about ``--mib`` MiB (an
answer at ``ASSAY_MAX_ANSWER_BYTES``, 1 MiB by default); prints the median of the repeats and, beside it,
``str.split()`` of the same two texts: the floor for anything that reads every word.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from assay.graders import FuzzyGrader, GraderInterface, OverlapGrader

MIB = 1024 * 1024


def texts(size: int, rng: random.Random) -> dict[str, tuple[str, str]]:
    """(answer, expected) pairs of about ``size`` characters: words, an unspaced script, worst cases."""
    vocabulary = [f"w{n}" for n in range(5_000)]
    words = " ".join(rng.choice(vocabulary) for _ in range(size // 5))[:size]
    cjk = "".join(chr(0x4E00 + rng.randrange(20_000)) for _ in range(size // 3))
    numbers = " ".join(f"{rng.randrange(-10_000, 10_000) / 10:,}" for _ in range(size // 8))[:size]
    distinct = " ".join(f"é{n}," for n in range(size // 8))[:size]  # every word new, each with punctuation
    return {
        "words (shared vocabulary)": (words, words[size // 2 :] + words[: size // 2]),
        "Chinese (one token a character)": (cjk, cjk[::-1]),
        "signed decimals": (numbers, numbers[::-1]),
        "distinct non-ASCII words": (distinct, distinct),
    }


def split_both(answer: str, expected: str) -> object:
    """What reading every word of both texts costs at least."""
    return answer.split(), expected.split()


def median_ms(call: Callable[[str, str], object], answer: str, expected: str, repeats: int) -> float:
    """Median wall milliseconds of ``call(answer, expected)`` over ``repeats`` runs."""
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        call(answer, expected)
        runs.append((time.perf_counter() - start) * 1e3)
    return statistics.median(runs)


def main() -> None:
    """Parse arguments, time every grader on every pair, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mib", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    graders: list[GraderInterface] = [
        FuzzyGrader(config={"method": "levenshtein"}),
        FuzzyGrader(config={"method": "token_set"}),
        OverlapGrader(config={"metric": "f1"}),
        OverlapGrader(config={"metric": "rouge_l"}),
    ]
    print(f"texts of ~{args.mib:g} MiB a side, median of {args.repeats}")
    for name, (answer, expected) in texts(int(args.mib * MIB), random.Random(20261123)).items():
        floor = median_ms(split_both, answer, expected, args.repeats)
        print(f"  {name}: str.split() of both {floor:7.1f} ms")
        for grader in graders:
            label = f"{grader.grader_id} {next(iter(grader.config.values()))}"
            result = grader.grade(answer, expected)
            ms = median_ms(grader.grade, answer, expected, args.repeats)
            cut = " (cut)" if result["details"].get("truncated") else ""
            print(f"    {label:<22} {ms:8.1f} ms  score {result['score']:.3f}{cut}")


if __name__ == "__main__":
    main()
