"""CSV cells that a spreadsheet would run as a formula are neutralised, leading spaces and breaks included."""

from __future__ import annotations

import pytest

from assay.services.suites.files import neutralise_formula


@pytest.mark.parametrize(
    "cell",
    [
        "=1+1",
        "+1",
        "-1",
        "@SUM(A1)",
        "\t=1",
        "\r=1",
        " =1",
        "\n=1",
        "  \r\n=HYPERLINK(x)",
        "\u00a0=1",
        "＝1",
        " @x",
    ],
)
def test_formulas_are_quoted(cell: str) -> None:
    assert neutralise_formula(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["1+1", "Paris", " yes", "\nno", "a=b", "", "   ", "e-mail"])
def test_text_is_left_alone(cell: str) -> None:
    assert neutralise_formula(cell) == cell
