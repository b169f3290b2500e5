"""Builders of test data shared by the test tiers."""

from __future__ import annotations

import itertools
from typing import Any

_names = itertools.count(1)


def case_payload(
    index: int = 0, *, input: str | None = None, expected_output: str | None = None, **metadata: Any
) -> dict[str, Any]:
    """A case as the API takes it."""
    return {
        "input": input if input is not None else f"What is {index} + {index}?",
        "expected_output": expected_output if expected_output is not None else str(index * 2),
        "metadata": metadata,
    }


def suite_payload(name: str | None = None, *, cases: int = 3, description: str = "") -> dict[str, Any]:
    """A suite as ``POST /api/suites`` takes it, with ``cases`` numbered cases; a fresh name by default."""
    return {
        "name": name if name is not None else f"suite-{next(_names)}",
        "description": description,
        "cases": [case_payload(i) for i in range(cases)],
    }
