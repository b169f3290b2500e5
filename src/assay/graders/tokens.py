"""The tokens a text is made of, in any script, as token-overlap measures (F1, ROUGE-L) count them.

SQuAD's answer normalisation, made Unicode-aware the way multilingual QA evaluations (MLQA) do it:

- compatibility forms are folded (NFKC: full-width letters and digits are ASCII, half-width katakana is
  full-width), then case unless asked not to;
- punctuation is deleted, not turned into a space (``"U.S."`` is ``"us"``, ``"don't"`` is ``"dont"``,
  ``"1,000"`` is ``"1000"``, but also ``"New York-based"`` is ``"new yorkbased"``): every character of a
  Unicode punctuation category (``P*``) and the ASCII symbols SQuAD removes (``$ + < = > ^ ` | ~``);
- words are what whitespace separates, in any script, and with punctuation ignored also a dash longer
  than a hyphen (en, em: ``"Paris—France"`` is two words);
- each Chinese character and Japanese kana is a token of its own, since those scripts put no spaces
  between words (``"北京是首都"`` is five tokens), as in MLQA's Chinese evaluation. Korean is spaced and
  splits on spaces. Thai, Lao, Khmer and Myanmar are unspaced too but not segmented here (that needs a
  dictionary): a run of them is one token;
- the English articles a, an, the (any capitalisation) can be dropped, as SQuAD does.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable
from itertools import product

from assay.graders.text import text_normalizer

_CHARACTER_TOKENS = (
    "\u2e80-\u2fdf"  # CJK and Kangxi radicals
    "\u3005-\u3007"  # 々 〆 〇
    "\u3041-\u309f"  # Hiragana
    "\u30a1-\u30fa\u30fc-\u30ff"  # Katakana, without its two punctuation marks ゠ and ・
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0003ffff"  # CJK extensions B and later
)
_CHARACTER_RUNS = re.compile(f"([{_CHARACTER_TOKENS}]+)")
_SEPARATING_DASHES = re.compile("[\u2012-\u2015\u2e3a\u2e3b]")
"""Figure, en, em dashes and the horizontal bar part words ("Paris—France") as a space would; hyphens join."""

_ASCII_PUNCTUATION = str.maketrans("", "", string.punctuation)
ARTICLES = frozenset(
    "".join(letters)
    for word in ("a", "an", "the")
    for letters in product(*((char, char.upper()) for char in word))
)
"""a, an and the in every capitalisation ("The", "THE", "tHe"...): dropped whether case counts or not."""


def _without_punctuation(token: str) -> str:
    if token.isalnum():  # most words: nothing to look at character by character
        return token
    token = token.translate(_ASCII_PUNCTUATION)
    if token.isascii():
        return token
    return "".join(char for char in token if char.isalnum() or unicodedata.category(char)[0] != "P")


def _split(text: str, dashes_separate: bool) -> list[str]:
    """Whitespace-separated words, each ideograph or kana a token of its own (``text`` is not ASCII)."""
    if dashes_separate and _SEPARATING_DASHES.search(text):
        text = _SEPARATING_DASHES.sub(" ", text)
    pieces = _CHARACTER_RUNS.split(text)
    if len(pieces) == 1:
        return text.split()
    found: list[str] = []
    for index, piece in enumerate(pieces):
        found.extend(piece if index % 2 else piece.split())  # odd pieces are runs of ideographs or kana
    return found


def tokenizer(
    *, case_sensitive: bool, ignore_punctuation: bool, ignore_articles: bool
) -> Callable[[str], list[str]]:
    """The function splitting a text into the tokens compared, chosen once from the options."""
    fold = text_normalizer(case_sensitive=case_sensitive, normalize_whitespace=False)

    def tokens(text: str) -> list[str]:
        if text.isascii():
            text = fold(text)
            found = (text.translate(_ASCII_PUNCTUATION) if ignore_punctuation else text).split()
        else:
            found = _split(fold(unicodedata.normalize("NFKC", text)), ignore_punctuation)
            if ignore_punctuation:  # a text repeats its words: each distinct one is cleaned once
                bare = {token: _without_punctuation(token) for token in set(found)}
                found = [bare[token] for token in found if bare[token]]
        if ignore_articles:
            found = [token for token in found if token not in ARTICLES]
        return found

    return tokens
