"""Problems of an error envelope as people read them (``line 2: ...``), for tests that compare messages."""

from __future__ import annotations

from typing import Any

from assay.errors import Problem


def problem_lines(error: Any) -> list[str]:
    """Each of the envelope error's problems as ``where: what`` (the CLI's and the UI's wording)."""
    return [str(Problem(tuple(item["loc"]), item["message"])) for item in error["problems"]]
