"""docs/python-api.md works as written: each of its Python examples runs, in order, in a fresh folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).parents[2] / "docs" / "python-api.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_page_has_examples() -> None:
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("code", EXAMPLES, ids=[f"example-{n}" for n in range(1, len(EXAMPLES) + 1)])
def test_each_example_runs(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{PAGE.name} example", "exec"), {"__name__": "docs_example"})


def test_a_bad_argument_is_one_validation_error() -> None:
    import assay
    from assay.errors import ValidationError

    with pytest.raises(ValidationError, match="a target given as text is an agent's URL"):
        assay.evaluate([{"input": "q", "expected_output": "true"}], "not-a-url", grader="true-false")
    with pytest.raises(ValidationError, match="case #1 must be a mapping with 'input'"):
        assay.evaluate([{"question": "q"}], lambda text: "yes", grader="true-false")
