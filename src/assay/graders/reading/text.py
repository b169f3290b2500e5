"""How a grader reads any input as text and puts it in the form it compares, alike in every grader.

The rules: docs/decisions.md#inputs-that-are-not-strings and docs/decisions.md#string-match-options.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from assay.graders.contract.reply import AgentReply

_VISIBLE = re.compile(
    "[^\\s\x00-\x1f\x7f-\xa0\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u2028-\u202f\u205f-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    "\ud800-\udfff\U000e0000-\U000e0fff]"
)
"""A character that shows: not whitespace, a control or format character (zero-width space, joiners, BOM,
bidi marks and isolates, tags, variation selectors), a lone surrogate, nor a blank-looking filler."""


def read_text(value: object) -> str:
    """The text a grader compares: an :class:`AgentReply`'s ``text``, ``None`` empty, a bool its lowercase
    name, anything else ``str()``. The one place any grader turns an agent's response into text."""
    if type(value) is str:
        return value
    if value is None:
        return ""
    if type(value) is AgentReply:
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return str.__str__(value)
    try:
        return str(value)
    except Exception:  # an object whose __str__ fails is still graded, as an unreadable value
        return f"<unprintable {type(value).__name__}>"


def is_blank(text: str) -> bool:
    """Whether ``text`` has no visible character: one notion of an empty answer (or expected output) for
    every grader and composite. ``"\\u200b"``, ``"\\x00"``, a byte-order mark or a lone surrogate is empty."""
    if text and "!" <= text[0] <= "~":  # most answers start with a printable ASCII character: no search
        return False
    return _VISIBLE.search(text) is None


def collapse_whitespace(text: str) -> str:
    """``text`` with its ends stripped and every inner run of whitespace (line breaks too) made one space."""
    return " ".join(text.split())


def _collapse_and_fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _unchanged(text: str) -> str:
    return text


def text_normalizer(*, case_sensitive: bool, normalize_whitespace: bool) -> Callable[[str], str]:
    """The function putting a text in the form a grader compares, chosen once from the two usual options.

    Case-insensitive means case-folded (``"STRASSE"`` equals ``"straße"``); whitespace normalisation strips
    both ends and collapses inner runs, so a line break in an answer equals a space in the expected text.
    """
    if normalize_whitespace:
        return collapse_whitespace if case_sensitive else _collapse_and_fold
    return _unchanged if case_sensitive else str.casefold


def excerpt(text: str, limit: int = 60) -> str:
    """``text`` quoted for a reason sentence, cut to ``limit`` characters (a reason stays one short line)."""
    return repr(text if len(text) <= limit else text[:limit] + "…")
