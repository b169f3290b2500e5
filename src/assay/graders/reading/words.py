"""Word boundaries, the same in every grader that looks for a word or a label inside a text.

A span of a text is a *whole word* when it does not continue a word or a number on either side:

- letters, digits, combining marks and ``_`` make words, in any script (``"no"`` is not whole in ``"know"``,
  ``"cafe"`` is not whole in ``"cafe\\u0301s"``);
- scripts written without spaces between words (Chinese, Japanese kana, Thai, Lao, Khmer, Myanmar) do not
  join a neighbour: ``"北京"`` is whole in ``"首都是北京。"`` and ``"B"`` is whole in ``"答案是B"``;
- a number continues across a decimal point or a thousands separator between digits: ``"3"`` is not whole
  in ``"3.14"``, nor ``"1"`` in ``"1,000"``, nor ``"5"`` in ``"0.5"``.

A side of the span that is not itself a word character sets no condition there (``"$5"`` is whole in
``"cost: $5"``), as a search for punctuation would expect.
"""

from __future__ import annotations

import re
import string
import unicodedata

_UNSPACED_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3000, 0x31FF),  # CJK symbols (々), Hiragana, Katakana, Bopomofo
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)
_JOINING_CATEGORIES = frozenset({"Mn", "Mc", "Me", "Pc"})
_NUMBER_SEPARATORS = ".,"
_ASCII_WORD = frozenset(string.ascii_letters + string.digits + "_")
_UNSPACED_CLASS = "".join(f"{chr(low)}-{chr(high)}" for low, high in _UNSPACED_RANGES)
_SPACED_ALNUM = f"[^\\W{_UNSPACED_CLASS}]"
"""A letter, digit or ``_`` of a script written with spaces (regex class; combining marks are not in it)."""
_BREAK = re.compile(f"[\\W{_UNSPACED_CLASS}]")
"""A character after which a word may start: every one that is not a word character (and a few that are)."""


def _is_unspaced(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _UNSPACED_RANGES)


def is_word_char(char: str) -> bool:
    """Whether ``char`` continues a word of a script written with spaces (letters, digits, marks, ``_``)."""
    if char < "\x80":
        return char in _ASCII_WORD
    if char.isalnum():
        return not _is_unspaced(char)
    return unicodedata.category(char) in _JOINING_CATEGORIES


def _reach(text: str, edge: int, step: int) -> int:
    """How far the word or number at ``text[edge]`` goes on in direction ``step`` (±1): 0, 1 or 2 chars."""
    outer = edge + step
    if outer < 0 or outer >= len(text):
        return 0
    neighbour = text[outer]
    if neighbour in _NUMBER_SEPARATORS:
        beyond = outer + step
        if 0 <= beyond < len(text) and text[edge].isdecimal() and text[beyond].isdecimal():
            return 2
        return 0
    return 1 if is_word_char(neighbour) and is_word_char(text[edge]) else 0


def is_whole_word(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (not empty) stands alone: no word or number goes on across either end."""
    return not _reach(text, start, -1) and not _reach(text, end - 1, 1)


def word_around(text: str, start: int, end: int, limit: int = 40) -> str:
    """The longer word or number that ``text[start:end]`` is part of, cut ``limit`` characters each side."""
    low, high = start, end
    while low > start - limit and (reach := _reach(text, low, -1)):
        low -= reach
    while high < end + limit and (reach := _reach(text, high - 1, 1)):
        high += reach
    return text[max(low, 0) : high]


def find_whole_word(text: str, needle: str) -> tuple[int, int]:
    """(where ``needle`` first occurs in ``text`` as a whole word, where it first occurs at all); -1 if not.

    Linear in practice: after an occurrence that continues a word on its left, the search resumes at the
    next character that can end a word, not one character later.
    """
    found = first = text.find(needle)
    last, size = len(needle) - 1, len(text)
    while found >= 0:
        if found and _reach(text, found, -1):
            after = _BREAK.search(text, found)
            found = -1 if after is None else text.find(needle, after.start() + 1)
        elif found + last + 1 < size and _reach(text, found + last, 1):
            found = text.find(needle, found + 1)
        else:
            return found, first
    return -1, first


def token_pattern(alternatives: str) -> str:
    """A regex of ``alternatives`` where no letter or digit of a spaced script touches either end.

    A fast prefilter for :func:`is_whole_word`, which still decides (marks and number separators).
    """
    return f"(?<!{_SPACED_ALNUM})(?:{alternatives})(?!{_SPACED_ALNUM})"
