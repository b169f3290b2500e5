"""A third-party grader package, installed for a test: a real distribution on ``sys.path`` whose entry points
(group ``assay.graders``) :mod:`importlib.metadata` discovers, as it would a ``pip install``ed plugin."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

PLUGIN_MODULE = """
from typing import Any, ClassVar
from assay.graders import GraderInterface


class NonEmptyGrader(GraderInterface):
    default_id = "non-empty"
    name = "Non-empty"
    description = "Passes when the response has any text"
    type = "non-empty"
    version = "1"
    config_schema: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False, "properties": {}
    }
    scoring_guide = {"1.0": "some text", "0.0": "no text"}
    __slots__ = ()

    def grade(self, agent_response: Any, expected_output: Any) -> dict[str, Any]:
        passed = bool(str(agent_response or "").strip())
        return {"passed": passed, "score": float(passed),
                "details": {"match_status": "match" if passed else "mismatch", "reason": "checked"}}


class DuplicateGrader(NonEmptyGrader):
    default_id = "true-false"
    __slots__ = ()
"""


def install_plugin(directory: Path, entry_points: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real installed distribution on sys.path whose entry points importlib.metadata discovers."""
    (directory / "assay_test_plugin.py").write_text(PLUGIN_MODULE)
    dist_info = directory / "assay_test_plugin-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: assay-test-plugin\nVersion: 1.0\n")
    (dist_info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    monkeypatch.syspath_prepend(str(directory))
