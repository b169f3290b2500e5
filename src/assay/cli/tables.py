"""A table of text cells, rendered by Rich on a terminal or as aligned plain text (see ``Stream.table``).

The rows are computed once; only their drawing differs, so a CI log reads the same figures a terminal shows,
without loading Rich.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.table import Table

GAP = "  "
"""Between two columns of a plain table."""


@dataclass(frozen=True, slots=True)
class PlainTable:
    """Column headers, rows of cells (as many as headers), a title above and a caption below."""

    headers: Sequence[str]
    rows: Sequence[Sequence[str]] = field(default_factory=list)
    title: str | None = None
    caption: str | None = None

    def text(self) -> str:
        """Left-aligned columns, two spaces apart; the title above, the caption below."""
        widths = [len(header) for header in self.headers]
        for row in self.rows:
            widths = [max(width, len(cell)) for width, cell in zip(widths, row, strict=True)]
        lines = [self.title] if self.title else []
        for row in (self.headers, *self.rows):
            lines.append(
                GAP.join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            )
        if self.caption:
            lines.append(self.caption)
        return "\n".join(lines)

    def rich(self) -> Table:
        """The same table for Rich (cells as plain text: no markup is read in them)."""
        from rich.table import Table
        from rich.text import Text

        title, caption = (Text(text) if text else None for text in (self.title, self.caption))
        table = Table(*self.headers, title=title, caption=caption)
        for row in self.rows:
            table.add_row(*(Text(cell) for cell in row))
        return table
