"""Round trips: a file from another tool imported (``assay import``), then ``assay eval`` over the imported
suite with recorded answers, gives every case the verdict an equivalent hand-written ``assay.yaml`` and suite
give it (tests/data/eval/roundtrip/<format>/: the source, ``hand.yaml`` + ``hand.jsonl``, ``imported.yaml``,
the answers). The import and the two evals of a round trip run in turn in one process
(tests/support/cli_batch.py)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli_batch import Command, invoke_in_one_process
from tests.support.results import read_results

DATA = Path(__file__).resolve().parents[2] / "data"
ROUND_TRIP = DATA / "eval" / "roundtrip"
IMPORTS = DATA / "imports"

SOURCES = {
    "promptfoo": (ROUND_TRIP / "promptfoo" / "promptfooconfig.yaml", ()),
    "openai-evals": (
        IMPORTS / "openai_data.jsonl",
        ("--eval", str(ROUND_TRIP / "openai-evals" / "openai_eval.json")),
    ),
    "inspect": (ROUND_TRIP / "inspect" / "samples.jsonl", ()),
    "inspect-lists": (IMPORTS / "inspect_samples.jsonl", ()),  # a list target: any of them is right
    "chat-jsonl": (IMPORTS / "chat.jsonl", ()),
}
"""Each round trip's file to import (its data in ROUND_TRIP/<name>), and the import's extra options."""
FORMATS = {"inspect-lists": "inspect"}
"""The format of a round trip not named after its format."""

EXPECTED_PASSES = {
    "promptfoo": [True, True, False, True, False],
    "openai-evals": [True, False, False],
    "inspect": [True, True, False],
    "inspect-lists": [True, True, False],
    "chat-jsonl": [True, False],
}
"""What the answers were written to get, case by case (so that agreeing on nothing cannot pass)."""


def verdicts(path: Path) -> list[tuple[Any, ...]]:
    """Each case's verdict in case order: passed, status, and each assertion's (names aside: the import
    names them after the source's checks)."""
    results = sorted(read_results(path), key=lambda result: result["number"])
    return [
        (
            result["passed"],
            result["match_status"],
            [child["passed"] for child in (result["details"] or {}).get("children", [])],
        )
        for result in results
    ]


@pytest.mark.parametrize("source_format", list(SOURCES))
def test_import_then_eval_gives_the_verdicts_of_the_hand_written_eval(
    source_format: str, tmp_path: Path
) -> None:
    folder = tmp_path / source_format
    shutil.copytree(ROUND_TRIP / source_format, folder)
    source, options = SOURCES[source_format]
    importing = (
        "import", str(source), "--from", FORMATS.get(source_format, source_format), *options,
        "-o", "imported.jsonl",
    )  # fmt: skip
    imported, by_import, by_hand = invoke_in_one_process(  # in turn, in one process
        [Command(importing), Command(("eval", "imported.yaml")), Command(("eval", "hand.yaml"))], cwd=folder
    )
    assert imported.code == 0, imported.stderr
    assert by_import.code == 0, by_import.stderr
    assert by_hand.code == 0, by_hand.stderr
    found = verdicts(folder / "imported-results.jsonl")
    assert found == verdicts(folder / "hand-results.jsonl")
    assert [passed for passed, _, _ in found] == EXPECTED_PASSES[source_format]
