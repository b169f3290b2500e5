"""What a reply-cache hit costs over a recorded answer: µs per case of each target's reply, side by side.

Both answer without waiting (``reply_at_once``, as the runner asks first): a recorded target looks the case
up in memory, the cached one reads the reply cache's SQLite file (warm in the page cache, as in a rerun).
Target (issue 27): a hit within 100 µs of a recorded answer. CPU time of the process, alternating passes.

    .venv/bin/python bench/reply_cache.py [--cases 20000] [--repeats 7]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from assay.targets import Target, TargetCase, parse_target_spec
from assay.targets.cached import CachedTarget, CacheMode
from assay.targets.recorded import RecordedTarget
from assay.targets.reply_cache import CachedReply, ReplyCache, reply_key


class _Unused(Target):
    async def call(self, case: TargetCase) -> str | None:
        raise AssertionError("a hit never calls the agent")


def _pass(target: Target, cases: list[TargetCase]) -> float:
    """µs of CPU per case for one pass over ``cases``."""
    reply_at_once = target.reply_at_once
    started = time.process_time()
    for case in cases:
        reply = reply_at_once(case)
        assert reply is not None
        assert reply.error is None
    return (time.process_time() - started) / len(cases) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    cases = [
        TargetCase(n, f"Question {n}: is the store open on Sunday {n % 7}?", number=n)
        for n in range(1, args.cases + 1)
    ]
    answers = {str(case.place): f"answer {case.place}" for case in cases}
    fingerprint = parse_target_spec({"type": "http", "url": "http://agent.test/answer"}).fingerprint()
    with tempfile.TemporaryDirectory() as folder:
        cache = ReplyCache(Path(folder))
        for case in cases:
            cache.put(reply_key(fingerprint, case.input), CachedReply(answers[str(case.place)], 100.0))
        recorded = RecordedTarget(answers)
        cached = CachedTarget(_Unused(), cache, fingerprint, CacheMode.REPLAY)
        recorded_us: list[float] = []
        cached_us: list[float] = []
        for _ in range(args.repeats):
            recorded_us.append(_pass(recorded, cases))
            cached_us.append(_pass(cached, cases))
        cache.close()
    recorded_median, cached_median = statistics.median(recorded_us), statistics.median(cached_us)
    print(f"{args.cases:,} cases, median of {args.repeats} alternating passes (µs of CPU per case)")
    print(f"  recorded answer   {recorded_median:8.2f}")
    extra = cached_median - recorded_median
    print(f"  reply-cache hit   {cached_median:8.2f}   (+{extra:.2f} µs; target ≤ +100)")


if __name__ == "__main__":
    main()
