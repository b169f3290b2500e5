"""What makes a screen unreadable, found in the page itself: words broken inside themselves, elements that
overflow their container or the viewport, values cut with no way to read them whole.

``layout_problems(page)`` runs one script in the page and returns a line per problem (empty: the screen
reads). Used by ``tests/e2e/test_ui_layout.py``.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

_SCRIPT = (Path(__file__).parent / "layout.js").read_text(encoding="utf-8")


def layout_problems(page: Page) -> list[str]:
    """A line per layout problem on the page as it is rendered now."""
    problems: list[str] = page.evaluate(_SCRIPT)
    return problems
