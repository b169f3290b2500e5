"""The tokens a text is made of, in any script, as token-overlap measures (F1, ROUGE-L) count them.

SQuAD's answer normalisation, made Unicode-aware the way multilingual QA evaluations (MLQA, KorQuAD) do
it. The rules are in docs/tokens.md: NFKC and case folding, format characters deleted; punctuation
deleted, not made a space, except what gives a number its value (``"-5"``, ``"3.5"``; ``"1,000"`` is
``"1000"``); words split at whitespace, zero-width spaces and long dashes; each Chinese character,
Japanese kana and Korean syllable a token of its own, a run of Thai, Lao, Khmer or Myanmar one token; the
English articles optionally dropped.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable
from itertools import product

from assay.graders.reading.text import text_normalizer

_CHARACTER_TOKENS = (
    "\u1100-\u11ff"  # Hangul jamo (those NFKC cannot compose into a syllable)
    "\u2e80-\u2fdf"  # CJK and Kangxi radicals
    "\u3005-\u3007"  # 々 〆 〇
    "\u3041-\u309f"  # Hiragana
    "\u30a1-\u30fa\u30fc-\u30ff"  # Katakana, without its two punctuation marks ゠ and ・
    "\u3131-\u318e"  # Hangul compatibility jamo
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\ua960-\ua97f"  # Hangul jamo extended A
    "\uac00-\ud7a3"  # Hangul syllables
    "\ud7b0-\ud7ff"  # Hangul jamo extended B
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0003ffff"  # CJK extensions B and later
)
_CHARACTER_RUNS = re.compile(f"([{_CHARACTER_TOKENS}]+)")
_ZERO_WIDTH_SPACE = "\u200b"
_DASHES = "\u2012\u2013\u2014\u2015\u2e3a\u2e3b"
"""Figure, en, em dashes and the horizontal bar part words ("Paris—France") as a space would; hyphens join."""

_NUMBER_MARKS = "-.,\u2212"
"""What can be part of a number's value (the minus sign too, a math symbol deleted like a hyphen when it
signs nothing): left in place by the first deletion pass, deleted by the second outside numbers."""
_SIGN = re.compile(r"[-.,\u2212]*[-\u2212](?=\d)")
"""A minus before the digits a word starts with, once the marks before it go: "(-5)" is "-5" by then;
"COVID-19" and "1990-2000" have none."""
_BETWEEN_DIGITS = re.compile(r"(?<=\d)([.,])(?=\d)")
"""A point or comma inside a number ("3.5", "3,5", "1,000"), judged before any mark around it goes."""
_THOUSANDS_COMMA = re.compile(r",(?=\d{3}(?!\d))")
_ASCII_DIGIT = re.compile("[0-9]")

_ASCII_SYMBOLS = frozenset(string.punctuation) - frozenset(_NUMBER_MARKS)
_ASCII_DELETIONS = str.maketrans("", "", "".join(sorted(_ASCII_SYMBOLS)))
_MARK_DELETIONS = str.maketrans("", "", _NUMBER_MARKS)
ARTICLES = frozenset(
    "".join(letters)
    for word in ("a", "an", "the")
    for letters in product(*((char, char.upper()) for char in word))
)
"""a, an and the in every capitalisation ("The", "THE", "tHe"...): dropped whether case counts or not."""


def _replacements(text: str, ignore_punctuation: bool) -> dict[int, str | None]:
    """The first pass over a non-ASCII text: what its characters become (each distinct one looked at once).

    A zero-width space becomes a space and other invisible format characters (Unicode ``Cf``) go; with
    punctuation ignored, long dashes become a space and punctuation goes, but for the marks a number may
    need (``_NUMBER_MARKS``), left for the second pass.
    """
    table: dict[int, str | None] = {}
    for char in set(text):
        category = unicodedata.category(char)
        if char == _ZERO_WIDTH_SPACE or (ignore_punctuation and char in _DASHES):
            table[ord(char)] = " "
        elif category == "Cf" or (
            ignore_punctuation
            and (category[0] == "P" or char in _ASCII_SYMBOLS)
            and char not in _NUMBER_MARKS
        ):
            table[ord(char)] = None
    return table


def _without_marks(word: str) -> str:
    """The second pass: ``word`` without hyphens, points and commas but those giving a number its value.

    What is kept is judged on the word as it is, so a deletion never makes a mark look part of a number
    (the tokens of the tokens are the tokens); thousands commas go last, judged on the result.
    """
    bare = word.rstrip(".,")  # most often a word ending a sentence or clause: never part of a number
    if bare.isalnum():
        return bare
    sign = _SIGN.match(word)
    if sign:
        word = word[sign.end() :]
    pieces = _BETWEEN_DIGITS.split(word)  # odd pieces are the marks kept
    word = "".join(
        piece if index % 2 else piece.translate(_MARK_DELETIONS) for index, piece in enumerate(pieces)
    )
    if "," in word:
        word = _THOUSANDS_COMMA.sub("", word)
    return "-" + word if sign else word


def _marks_removed(found: list[str]) -> list[str]:
    """``found`` after the second pass, words left empty dropped (each distinct word cleaned once)."""
    cleaned = {word: _without_marks(word) for word in set(found) if not word.isalnum()}
    if not cleaned:
        return found
    return [bare for word in found if (bare := cleaned.get(word, word))]


def _recomposed(found: list[str], fold: Callable[[str], str]) -> list[str]:
    """``found`` in normal form again: a deletion between a letter and its accent ("C:̧") lets them compose."""
    fixed = {
        word: fold(unicodedata.normalize("NFKC", word))
        for word in set(found)
        if not unicodedata.is_normalized("NFKC", word)
    }
    return [fixed.get(word, word) for word in found] if fixed else found


def _split(text: str) -> list[str]:
    """Whitespace-separated words, each ideograph, kana or Hangul syllable a token of its own."""
    pieces = _CHARACTER_RUNS.split(text)
    if len(pieces) == 1:
        return text.split()
    found: list[str] = []
    for index, piece in enumerate(pieces):
        found.extend(piece if index % 2 else piece.split())  # odd pieces are runs of character tokens
    return found


def tokenizer(
    *, case_sensitive: bool, ignore_punctuation: bool, ignore_articles: bool
) -> Callable[[str], list[str]]:
    """The function splitting a text into the tokens compared, chosen once from the options."""
    fold = text_normalizer(case_sensitive=case_sensitive, normalize_whitespace=False)

    def tokens(text: str) -> list[str]:
        numbers = ignore_punctuation  # whether some words may be numbers whose marks are kept
        ascii_text = text.isascii()
        if ascii_text:
            text = fold(text)
            if ignore_punctuation:
                text = text.translate(_ASCII_DELETIONS)
                if not _ASCII_DIGIT.search(text):  # most texts: no number, the marks go at once
                    text, numbers = text.translate(_MARK_DELETIONS), False
            found = text.split()
        else:
            text = fold(unicodedata.normalize("NFKC", text))
            replacements = _replacements(text, ignore_punctuation)
            found = _split(text.translate(replacements) if replacements else text)
        if numbers:
            found = _marks_removed(found)
        if not ascii_text:
            found = _recomposed(found, fold)
        if ignore_articles:
            found = [token for token in found if token not in ARTICLES]
        return found

    return tokens
