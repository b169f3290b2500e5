"""Reading ``assay run``'s results files in tests: the header line first, then one result a line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HEADER_KEY = "assay_run"


def parse_results(data: bytes) -> list[dict[str, Any]]:
    """The results of a results file's bytes (its header, when it has one, left out)."""
    records = [json.loads(line) for line in data.splitlines() if line.strip()]
    return [record for record in records if HEADER_KEY not in record]


def read_results(path: Path) -> list[dict[str, Any]]:
    """The results of a results file."""
    return parse_results(path.read_bytes())


def read_header(path: Path) -> dict[str, Any]:
    """The header of a results file."""
    header: dict[str, Any] = json.loads(path.read_bytes().splitlines()[0])[HEADER_KEY]
    return header
