"""Benchmark: the semantic grader's tokenizer (``assay.graders.semantic.wordpiece``) beside ``tokenizers``.

Run: ``PYTHONPATH=src .venv/bin/python bench/semantic_tokenizer.py [--texts 200] [--repeats 5]``.

For a few text lengths it prints the CPU µs of one cold ``embed`` call (its vector cache emptied: tokenizer
and model), of ``tokenizers``' ``encode`` on the same texts (the Rust tokenizer the grader used before; the
``dev`` extra installs it as the reference), and of ours, word cache warm (words seen before, as in a suite)
and cold (a fresh tokenizer per pass). The ratio is ours (cold) over the Rust tokenizer: the target is ≤ 1.2.
Each pass uses different texts of the same shape, so the vector cache never answers.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from assay.graders.semantic import embedding

Encode = Callable[[str], object]

LENGTHS = {"short (~8 tokens)": 1, "sentence (~25)": 4, "paragraph (~110)": 20, "long (truncated)": 80}
"""Text shapes: how many phrases of ``_PHRASES`` each text joins."""
_PHRASES = [
    "the capital of France is Paris",
    "water boils at 100 °C at sea level",
    "Münster and Osnabrück signed the treaty in 1648",
    "mitochondria produce most of a cell's energy",
    "the function returns the sorted list, unchanged input",
    "light takes about eight minutes from the Sun",
]


def texts_of(phrases: int, count: int, rng: random.Random) -> list[str]:
    """``count`` different texts of ``phrases`` phrases each."""
    return [
        " ".join(rng.choice(_PHRASES) for _ in range(phrases)).capitalize()
        + f" (note {rng.randrange(10**9)})."
        for _ in range(count)
    ]


def cpu_micros(call: Callable[[str], object], texts: Sequence[str], before: Callable[[], None]) -> float:
    """CPU µs per call of ``call`` over ``texts``, after ``before``."""
    before()
    start = time.process_time()
    for text in texts:
        call(text)
    return (time.process_time() - start) / len(texts) * 1e6


def main() -> None:
    """Print µs per call for each text shape."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    reason = embedding.unavailable_reason()
    if reason is not None:
        raise SystemExit(f"the semantic grader is unavailable: {reason}")
    tokenizer_file = embedding._Files.locate(embedding._model_dir()).tokenizer
    assert tokenizer_file is not None
    rust = _rust_tokenizer(tokenizer_file)
    ours = _our_tokenizer(tokenizer_file)
    embedding.embed("warm up")  # the model loads outside the timing
    rng = random.Random(20261126)
    print(f"CPU µs per call, median of {args.repeats} passes of {args.texts} texts")
    print(f"  {'texts':<18} {'embed':>8} {'rust':>7} {'ours warm':>10} {'ours cold':>10} {'ours/rust':>10}")
    for label, phrases in LENGTHS.items():
        rows: dict[str, list[float]] = {"embed": [], "rust": [], "warm": [], "cold": []}
        for _ in range(args.repeats):
            texts = texts_of(phrases, args.texts, rng)
            rows["embed"].append(cpu_micros(embedding.embed, texts, embedding.clear_cache))
            if rust is not None:
                rows["rust"].append(cpu_micros(rust, texts, lambda: None))
            if ours is not None:
                warm, fresh = ours
                rows["warm"].append(cpu_micros(warm, texts, lambda: None))
                rows["cold"].append(cpu_micros(fresh(), texts, lambda: None))
        median = {
            name: statistics.median(values) if values else float("nan") for name, values in rows.items()
        }
        print(
            f"  {label:<18} {median['embed']:8.0f} {median['rust']:7.1f} {median['warm']:10.1f} "
            f"{median['cold']:10.1f} {median['cold'] / median['rust']:9.2f}×"
        )


def _rust_tokenizer(path: Path) -> Encode | None:
    """``tokenizers``' ``encode``, set up as the grader set it up before it had its own; None without it."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        return None
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=embedding.MAX_TOKENS)
    return tokenizer.encode


def _our_tokenizer(path: Path) -> tuple[Encode, Callable[[], Encode]] | None:
    """Our ``encode`` with a shared (warm) word cache, and a maker of fresh (cold) ones; None before it
    existed."""
    try:
        from assay.graders.semantic.wordpiece import WordPiece
    except ImportError:
        return None
    return WordPiece.from_file(path, embedding.MAX_TOKENS).encode, (
        lambda: WordPiece.from_file(path, embedding.MAX_TOKENS).encode
    )


if __name__ == "__main__":
    main()
