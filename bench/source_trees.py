"""The ``--src`` option the side-by-side benchmarks share: source trees to run one after the other."""

from __future__ import annotations

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def add_source_trees_option(parser: argparse.ArgumentParser, what: str = "serve") -> None:
    """``--src TREE ...`` (default: this checkout's ``src``), to ``what`` with each tree in turn."""
    parser.add_argument(
        "--src",
        nargs="*",
        type=Path,
        default=[ROOT / "src"],
        help=f"source trees to {what}, one after the other (e.g. this one and an export of main's: "
        "git archive main src | tar -x -C /tmp/main, then --src src /tmp/main/src)",
    )
