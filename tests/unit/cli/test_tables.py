"""A summary's table drawn as plain text (off a terminal) and by Rich (on one): the same cells."""

from __future__ import annotations

import io

from rich.console import Console

from assay.cli.tables import PlainTable

TABLE = PlainTable(
    ("name", "count"), [("a [bold]b[/bold]", "1"), ("longer name", "12345")], title="Title", caption="3 rows"
)


def test_plain_text_aligns_the_columns_two_spaces_apart() -> None:
    assert TABLE.text().splitlines() == [
        "Title",
        "name              count",
        "a [bold]b[/bold]  1",
        "longer name       12345",
        "3 rows",
    ]


def test_a_table_without_rows_or_title_is_its_header() -> None:
    assert PlainTable(("match_status / error", "count")).text() == "match_status / error  count"


def test_rich_draws_the_same_cells_without_reading_markup_in_them() -> None:
    file = io.StringIO()
    Console(file=file, width=80).print(TABLE.rich())
    drawn = file.getvalue()
    for cell in ("Title", "name", "count", "a [bold]b[/bold]", "longer name", "12345", "3 rows"):
        assert cell in drawn
